import { readFile, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { PlanError } from '@plan/core'
import { policySchema } from '@plan/core/schemas'
import { pinChanges, pinReportText } from '../init/pin-changes.js'
import { serverNames } from '../tools/server-names.js'
import { pinnedDefinition } from '../tools/tool-definition.js'
import type { PinCommand } from './parse-cli-args.js'
import { EXIT_FAILED, EXIT_OK, type PlanMcpIo } from './plan-mcp-io.js'
import { definitionsFileOf, readReviewed, writeReviewed } from './reviewed-definitions.js'
import { listServerTools } from './run-init.js'

type RawPolicy = { tools: Record<string, Record<string, unknown>> } & Record<string, unknown>

/** The policy file as written (not resolved), so that only its pins change; `PlanError` if unusable. */
async function readRawPolicy(file: string): Promise<RawPolicy> {
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    throw new PlanError(`Cannot read the policy ${file}: ${(error as Error).message}`, {
      code: 'invalid_policy',
    })
  }
  const parsed = policySchema.safeParse(raw)
  if (!parsed.success)
    throw new PlanError(`The policy ${file} is not valid: ${parsed.error.issues[0]?.message}`, {
      code: 'invalid_policy',
    })
  return raw as RawPolicy
}

/**
 * `plan-mcp pin`: lists the server's tools and prints, for each policy entry whose pin differs
 * from the tool as now listed, the old and new pin and the diff from the definition last
 * reviewed. Without `--write` it changes nothing and exits 1 when a pin differs (a check for
 * CI); with `--write` — after a human read the diff — it records the new pins in the policy
 * and the definitions beside it (`<policy>.tools.json`).
 */
export async function runPin(command: PinCommand, io: PlanMcpIo): Promise<number> {
  const policyFile = resolve(io.cwd, command.policy)
  const policy = await readRawPolicy(policyFile)
  const reviewedFile = definitionsFileOf(policyFile)
  const reviewed = await readReviewed(reviewedFile)
  const tools = await listServerTools(command.server, io)
  const names = serverNames(command.serverName)
  const report = pinChanges(policy.tools, tools, names, reviewed)
  io.stdout.write(`${pinReportText(report)}\n`)
  if (report.changes.length === 0) return EXIT_OK
  if (!command.write) {
    io.stderr.write(
      `plan-mcp: ${report.changes.length} pin(s) differ from the server's tools; review the diff, then run again with --write to record them.\n`,
    )
    return EXIT_FAILED
  }
  for (const change of report.changes) {
    const entry = policy.tools[change.tool]
    if (entry !== undefined) entry.pin = change.definitionHash
  }
  await writeFile(policyFile, `${JSON.stringify(policy, null, 2)}\n`)
  const definitions: Record<string, Record<string, unknown>> = { ...reviewed?.tools }
  for (const tool of tools) {
    const name = names.qualify(tool.name)
    if (Object.hasOwn(policy.tools, name)) definitions[name] = pinnedDefinition(tool)
  }
  await writeReviewed(reviewedFile, definitions)
  io.stderr.write(
    `plan-mcp: recorded ${report.changes.length} pin(s) in ${policyFile} and the definitions in ${reviewedFile}.\n`,
  )
  return EXIT_OK
}
