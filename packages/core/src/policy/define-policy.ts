import type { PolicyInput } from '../schema/policy-schema.js'

/**
 * Returns the policy it is given, typed: an object literal type-checks as a policy (`version: 1`
 * stays the literal `1`, `type: 'path'` stays `'path'`) without `as const` or `satisfies`, and a
 * misspelt key or wrong value is reported where it is written, like `defineConfig` in Vite.
 *
 * @example
 * ```ts
 * import { createPlanCompiler, definePolicy } from '@plan/core'
 *
 * export const policy = definePolicy({
 *   version: 1,
 *   workspace: { roots: ['/srv/repo'] },
 *   tools: { view_file: { args: { file: { type: 'path', access: 'read' } } } },
 * })
 * const compiler = await createPlanCompiler(policy)
 * ```
 */
export function definePolicy(policy: PolicyInput): PolicyInput {
  return policy
}
