import {
  type AdapterPlan,
  type AuditSink,
  type CompiledPlan,
  createPlanGuard,
  type PlanCompiler,
  type PolicySource,
} from '@plan/core'
import { isCompiledPlan, resolveCompiler } from '@plan/core/adapter'
import { resolvePolicy } from '@plan/core/schemas'

/** What every run's guard is created with besides its compiler, plan and state. */
export interface RunGuardOptions {
  readonly checkPathsOnDisk: boolean
  readonly audit?: AuditSink | undefined
  readonly labelledFiles?: Readonly<Record<string, readonly string[]>> | undefined
}

/** Takes the approval of the plan checked at setup: the guards of the runs audit their own. */
const UNAUDITED: AuditSink = { write: () => undefined }

/** The compiler every run uses and, in plan mode, the approved plan. */
export interface GuardSetup {
  readonly compiler: PlanCompiler
  readonly plan: CompiledPlan | undefined
}

function approve(
  compiler: PlanCompiler,
  plan: AdapterPlan | undefined,
  audit: AuditSink | undefined,
): GuardSetup {
  if (plan === undefined) return { compiler, plan: undefined }
  const compiled = isCompiledPlan(plan) ? plan : compiler.compile(plan)
  // Throws now if the policy does not approve the plan (a forged CompiledPlan included), or
  // needs an audit sink that was not given.
  createPlanGuard(compiled, {
    compiler,
    checkPathsOnDisk: false,
    ...(audit === undefined ? {} : { audit: UNAUDITED }),
  })
  return { compiler, plan: compiled }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function'
}

/**
 * The setup, made once. The options are checked now (`PlanError` with `invalid_configuration`
 * unless exactly one of `policy` or `compiler`) and the policy is resolved now, so an invalid
 * one fails where the agent is built; with a compiler at hand the plan is approved now too,
 * otherwise when the first run starts.
 */
export function lazyGuardSetup(
  source: PolicySource & {
    readonly plan?: AdapterPlan | undefined
    readonly audit?: AuditSink | undefined
  },
  caller: string,
): () => Promise<GuardSetup> {
  const { plan, audit } = source
  const given = source.compiler
  const policy = source.policy === undefined ? undefined : resolvePolicy(source.policy)
  const compiler = resolveCompiler({ policy, compiler: given }, caller)
  if (given !== undefined && !isPromiseLike(given)) {
    const setup = Promise.resolve(approve(given, plan, audit))
    return () => setup
  }
  // Awaited at the first run, which then throws what went wrong.
  compiler.then(undefined, () => undefined)
  let setup: Promise<GuardSetup> | undefined
  return () => {
    setup ??= compiler.then((resolved) => approve(resolved, plan, audit))
    return setup
  }
}
