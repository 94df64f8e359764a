import { readFile } from 'node:fs/promises'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { flowPolicy } from '../flow/__fixtures__/flow-policy.js'
import { policyJsonSchema } from '../schema/plan-json-schema.js'
import { policySchema } from '../schema/policy-schema.js'
import { parsePolicyFast } from './parse-policy-fast.js'
import POLICY_JSON_SCHEMA from './policy-schema.generated.json' with { type: 'json' }

async function fixture(path: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8'))
}

const minimal = { version: 1, workspace: { roots: ['/srv/repo'] }, tools: {} }

/** The `tools` section `referenceToolPolicy()` of @plan/tools returns (descriptions included). */
const REFERENCE_TOOLS = {
  view_file: {
    description: 'Read a text file inside the workspace.',
    args: { file: { type: 'path', access: 'read' } },
  },
  write_file: {
    description: 'Write a whole text file inside the workspace (atomically).',
    args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } },
  },
  list_files: {
    description: 'List the entries of a folder inside the workspace.',
    args: { dir: { type: 'path', access: 'read', required: false } },
  },
  run_command: {
    description: 'Run one allowed program, without a shell, in the workspace.',
    args: { command: { type: 'command' } },
  },
}

const everything = {
  $schema: 'https://example.com/policy.json',
  $comment: ['one', 'two'],
  version: 1,
  workspace: { roots: ['/srv/repo', 'rel'], readOnly: ['.git', 'docs'], deny: ['.env'] },
  tools: {
    fetch: {
      description: 'Fetch a page',
      maxCalls: 3,
      args: {
        url: { type: 'string', format: 'url', schemes: ['https'], hosts: ['*.example.com'] },
        note: {
          type: 'string',
          required: false,
          minLength: 0,
          maxLength: 10,
          pattern: '^a',
          description: 'x',
          acceptsUntrusted: true,
        },
        count: { type: 'number', integer: true, minimum: 0, maximum: 9 },
        flag: { type: 'boolean' },
        mode: { type: 'enum', values: ['a', 1, true] },
        file: { type: 'path' },
        out: { type: 'path', access: 'write' },
        command: { type: 'command' },
        data: { type: 'json', maxBytes: 100 },
        list: { type: 'array', items: { type: 'array', items: { type: 'path' } }, maxItems: 4 },
      },
      output: {
        trust: 'untrusted',
        declassify: {
          type: 'object',
          properties: {
            n: { type: 'number', integer: true },
            b: { type: 'boolean' },
            e: { type: 'enum', values: ['x'] },
            s: { type: 'string', pattern: '^[a-z]+$' },
            a: { type: 'array', items: { type: 'string', pattern: 'x', maxLength: 8 } },
          },
        },
      },
    },
    plain: { examples: { allow: [{}], deny: [{ extra: [1, { deep: null }] }] } },
    pinned: { idempotent: true, pin: `sha256:${'0a'.repeat(32)}` },
  },
  commands: {
    allow: ['git', 'npm'],
    rules: {
      git: {
        subcommands: ['status'],
        denyFlags: ['-c'],
        allowExec: false,
        allowFlags: ['--output'],
        skipPathCheck: false,
        examples: { allow: ['git status'], deny: ['git push'] },
      },
    },
    maxLength: 100,
  },
  budgets: {
    maxSteps: 10,
    maxDepth: 5,
    maxFanOut: 5,
    maxCallsPerTool: 4,
    maxCalls: 20,
    maxIdenticalCalls: 2,
    maxDenials: 3,
    denialWindowSeconds: 600,
    maxReplans: 0,
    deadlineMs: 1000,
  },
  trust: { defaultOutput: 'trusted' },
  approval: { requireSignature: true },
  audit: { required: true },
  mcp: { requirePins: true, prompts: ['review'], resources: ['file', 'note+x'] },
}

