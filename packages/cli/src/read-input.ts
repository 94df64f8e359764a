import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { type CliIo, UsageError } from './io.js'
import { type PlanFromInput, planFromInput } from './transcript/plan-from-input.js'

/** Largest plan file read, in bytes. */
const MAX_INPUT_BYTES = 256 * 1024 * 1024

/** Reads and parses a JSON file, or standard input for `-`; bad input becomes a UsageError. */
export async function readJsonInput(file: string, io: CliIo, what: string): Promise<unknown> {
  let text: string
  try {
    text = file === '-' ? await io.readStdin() : await readFile(resolve(io.cwd, file), 'utf8')
  } catch (error) {
    throw new UsageError(
      `cannot read the ${what} ${file === '-' ? 'from standard input' : file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  if (text.length > MAX_INPUT_BYTES)
    throw new UsageError(`the ${what} is larger than ${MAX_INPUT_BYTES} bytes`)
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(
      `the ${what} ${file === '-' ? '(standard input)' : file} is not valid JSON: ${(error as Error).message}`,
    )
  }
}

/** Reads the plan argument: a plan, or a LangChain or AI SDK transcript turned into one. */
export async function readPlanInput(file: string, io: CliIo): Promise<PlanFromInput> {
  return planFromInput(await readJsonInput(file, io, 'plan'))
}
