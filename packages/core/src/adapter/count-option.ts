import { PlanError } from '@plan/shell/common'

/**
 * An option that counts something (sessions, runs): `fallback` when left out, the value when it
 * is a whole number of at least 1, else a `PlanError` (`invalid_configuration`) naming it.
 */
export function countOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value
  throw new PlanError(
    `${name} must be a whole number of at least 1, not ${String(value)}; leave it out for ${fallback}.`,
    { code: 'invalid_configuration' },
  )
}