describe('parsePolicyFast', () => {
  it.each([
    ['a pin that is not sha256:<64 hex>', { plain: { pin: `sha256:${'A'.repeat(64)}` } }, {}],
    ['a pin of the wrong length', { plain: { pin: 'sha256:0a' } }, {}],
    ['a resource scheme with a colon', {}, { mcp: { resources: ['file:'] } }],
    ['an empty prompt name', {}, { mcp: { prompts: [''] } }],
  ])('should leave %s to policySchema, which refuses it', (_, tools, rest) => {
    const policy = { ...minimal, tools, ...rest }
    expect(parsePolicyFast(policy)).toBeUndefined()
    expect(policySchema.safeParse(policy).success).toBe(false)
  })

  it('should apply the mcp defaults as policySchema does', () => {
    const policy = { ...minimal, mcp: {} }
    expect(parsePolicyFast(policy)).toEqual(policySchema.parse(policy))
    expect(parsePolicyFast(policy)?.mcp).toEqual({ requirePins: false, prompts: [], resources: [] })
  })

  it.each([
    ['a minimal policy (catches a default added to the schema only)', minimal],
    ['a policy using every field', everything],
    ['the reference tools policy', { ...minimal, tools: REFERENCE_TOOLS }],
    ['the data-flow fixture policy', flowPolicy('/srv/repo')],
  ])('should read %s exactly as policySchema does', (_, policy) => {
    const fast = parsePolicyFast(policy)
    expect(fast).toBeDefined()
    expect(fast).toEqual(policySchema.parse(policy))
  })

  it('should read the seed and CLI fixture policies exactly as policySchema does', async () => {
    for (const path of [
      '../compile/__fixtures__/seed-policy.json',
      '../../../cli/src/__fixtures__/policy.json',
    ]) {
      const policy = await fixture(path)
      expect(parsePolicyFast(policy)).toEqual(policySchema.parse(policy))
    }
  })

  it.each([
    ['an unknown key', { ...minimal, budget: {} }],
    ['version 2', { ...minimal, version: 2 }],
    ['no roots', { ...minimal, workspace: { roots: [] } }],
    ['an unknown argument type', { ...minimal, tools: { t: { args: { a: { type: 'file' } } } } }],
    ['a zero budget', { ...minimal, budgets: { maxSteps: 0 } }],
    ['a fractional budget', { ...minimal, budgets: { maxSteps: 1.5 } }],
    ['an explicit undefined', { ...minimal, $comment: undefined }],
    [
      'a __proto__ tool',
      JSON.parse('{"version":1,"workspace":{"roots":["/r"]},"tools":{"__proto__":{}}}'),
    ],
    ['a class instance', Object.assign(new (class Policy {})(), minimal)],
  ])('should leave %s to policySchema', (_, policy) => {
    expect(parsePolicyFast(policy)).toBeUndefined()
  })

  it('should return fresh arrays and objects, not the input', () => {
    const input = structuredClone(everything)
    const fast = parsePolicyFast(input)
    expect(fast?.workspace.roots).not.toBe(input.workspace.roots)
    expect(fast?.tools).not.toBe(input.tools)
  })

  it('should accept no policy that lacks a field the schema requires, at any depth', () => {
    const keyPaths = (value: unknown, path: string[] = []): string[][] => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return []
      return Object.entries(value).flatMap(([key, child]) => [
        [...path, key],
        ...keyPaths(child, [...path, key]),
      ])
    }
    const without = (value: unknown, path: readonly string[]): unknown => {
      const copy = structuredClone(value) as Record<string, unknown>
      let parent = copy
      for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>
      delete parent[path.at(-1) as string]
      return copy
    }
    let refusedBySchema = 0
    for (const base of [everything, minimal, flowPolicy('/srv/repo')]) {
      for (const path of keyPaths(base)) {
        const input = without(base, path)
        const slow = policySchema.safeParse(input)
        const fast = parsePolicyFast(input)
        if (!slow.success) {
          refusedBySchema += 1
          expect(fast, path.join('.')).toBeUndefined()
        } else if (fast !== undefined) expect(fast, path.join('.')).toEqual(slow.data)
      }
    }
    // version, workspace, roots, tools, argument types, items, values… are all required somewhere.
    expect(refusedBySchema).toBeGreaterThan(10)
  })

  it('should agree with policySchema whenever it accepts, and accept nothing the schema rejects', () => {
    const junk = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.constant(''),
      fc.constant(-1),
      fc.constant(0),
      fc.constant(1.5),
      fc.constant(Number.NaN),
      fc.constant(2 ** 60),
      fc.constant([]),
      fc.constant({}),
    )
    const maybe = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 30, arbitrary: valid }, junk)
    const text = maybe(fc.constantFrom('a', 'git', '.git', 'x/y', 'read'))
    const count = maybe(fc.integer({ min: 0, max: 5000 }))
    const flag = maybe(fc.boolean())
    const { arg } = fc.letrec<{ arg: unknown }>((tie) => ({
      arg: fc.oneof(
        { depthSize: 'small' },
        fc.record(
          {
            type: fc.constantFrom('string', 'number', 'boolean', 'path', 'command', 'json', 'x'),
            required: flag,
            access: maybe(fc.constantFrom('read', 'write')),
            minLength: count,
            maxBytes: count,
            format: maybe(fc.constant('url')),
          },
          { requiredKeys: ['type'] },
        ),
        fc.record({ type: fc.constant('enum'), values: maybe(fc.array(text, { maxLength: 2 })) }),
        fc.record(
          { type: fc.constant('array'), items: tie('arg'), maxItems: count },
          { requiredKeys: ['type', 'items'] },
        ),
      ),
    }))
    const policy = fc.record(
      {
        version: maybe(fc.constant(1)),
        workspace: fc.record(
          {
            roots: maybe(fc.array(text, { maxLength: 2 })),
            readOnly: maybe(fc.array(text, { maxLength: 2 })),
            deny: maybe(fc.array(text, { maxLength: 2 })),
          },
          { requiredKeys: ['roots'] },
        ),
        tools: fc.dictionary(
          fc.constantFrom('t', 'u', ''),
          fc.record(
            {
              args: fc.dictionary(fc.constantFrom('a', 'b'), arg, { maxKeys: 2 }),
              maxCalls: count,
            },
            { requiredKeys: [] },
          ),
          { maxKeys: 2 },
        ),
        commands: fc.record(
          { allow: maybe(fc.array(text, { maxLength: 2 })), maxLength: count },
          { requiredKeys: [] },
        ),
        budgets: fc.record(
          { maxSteps: count, maxReplans: count, deadlineMs: count, denialWindowSeconds: count },
          { requiredKeys: [] },
        ),
        trust: fc.record(
          {
            defaultOutput: maybe(fc.constantFrom('trusted', 'untrusted')),
            tainted: fc.record(
              {
                mode: maybe(fc.constantFrom('allowlist', 'rule-of-two')),
                commands: maybe(fc.array(text, { maxLength: 2 })),
                maxQuestions: count,
                urls: maybe(
                  fc.array(fc.constantFrom('https://a.example/x', 'nope'), { maxLength: 1 }),
                ),
              },
              { requiredKeys: [] },
            ),
          },
          { requiredKeys: [] },
        ),
        audit: fc.record({ required: flag }),
        sandbox: fc.record(
          {
            network: fc.record({ allow: maybe(fc.array(text, { maxLength: 2 })) }),
            env: maybe(fc.array(fc.constantFrom('HOME', 'PATH', '1x'), { maxLength: 1 })),
            read: maybe(fc.array(fc.constantFrom('/opt', '/srv', 'opt'), { maxLength: 1 })),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ['version', 'workspace', 'tools'] },
    )
    let accepted = 0
    fc.assert(
      fc.property(policy, (input) => {
        const fast = parsePolicyFast(input)
        const slow = policySchema.safeParse(input)
        if (!slow.success) expect(fast).toBeUndefined()
        if (fast !== undefined) {
          accepted += 1
          expect(fast).toEqual(slow.data)
        }
      }),
      { numRuns: 2000, seed: 17 },
    )
    // The generator must reach valid policies often enough for the comparison to mean something.
    expect(accepted).toBeGreaterThan(100)
  })
})

