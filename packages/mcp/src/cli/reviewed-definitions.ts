import { readFile, writeFile } from 'node:fs/promises'
import { PlanError } from '@plan/core'
import type { ReviewedDefinitions } from '../init/pin-changes.js'

/** Where the definitions reviewed for a policy are kept: beside it, `<name>.tools.json`. */
export function definitionsFileOf(policyFile: string): string {
  return policyFile.endsWith('.json')
    ? `${policyFile.slice(0, -'.json'.length)}.tools.json`
    : `${policyFile}.tools.json`
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The reviewed definitions in `file`; undefined when there is none; `PlanError` when unreadable. */
export async function readReviewed(file: string): Promise<ReviewedDefinitions | undefined> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new PlanError(`Cannot read ${file}: ${(error as Error).message}`, {
      code: 'invalid_configuration',
    })
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    parsed = error
  }
  const tools = isRecord(parsed) && parsed.version === 1 ? parsed.tools : undefined
  if (!isRecord(tools) || !Object.values(tools).every(isRecord))
    throw new PlanError(
      `${file} is not a file of reviewed tool definitions ({ "version": 1, "tools": { … } }); remove it to start anew.`,
      { code: 'invalid_configuration' },
    )
  return { version: 1, tools: tools as ReviewedDefinitions['tools'] }
}

/** Writes the reviewed definitions, sorted by tool name, for a stable diff in version control. */
export async function writeReviewed(
  file: string,
  tools: Readonly<Record<string, Record<string, unknown>>>,
): Promise<void> {
  const sorted = Object.fromEntries(
    Object.keys(tools)
      .sort()
      .map((name) => [name, tools[name]]),
  )
  await writeFile(file, `${JSON.stringify({ version: 1, tools: sorted }, null, 2)}\n`)
}
