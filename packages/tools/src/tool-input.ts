import type { JsonObject, PathAccess, PlanCompiler, PlanIssue } from '@plan/core'
import { PlanError } from '@plan/core'
import { checkPathOnDisk } from '@plan/core/node'

/** Throws a `PlanError` for a refused tool input; reference tools never run on one. */
export function refuse(
  tool: string,
  issue: Omit<PlanIssue, 'path'> & { path?: PlanIssue['path'] },
): never {
  const full: PlanIssue = { ...issue, path: issue.path ?? [] }
  throw new PlanError(`${tool}: ${full.message}`, { issues: [full] })
}

/** Reads a string argument, or refuses the call. */
export function stringArgument(
  tool: string,
  args: JsonObject,
  name: string,
  fallback?: string,
): string {
  const value = Object.hasOwn(args, name) ? args[name] : fallback
  if (typeof value !== 'string') {
    refuse(tool, {
      code: 'invalid_arguments',
      message: `Argument "${name}" must be a string.`,
      path: [name],
    })
  }
  return value
}

/**
 * Checks a path argument on disk with the compiler's workspace scope and returns its real
 * path, or refuses the call. Tools open the returned path, never the argument.
 */
export async function realPathArgument(
  compiler: PlanCompiler,
  tool: string,
  value: string,
  name: string,
  access: PathAccess,
): Promise<string> {
  const result = await checkPathOnDisk(value, compiler.policy.scope, access)
  if (!result.allowed)
    refuse(tool, {
      code: result.issue.code,
      message: result.issue.message,
      hint: result.issue.hint,
      path: [name],
    })
  return result.resolved
}
