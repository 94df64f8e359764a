import { resolve } from 'node:path'
import {
  createPlanCompiler,
  formatIssues,
  type PlanCompiler,
  PlanError,
  type PolicyInput,
  type ResolvedPolicy,
} from '@plan/core'
import { loadPolicy } from '@plan/core/node'
import { type CliIo, UsageError } from './io.js'
import { type CliWarning, missingRoots } from './missing-roots.js'
import { readJsonInput } from './read-input.js'

/** A policy file, loaded, with what is suspicious about it. */
export interface LoadedPolicy {
  readonly policy: ResolvedPolicy
  readonly warnings: readonly CliWarning[]
}

/** A core error becomes a UsageError listing every issue; anything else is thrown as is. */
function usageErrorOf(error: unknown): unknown {
  return PlanError.isInstance(error)
    ? new UsageError(`${error.message.split('\n')[0]}\n${formatIssues(error.issues)}`, error.issues)
    : error
}

/** Loads a policy file; a missing or invalid policy becomes a UsageError listing every issue. */
export async function loadPolicyFile(
  policyFile: string | undefined,
  io: CliIo,
): Promise<LoadedPolicy> {
  if (policyFile === undefined)
    throw new UsageError(
      'missing --policy <policy.json> (run `plan init` to write a starter policy)',
    )
  try {
    const policy = await loadPolicy(resolve(io.cwd, policyFile))
    return { policy, warnings: await missingRoots(policy) }
  } catch (error) {
    throw usageErrorOf(error)
  }
}

/**
 * Loads the policy file and builds a compiler for it; a policy whose examples it decides
 * otherwise is a UsageError naming them.
 */
export async function loadCompiler(
  policyFile: string | undefined,
  io: CliIo,
): Promise<LoadedPolicy & { readonly compiler: PlanCompiler }> {
  const loaded = await loadPolicyFile(policyFile, io)
  let compiler: PlanCompiler
  try {
    compiler = await createPlanCompiler(loaded.policy)
  } catch (error) {
    throw usageErrorOf(error)
  }
  // Programs the command rules do not model: only the OS sandbox guards their flags.
  const unmodelled: CliWarning[] = compiler.warnings.map((issue) => ({
    code: 'command_unmodelled_program',
    message: issue.message,
    path: issue.path,
  }))
  return { ...loaded, warnings: [...loaded.warnings, ...unmodelled], compiler }
}

/**
 * Reads a policy file and builds a compiler whose relative roots resolve against `baseDir`
 * instead of the file's own folder, so that a copy of a policy kept elsewhere reads as if it were
 * in place. An unusable policy becomes a UsageError listing every issue.
 */
export async function loadCompilerAt(
  policyFile: string,
  baseDir: string,
  io: CliIo,
): Promise<PlanCompiler> {
  const data = await readJsonInput(policyFile, io, 'policy')
  try {
    return await createPlanCompiler(data as PolicyInput, { baseDir })
  } catch (error) {
    throw usageErrorOf(error)
  }
}
