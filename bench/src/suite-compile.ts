import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type Row, round, type Spread, spreadFields, spreadOf } from './measure.ts'

const run = promisify(execFile)
const child = fileURLToPath(new URL('./compile-child.ts', import.meta.url))

// Steps per timed sample: a sample of 1k steps repeats the call 100 times. An arm runs alone in
// its process, so what one sample leaves for the collector is collected in its next one.
const STEPS_PER_SAMPLE = 100_000
const SAMPLES = 7
// Fresh processes per arm and size, the arms taking turns: a row's spread is over their medians.
const PROCESSES = 5

type Arm = 'parse' | 'text' | 'object' | 'steps' | 'local' | 'floor'
const ARMS: readonly Arm[] = ['parse', 'text', 'object', 'steps', 'local', 'floor']

/** The median milliseconds per call of one arm, in one fresh process. */
async function armProcess(arm: Arm, size: number): Promise<number> {
  const repeat = Math.max(1, Math.round(STEPS_PER_SAMPLE / size))
  const { stdout } = await run(
    process.execPath,
    [child, arm, String(size), String(repeat), String(SAMPLES)],
    { maxBuffer: 1 << 20 },
  )
  const times = JSON.parse(stdout) as number[]
  if (times.length !== SAMPLES)
    throw new Error(`the compile child measured ${times.length} samples`)
  return spreadOf(times).median
}

/**
 * Each arm's spread over {@link PROCESSES} fresh processes, taken in turns (every other round
 * in reverse order) so that all arms see the same machine.
 */
async function armSpreads(size: number): Promise<Record<Arm, Spread>> {
  const medians: Record<Arm, number[]> = {
    parse: [],
    text: [],
    object: [],
    steps: [],
    local: [],
    floor: [],
  }
  for (let round = 0; round < PROCESSES; round += 1) {
    for (const arm of round % 2 === 0 ? ARMS : ARMS.toReversed())
      medians[arm].push(await armProcess(arm, size))
  }
  return {
    parse: spreadOf(medians.parse),
    text: spreadOf(medians.text),
    object: spreadOf(medians.object),
    steps: spreadOf(medians.steps),
    local: spreadOf(medians.local),
    floor: spreadOf(medians.floor),
  }
}

type PerStep = { size: number; compile: number; parse: number; local: number; floor: number }

/**
 * µs per step against the smallest plan's: the compile's, the compile's beyond `JSON.parse`,
 * `JSON.parse`'s alone, the compile's of the plan with local dependencies, and the resolve
 * floor's.
 */
function flatness(perStep: PerStep, first: PerStep): string {
  const compile = round(perStep.compile / first.compile)
  const beyond = round((perStep.compile - perStep.parse) / (first.compile - first.parse))
  const parse = round(perStep.parse / first.parse)
  const local = round(perStep.local / first.local)
  const floor = round(perStep.floor / first.floor)
  return `µs/step ${compile}× that at ${first.size.toLocaleString('en')} steps (beyond the parse: ${beyond}×; JSON.parse alone: ${parse}×; the plan with every dependency on one of the 8 steps before: ${local}×; resolve floor: ${floor}×)`
}

/** The resolve floor of the compile child, in µs per step and against `JSON.parse`. */
function floorNote(floor: Spread, parse: Spread, size: number): string {
  return `resolve floor (JSON.parse + a Map of the ids + every dependency resolved, nothing checked): ${round((floor.median / size) * 1000)} µs/step, ${round(floor.median / parse.median)}×`
}

/**
 * Full validation + compile + hash of a plan's JSON text (`validateText`, which parses it)
 * against `JSON.parse` of the same text, each arm in processes of its own;
 * `validate(JSON.parse(text))`, for a plan that is already an object, is given in the note.
 */
export async function compileSuite(): Promise<Row[]> {
  const rows: Row[] = []
  let first: PerStep | undefined
  for (const size of [1_000, 10_000, 100_000]) {
    const { parse, text, object, steps, local, floor } = await armSpreads(size)
    const perStep = {
      size,
      compile: text.median / size,
      parse: parse.median / size,
      local: local.median / size,
      floor: floor.median / size,
    }
    first ??= perStep
    const stepsRead = `with plan.steps read (the step objects are made at the first read, as a guard or executor does): ${round(steps.median)} ms, ${round(steps.median / parse.median)}×`
    const localPath = `with every dependency on one of the 8 steps before: ${round(local.median)} ms`
    const objectPath = `validate(JSON.parse(text)): ${round(object.median)} ms, ${round(object.median / parse.median)}×; ${stepsRead}; ${localPath}; ${floorNote(floor, parse, size)}`
    rows.push({
      suite: 'compile',
      case: `JSON text → compiled plan (validateText: parse + validate + compile + hash), ${size.toLocaleString('en')} steps (${round(perStep.compile * 1000)} µs/step; each arm in ${PROCESSES} processes of its own, samples of ${STEPS_PER_SAMPLE.toLocaleString('en')} steps)`,
      ...spreadFields(text, parse),
      unit: 'ms',
      baseline: 'JSON.parse of the same text',
      target: '≤ 3× JSON.parse (incl. the parse), flat µs/step',
      note: perStep === first ? objectPath : `${flatness(perStep, first)}; ${objectPath}`,
    })
  }
  return rows
}
