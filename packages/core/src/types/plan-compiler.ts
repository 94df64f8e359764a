import type { CommandCheckResult, PathAccess, PathCheckResult, PlanIssue } from '@plan/shell/common'
import type { z } from 'zod'
import type { CompiledPlan } from './compiled-plan.js'
import type { PlanObject } from './plan-object.js'
import type { ResolvedPolicy } from './resolved-policy.js'

/** The result of `validate`: the compiled plan, or every issue found. */
export type PlanValidationResult =
  | { readonly success: true; readonly plan: CompiledPlan; readonly issues: readonly [] }
  | { readonly success: false; readonly issues: readonly PlanIssue[] }

/** A compiler bound to one policy; its parsers are loaded once. */
export interface PlanCompiler {
  /** The validated policy this compiler enforces. */
  readonly policy: ResolvedPolicy
  /** Validates a plan; never throws for bad input. */
  validate(plan: unknown): PlanValidationResult
  /**
   * Validates a plan's JSON text: the same result, issues and hash as
   * `validate(JSON.parse(text))`, text that is not JSON an `invalid_plan` issue. Faster, as the
   * compiler owns what it parsed: argument objects are frozen into the plan instead of copied.
   *
   * @example
   * ```ts
   * const result = compiler.validateText(modelAnswer) // e.g. '{"steps":[…]}'
   * if (!result.success) console.error(result.issues)
   * ```
   */
  validateText(text: string): PlanValidationResult
  /** Compiles a plan, or throws `PlanCompilationError` carrying every issue. */
  compile(plan: unknown): CompiledPlan
  /**
   * The plan schema narrowed to this policy's tools and argument types, for planner models with
   * structured output (see `planSchemaForPolicy`); async: zod is loaded only when asked for.
   */
  planSchema(): Promise<z.ZodType<PlanObject>>
  /**
   * True when this compiler itself approved this exact plan object (plans are deep-frozen, so
   * it cannot have changed since). A copy, e.g. one read back from JSON, is not recognised, nor
   * is a guard's per-turn batch (it lives for one turn; recording every one costs too much).
   */
  approves(plan: unknown): boolean
  /** Checks one path argument lexically, with the same rules as inside a plan. */
  checkPath(value: unknown, access?: PathAccess): PathCheckResult
  /** Checks one path argument against the file system: symlinks resolved, nearest existing ancestor for new files. */
  checkPathOnDisk(value: unknown, access?: PathAccess): Promise<PathCheckResult>
  /** Checks one shell command with the policy's command rules. */
  checkCommand(command: unknown): CommandCheckResult
  /**
   * Problems of the policy that do not stop it from loading, e.g. an allowed program the
   * command checker has no built-in model of (`command_unmodelled_program`), and one per `deny`
   * path the workspace repository tracks or has in its history (`policy_deny_path_tracked`).
   */
  readonly warnings: readonly PlanIssue[]
  /**
   * Checks the arguments of one live call against the tool's declaration (unknown tool,
   * undeclared, missing and mistyped arguments, paths, commands). Issue paths are relative
   * to the arguments object. References are not allowed here: pass resolved values.
   */
  checkArguments(tool: string, args: unknown): PlanIssue[]
}
