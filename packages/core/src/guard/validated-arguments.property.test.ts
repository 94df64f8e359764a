import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import type { JsonValue } from '../types/json-value.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { type ArgumentCheck, RunState } from './run-state.js'

const ROOT = '/srv/repo'

const compiler = createPlanCompiler({
  version: 1,
  workspace: { roots: [ROOT], deny: ['.env', 'secrets/**'], readOnly: ['docs/**'] },
  tools: {
    view_file: { args: { file: { type: 'path', access: 'read' } } },
    write_file: {
      args: {
        file: { type: 'path', access: 'write' },
        content: { type: 'string', maxLength: 16 },
      },
    },
    run_command: { args: { command: { type: 'command' } } },
    run_all: { args: { commands: { type: 'array', items: { type: 'command' }, maxItems: 2 } } },
    fetch_page: { args: { url: { type: 'string', format: 'url' } } },
    pick: {
      args: {
        count: { type: 'number', minimum: 0, maximum: 3 },
        flag: { type: 'boolean', required: false },
        data: { type: 'json', required: false, maxBytes: 64 },
      },
    },
  },
  commands: { allow: ['ls', 'git', 'echo'] },
  // references may then fill any argument, commands too
  trust: { defaultOutput: 'trusted' },
})

/** Values for any argument: good and bad paths, commands, URLs, numbers and shapes. */
const valueArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom('README.md', 'src/a.js', '../etc/passwd', '/etc/passwd', '.env', 'docs/a.md'),
  fc.constantFrom('~/x', 'a\u0000b', '%2e%2e/x', '/srv/repo-evil/x', 'secrets/k', ''),
  fc.constantFrom('ls -la', 'git status', 'rm -rf /', 'ls; id', 'echo $(id)', 'git -c a=b log'),
  fc.constantFrom('https://example.com/a', 'ftp://x', 'nope', 'http://127.0.0.1/'),
  fc.constantFrom('a text longer than sixteen', 'short', 0, 2, 7, -1, 1.5, true, null),
  fc.constant<JsonValue>(['ls', 'git status']),
  fc.constant<JsonValue>(['ls', 'rm -rf /', 'ls']),
  fc.constant<JsonValue>({ nested: { deeper: ['x'] } }),
)

const NAMES: Readonly<Record<string, readonly string[]>> = {
  view_file: ['file'],
  write_file: ['file', 'content'],
  run_command: ['command'],
  run_all: ['commands'],
  fetch_page: ['url'],
  pick: ['count', 'flag', 'data'],
}

/** Values each argument takes most of the time: some of them refused still. */
const USUAL: Readonly<Record<string, fc.Arbitrary<JsonValue>>> = {
  file: fc.constantFrom('README.md', 'src/a.js', 'docs/a.md', '.env', 'src/../README.md'),
  content: fc.constantFrom('short', 'a text longer than sixteen', ''),
  command: fc.constantFrom('ls -la', 'git status', 'echo hi', 'ls; id'),
  commands: fc.constantFrom<JsonValue>(['ls'], ['ls', 'git status'], ['ls', 'ls', 'ls']),
  url: fc.constantFrom('https://example.com/a', 'nope'),
  count: fc.constantFrom(0, 1, 3, 4),
  flag: fc.boolean(),
  data: fc.constantFrom<JsonValue>({ a: 1 }, ['x'], 'x'.repeat(80)),
}

/** A value for each argument name, the usual ones four times in five. */
const valuesArb = fc.record(
  Object.fromEntries(
    Object.entries(USUAL).map(([name, usual]) => [
      name,
      fc.oneof({ weight: 4, arbitrary: usual }, { weight: 1, arbitrary: valueArb }),
    ]),
  ),
)

/**
 * A step of a plan: a tool with a value for each of its arguments (at times one more, or one
 * fewer), at times a reference in place of one.
 */
const stepArb = fc
  .record({
    tool: fc.constantFrom(...Object.keys(NAMES)),
    values: valuesArb,
    change: fc.constantFrom('none', 'none', 'none', 'extra', 'fewer'),
    reference: fc.option(fc.nat(3), { nil: undefined }),
  })
  .map(({ tool, values, change, reference }) => {
    const names = [...(NAMES[tool] ?? [])]
    if (change === 'extra') names.push('other')
    if (change === 'fewer') names.pop()
    const args = Object.fromEntries(names.map((name) => [name, values[name] ?? 'other']))
    return { tool, args, reference: reference === undefined ? undefined : names[reference] }
  })

type StepShape = typeof stepArb extends fc.Arbitrary<infer T> ? T : never

function planOf(shapes: readonly StepShape[]) {
  return {
    steps: shapes.map((shape, index) => ({
      id: `s${index}`,
      tool: shape.tool,
      args:
        shape.reference === undefined || index === 0
          ? shape.args
          : { ...shape.args, [shape.reference]: { $ref: `s${index - 1}.output.value` } },
    })),
  }
}

/** What a run's ready steps accept and what their arguments were found to hold. */
function readyOf(run: RunState) {
  return [...run.ready.entries()].map(([id, entry]) => [id, entry.key, entry.argumentIssues])
}

/** Runs every step in plan order, each output a value any argument may take, after each op. */
function drive(run: RunState, outputs: readonly JsonValue[]): unknown[] {
  const seen: unknown[] = [readyOf(run)]
  for (const step of run.readySteps()) {
    const key = run.ready.get(step.id)?.key
    if (key === undefined) continue
    run.start(step.id, key)
    run.complete(step.id, { value: outputs[step.index % outputs.length] ?? null })
    seen.push(readyOf(run))
  }
  return seen
}

function checkOf(plans: PlanCompiler): ArgumentCheck {
  return (step, args) => plans.checkArguments(step.tool, args)
}

describe('RunState of validated plans', () => {
  it('should find in ready steps the argument issues a full check finds', async () => {
    const plans = await compiler
    let installed = 0
    fc.assert(
      fc.property(
        fc.array(stepArb, { minLength: 1, maxLength: 4 }),
        fc.array(valueArb, { minLength: 1, maxLength: 3 }),
        (shapes, outputs) => {
          const result = plans.validate(planOf(shapes))
          if (!result.success) return
          installed += 1
          const validated = new RunState(checkOf(plans), true)
          const checked = new RunState(checkOf(plans), false)
          for (const run of [validated, checked]) run.install(result.plan, 'plan', false, () => {})
          expect(drive(validated, outputs)).toEqual(drive(checked, outputs))
        },
      ),
      { numRuns: 2000 },
    )
    // Plans were approved and run, not only refused.
    expect(installed).toBeGreaterThan(100)
  })

  it('should check again the arguments a reference fills in', async () => {
    const plans = await compiler
    const result = plans.validate({
      steps: [
        { id: 'a', tool: 'view_file', args: { file: 'README.md' } },
        { id: 'b', tool: 'run_command', args: { command: { $ref: 'a.output.value' } } },
      ],
    })
    if (!result.success) throw new Error('the plan is refused')
    const run = new RunState(checkOf(plans), true)
    run.install(result.plan, 'plan', false, () => {})
    expect(run.ready.get('a')?.argumentIssues).toEqual([])
    run.start('a', run.ready.get('a')?.key ?? '')
    run.complete('a', { value: 'rm -rf /' })
    expect(run.ready.get('b')?.argumentIssues[0]?.code).toBe('command_not_allowed')
  })
})
