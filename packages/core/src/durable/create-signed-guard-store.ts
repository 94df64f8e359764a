import { createIssue, isRecord, itemAt, PlanError } from '@plan/shell/common'
import {
  isStateSignature,
  signGuardState,
  verifyGuardState,
} from '../sign/guard-state-signature.js'
import { MIN_SECRET_BYTES, secretBytes } from '../sign/plan-signature-input.js'
import { errorMessage } from '../util/error-message.js'
import { runIssue } from '../util/run-issue.js'
import type { GuardStore, SavedRunState } from './guard-store.js'

/** Options of {@link createSignedGuardStore}. */
export interface SignedGuardStoreOptions {
  /**
   * HMAC keys, newest first, each a string or bytes of at least 32 bytes. States are signed
   * with the first and loaded when any of them signed them, so a key can be rotated: put the
   * new key first and drop the old one once every run that may resume has saved since.
   */
  readonly keys: readonly (string | Uint8Array)[]
}

/** How a signed store keeps a run's state in the store it wraps. */
interface SignedState {
  /** `v1.` and the hex HMAC-SHA-256 of the run id, the revision and the state. */
  readonly signature: string
  readonly state: unknown
}

function readKeys(options: SignedGuardStoreOptions): Uint8Array[] {
  const given: unknown = isRecord(options) ? options.keys : undefined
  const keys = Array.isArray(given) ? given.map(secretBytes) : []
  if (keys.length > 0 && keys.every((key) => key !== undefined)) return keys
  const message = `createSignedGuardStore needs \`keys\`: a non-empty list of strings or bytes of at least ${MIN_SECRET_BYTES} bytes each.`
  throw new PlanError(message, {
    issues: [
      createIssue(
        'invalid_configuration',
        message,
        ['keys'],
        'Use random keys of 32 bytes or more, e.g. randomBytes(32), kept apart from the store.',
      ),
    ],
  })
}

function refused(runId: string, reason: string, hint: string): PlanError {
  const message = `The saved guard state of run ${JSON.stringify(runId)} ${reason}; it is not resumed.`
  return new PlanError(message, { issues: [runIssue('signature_invalid', message, hint)] })
}

function readSignedState(runId: string, value: unknown): SignedState {
  if (
    isRecord(value) &&
    Object.keys(value).length === 2 &&
    Object.hasOwn(value, 'state') &&
    isStateSignature(value.signature)
  )
    return { signature: value.signature, state: value.state }
  throw refused(
    runId,
    'carries no signature, or not one in the form a signed store writes',
    'Only a signed store with the same keys writes states it loads; find out what wrote this one.',
  )
}

function verified(
  keys: readonly Uint8Array[],
  runId: string,
  saved: SavedRunState,
  signed: SignedState,
): boolean {
  try {
    return verifyGuardState(keys, runId, saved.revision, signed.state, signed.signature)
  } catch {
    // A state that is not JSON was not signed by a signed store.
    return false
  }
}

function signedState(key: Uint8Array, runId: string, saved: SavedRunState): SignedState {
  try {
    return {
      signature: signGuardState(key, runId, saved.revision, saved.state),
      state: saved.state,
    }
  } catch (error) {
    const message = `The guard state of run ${JSON.stringify(runId)} cannot be signed: it is not JSON (${errorMessage(error)}).`
    throw new PlanError(message, { code: 'state_corrupt', cause: error })
  }
}

/**
 * Wraps a {@link GuardStore} so the run states it saves are signed (HMAC-SHA-256 of the run id,
 * revision and state, with the first of `keys`) and a state it loads is checked first (with any of
 * `keys`). A state that is unsigned, malformed, edited, saved under another run id or revision, or
 * signed with another key makes `load` throw a `PlanError` with `signature_invalid`, so adapters
 * refuse to resume it (fail closed). Shared budget counts (`reserve`) pass through unsigned.
 *
 * It does not stop a rollback: whoever can write the store can put back an older, validly signed
 * state of the same run (or delete the run's row, so the run starts afresh).
 *
 * @example
 * ```ts
 * const postgres = createPostgresGuardStore({ connectionString: process.env.DATABASE_URL })
 * const store = createSignedGuardStore(postgres, { keys: [process.env.PLAN_STATE_KEY ?? ''] })
 * const tools = guardTools(myTools, guard, { store, runId: 'run-1' })
 * ```
 */
export function createSignedGuardStore(
  store: GuardStore,
  options: SignedGuardStoreOptions,
): GuardStore {
  const keys = readKeys(options)
  const signingKey = itemAt(keys, 0)
  return {
    async load(runId) {
      const saved = await store.load(runId)
      if (saved === undefined) return undefined
      const signed = readSignedState(runId, saved.state)
      if (!verified(keys, runId, saved, signed)) {
        throw refused(
          runId,
          'does not match its signature: it was edited, moved from another run or revision, or signed with a key this store does not hold',
          'Treat the store as tampered with; if a key was rotated, list the old key after the new one.',
        )
      }
      return { revision: saved.revision, state: signed.state }
    },
    async save(runId, saved) {
      const signed = signedState(signingKey, runId, saved)
      await store.save(runId, { ...saved, state: signed })
    },
    reserve: (reservations) => store.reserve(reservations),
    ...(store.release === undefined
      ? {}
      : { release: (reservations) => store.release?.(reservations) ?? Promise.resolve() }),
  }
}