describe('POLICY_JSON_SCHEMA', () => {
  it('should be the JSON Schema of policySchema (run scripts/write-json-schemas.mjs when not)', () => {
    expect(POLICY_JSON_SCHEMA).toEqual(policyJsonSchema())
  })

  it('should say every check of policySchema but the one the fast reader makes itself', () => {
    // A refinement or a transform has no JSON Schema: the fast reader would not see it.
    const hidden = new Set<string>()
    const flagged: string[] = []
    z.toJSONSchema(policySchema, {
      io: 'input',
      unrepresentable: 'throw',
      override: ({ zodSchema, path }) => {
        const { def, bag } = zodSchema._zod
        const checks = 'checks' in def ? (def.checks ?? []) : []
        if (checks.some((check) => check._zod.def.check === 'custom')) hidden.add(path.join('.'))
        if (['pipe', 'transform', 'custom'].includes(def.type)) hidden.add(path.join('.'))
        const patterns: Iterable<RegExp> = 'patterns' in bag ? (bag.patterns as Set<RegExp>) : []
        for (const pattern of patterns) if (pattern.flags !== '') flagged.push(path.join('.'))
      },
    })
    // The arguments of tool examples refuse prototype keys, which the fast reader always declines.
    expect([...hidden]).toEqual([
      'properties.tools.additionalProperties.properties.examples.properties.allow.items',
    ])
    expect(flagged).toEqual([])
  })
})

describe('parsePolicyFast and trust.tainted', () => {
  it('should read a tainted section without urls exactly as policySchema does', () => {
    const policy = {
      ...minimal,
      trust: { tainted: { mode: 'rule-of-two', commands: ['npm test'] } },
    }
    expect(parsePolicyFast(policy)).toEqual(policySchema.parse(policy))
  })

  it('should leave urls to the zod schema, which checks that they are URLs', () => {
    const policy = {
      ...minimal,
      trust: {
        tainted: { urls: ['https://docs.example.com/calc'], maxQuestions: 3, sensitive: ['!a'] },
      },
    }
    expect(parsePolicyFast(policy)).toBeUndefined()
    expect(policySchema.parse(policy).trust.tainted).toMatchObject({
      urls: ['https://docs.example.com/calc'],
      maxQuestions: 3,
      sensitive: ['!a'],
    })
    expect(policySchema.parse({ ...minimal, trust: { tainted: {} } }).trust.tainted).toMatchObject({
      urls: [],
      maxQuestions: 3,
    })
    expect(
      policySchema.safeParse({ ...minimal, trust: { tainted: { urls: ['not a url'] } } }).success,
    ).toBe(false)
    expect(
      policySchema.safeParse({ ...minimal, trust: { tainted: { maxQuestions: 0 } } }).success,
    ).toBe(false)
  })
})
