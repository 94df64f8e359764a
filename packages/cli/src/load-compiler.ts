import { resolve } from 'node:path'
import {
  createPlanCompiler,
  formatIssues,
  loadPolicy,
  type PlanCompiler,
  PlanError,
} from '@plan/core'
import { type CliIo, UsageError } from './io.js'

/** Loads the policy file and builds a compiler; an invalid policy becomes a UsageError. */
export async function loadCompiler(
  policyFile: string | undefined,
  io: CliIo,
): Promise<PlanCompiler> {
  if (policyFile === undefined)
    throw new UsageError(
      'missing --policy <policy.json> (run `plan init` to write a starter policy)',
    )
  try {
    return await createPlanCompiler(await loadPolicy(resolve(io.cwd, policyFile)))
  } catch (error) {
    if (PlanError.isInstance(error))
      throw new UsageError(`${error.message.split('\n')[0]}\n${formatIssues(error.issues)}`)
    throw error
  }
}
