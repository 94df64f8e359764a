import { beforeAll, describe, expect, it } from 'vitest'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { createPlanCompiler } from './create-plan-compiler.js'

// A plan's hash is persisted and signed: the same plan must hash the same in every release.
let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: {
      view_file: { args: { file: { type: 'path', access: 'read' } } },
      write_file: {
        args: {
          file: { type: 'path', access: 'write' },
          content: { type: 'string', required: false },
        },
      },
      run_command: { args: { command: { type: 'command' } } },
      store: {
        args: {
          data: { type: 'json' },
          tags: { type: 'array', items: { type: 'string' }, required: false },
          count: { type: 'number', required: false },
          flag: { type: 'boolean', required: false },
          mode: { type: 'enum', values: ['a', 'b', 1], required: false },
        },
      },
    },
    commands: { allow: ['git', 'npm', 'ls'] },
    budgets: { maxSteps: 10_000 },
  })
})

const generated = (size: number) =>
  Array.from({ length: size }, (_, index) =>
    index % 3 === 0
      ? {
          id: `s${index}`,
          tool: 'view_file',
          args: { file: `src/f${index}.ts` },
          depends_on: index > 0 ? [`s${index - 1}`] : [],
        }
      : index % 3 === 1
        ? {
            id: `s${index}`,
            tool: 'write_file',
            args: { file: `out/f${index}.ts`, content: { $ref: `s${index - 1}.output.text` } },
            depends_on: index > 4 ? [`s${index - 4}`] : [],
          }
        : { id: `s${index}`, tool: 'run_command', args: { command: 'git status' } },
  )

describe('CompiledPlan.hash', () => {
  it.each([
    [
      'one step',
      [{ id: 'a', tool: 'view_file', args: { file: 'README.md' } }],
      'eea4d933b4ef2d9f1be757765834cea387d14674ebe22bc768a7b575c2dd28bc',
    ],
    [
      'a chain with a reference, both dependency spellings, a goal and a description',
      {
        goal: 'g',
        steps: [
          { id: 'read', tool: 'view_file', args: { file: 'src/a.ts' }, description: 'd' },
          {
            id: 'write',
            tool: 'write_file',
            args: { content: { $ref: 'read.output.text' }, file: 'src/b.ts' },
            depends_on: ['read'],
          },
          {
            id: 'test',
            tool: 'run_command',
            args: { command: 'npm test' },
            dependsOn: ['write', 'read'],
          },
        ],
      },
      '67a1887a5b04933b32efcea38f7b01edc7046a71a1076d4cd8ee032a83272393',
    ],
    [
      'JSON, array, number, boolean and enum arguments with unusual strings and keys',
      [
        {
          id: 'x',
          tool: 'store',
          args: {
            data: {
              z: [1, 2.5, -0, 1e21, 'é\u2028\u{1F600}"\\'],
              a: { '10': 1, '9': 2, b: null, c: true },
            },
            tags: ['t', 'u'],
            count: 3,
            flag: false,
            mode: 1,
          },
        },
        {
          id: 'y',
          tool: 'store',
          args: { mode: 'b', data: { $ref: 'x' }, tags: [{ $ref: 'x.output.list' }] },
        },
        {
          id: 'z',
          tool: 'view_file',
          args: { file: { $ref: 'y.output.path.0' } },
          depends_on: ['x', 'x'],
        },
      ],
      'a4df5b282ddd6047f72daed8403ebc28f4ce2950d29cdc96e2a82bbf46d70836',
    ],
    [
      'a generated plan of 500 steps',
      generated(500),
      '695f8c8ae4cb27419262109225b65cee89bbb127147f7cecb01be8774d539e16',
    ],
    [
      'a generated plan of 9,000 steps',
      generated(9000),
      '4d73f0c27459e60ed2ed1eb1e4472fa8a22508da63e7ababd3462a5a1c1b3253',
    ],
  ])('should stay the same for %s', (_name, plan, hash) => {
    expect(compiler.compile(plan).hash).toBe(hash)
  })

  it('should be an own enumerable key that copies keep, the same at every read', () => {
    const plan = compiler.compile([{ id: 'a', tool: 'view_file', args: { file: 'README.md' } }])
    const hash = 'eea4d933b4ef2d9f1be757765834cea387d14674ebe22bc768a7b575c2dd28bc'
    expect(Object.isFrozen(plan)).toBe(true)
    expect(Object.keys(plan)).toEqual(['steps', 'order', 'levels', 'hash', 'criticalPathLength'])
    for (const copy of [JSON.parse(JSON.stringify(plan)), { ...plan }, structuredClone(plan)])
      expect(copy.hash).toBe(hash)
    expect(plan.hash).toBe(hash)
  })
})
