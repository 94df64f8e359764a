import { createHmac, randomBytes } from 'node:crypto'
import { canonicalJson } from '@plan/json'
import { PlanError } from '@plan/shell/common'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemoryGuardStore } from './create-memory-guard-store.js'
import { createSignedGuardStore } from './create-signed-guard-store.js'
import type { GuardStore, SavedRunState } from './guard-store.js'

const KEY = 'k'.repeat(32)
const OLD_KEY = 'o'.repeat(32)
const state = { version: 1, calls: 2, status: { a: 'done', b: 'running' } }

/** A store whose rows can be written directly, as anyone with write access to its table can. */
function tableStore(): GuardStore & { rows: Map<string, SavedRunState> } {
  const rows = new Map<string, SavedRunState>()
  return {
    rows,
    load: async (runId) => structuredClone(rows.get(runId)),
    save: async (runId, saved) => {
      rows.set(runId, structuredClone(saved))
    },
    reserve: async () => ({ reserved: true }),
  }
}

/** The signature a signed store wrote into the row of `runId`. */
function signatureIn(table: ReturnType<typeof tableStore>, runId: string): string {
  return (table.rows.get(runId)?.state as { signature?: string } | undefined)?.signature ?? ''
}

/** The code of the `PlanError` that `action` rejects with. */
async function codeOf(action: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await action()
  } catch (error) {
    return PlanError.isInstance(error) ? error.code : `not a PlanError: ${String(error)}`
  }
  return undefined
}

/** A saved row of `state`, as a signed store writes it. */
interface SignedRow {
  revision: number
  state: { signature: string; state: { calls: number; status: Record<string, string> } }
}

function edited(row: SavedRunState | undefined, edit: (row: SignedRow) => void): SavedRunState {
  const copy = structuredClone(row) as SignedRow
  edit(copy)
  return copy
}

describe('createSignedGuardStore', () => {
  it('should load what it saved, and keep it signed in the store it wraps', async () => {
    const table = tableStore()
    const store = createSignedGuardStore(table, { keys: [KEY] })
    await store.save('run-1', { revision: 3, state })
    expect(await store.load('run-1')).toEqual({ revision: 3, state })
    expect(await store.load('run-2')).toBeUndefined()
    const row = table.rows.get('run-1')
    expect(row?.revision).toBe(3)
    expect(row?.state).toEqual({ signature: expect.stringMatching(/^v1\.[0-9a-f]{64}$/), state })
  })

  it('should sign the documented text, so that a verifier in another language can check it', async () => {
    const table = tableStore()
    const key = randomBytes(32)
    await createSignedGuardStore(table, { keys: [key] }).save('run-1', {
      revision: 1,
      state: { b: [1, 'x'], a: null, 10: 'ten', 2: 'two', gone: undefined },
    })
    const text =
      '@plan/guard-state/v1\n{"revision":1,"runId":"run-1","state":{"2":"two","10":"ten","a":null,"b":[1,"x"]}}'
    const expected = `v1.${createHmac('sha256', key).update(text).digest('hex')}`
    expect(signatureIn(table, 'run-1')).toBe(expected)
  })

  it('should keep the wrapped store behaviour: an older revision never replaces a newer one', async () => {
    const store = createSignedGuardStore(createMemoryGuardStore(), { keys: [KEY] })
    await store.save('run-1', { revision: 2, state: { n: 2 } })
    await store.save('run-1', { revision: 1, state: { n: 1 } })
    expect(await store.load('run-1')).toEqual({ revision: 2, state: { n: 2 } })
  })

  it('should refuse an edited state, revision, run id or signature with signature_invalid', async () => {
    const table = tableStore()
    const store = createSignedGuardStore(table, { keys: [KEY] })
    await store.save('run-1', { revision: 3, state })
    await store.save('run-2', { revision: 3, state: { ...state, calls: 0 } })
    const original = table.rows.get('run-1')
    const tampers: ((row: SignedRow) => void)[] = [
      (row) => {
        row.state.state.calls = 0
      },
      (row) => {
        row.state.state.status.b = 'done'
      },
      (row) => {
        Object.assign(row.state.state, { extra: true })
      },
      (row) => {
        row.revision = 4
      },
      (row) => {
        row.revision = 2
      },
      (row) => {
        row.state.signature = `${row.state.signature.slice(0, -1)}${row.state.signature.endsWith('0') ? '1' : '0'}`
      },
      (row) => {
        row.state = structuredClone(table.rows.get('run-2')?.state) as SignedRow['state']
      },
    ]
    for (const tamper of tampers) {
      table.rows.set('run-1', edited(original, tamper))
      expect(await codeOf(() => store.load('run-1'))).toBe('signature_invalid')
    }
    // A whole row moved from one run to another.
    table.rows.set(
      'run-3',
      edited(original, () => undefined),
    )
    expect(await codeOf(() => store.load('run-3'))).toBe('signature_invalid')
    table.rows.set(
      'run-1',
      edited(original, () => undefined),
    )
    expect(await store.load('run-1')).toEqual({ revision: 3, state })
  })

  it('should refuse a state without a signature or with a malformed one', async () => {
    const table = tableStore()
    const store = createSignedGuardStore(table, { keys: [KEY] })
    await store.save('run-1', { revision: 1, state })
    const signature = signatureIn(table, 'run-1')
    const malformed: unknown[] = [
      state,
      null,
      'text',
      [signature, state],
      { state },
      { signature },
      { signature: signature.toUpperCase(), state },
      { signature: signature.slice(3), state },
      { signature: `${signature}0`, state },
      { signature, state, extra: 1 },
    ]
    for (const value of malformed) {
      table.rows.set('run-1', { revision: 1, state: value })
      expect(await codeOf(() => store.load('run-1'))).toBe('signature_invalid')
    }
  })

  it('should refuse a state signed with another key', async () => {
    const table = tableStore()
    await createSignedGuardStore(table, { keys: [OLD_KEY] }).save('run-1', { revision: 1, state })
    const error = await createSignedGuardStore(table, { keys: [KEY] })
      .load('run-1')
      .catch((caught: unknown) => caught)
    expect(PlanError.isInstance(error)).toBe(true)
    expect((error as PlanError).issues).toMatchObject([
      { code: 'signature_invalid', message: expect.stringContaining('"run-1"'), path: [] },
    ])
  })

  it('should load states signed with any listed key and sign new ones with the first', async () => {
    const table = tableStore()
    await createSignedGuardStore(table, { keys: [OLD_KEY] }).save('run-1', { revision: 1, state })
    const rotated = createSignedGuardStore(table, { keys: [KEY, OLD_KEY] })
    expect(await rotated.load('run-1')).toEqual({ revision: 1, state })
    await rotated.save('run-1', { revision: 2, state })
    expect(await createSignedGuardStore(table, { keys: [KEY] }).load('run-1')).toEqual({
      revision: 2,
      state,
    })
    const oldOnly = createSignedGuardStore(table, { keys: [OLD_KEY] })
    expect(await codeOf(() => oldOnly.load('run-1'))).toBe('signature_invalid')
  })

  it('should refuse keys shorter than 32 bytes, and no keys', () => {
    const codeOfCreate = (options: unknown) => {
      try {
        createSignedGuardStore(tableStore(), options as { keys: string[] })
      } catch (error) {
        return PlanError.isInstance(error) ? error.code : 'not a PlanError'
      }
      return undefined
    }
    for (const options of [
      { keys: [] },
      { keys: ['k'.repeat(31)] },
      { keys: [KEY, 'short'] },
      { keys: [new Uint8Array(31)] },
      { keys: KEY },
      { keys: [42] },
      {},
      undefined,
    ]) {
      expect(codeOfCreate(options)).toBe('invalid_configuration')
    }
    expect(codeOfCreate({ keys: [new Uint8Array(32)] })).toBeUndefined()
    expect(codeOfCreate({ keys: ['é'.repeat(16)] })).toBeUndefined()
  })

  it('should refuse to save a state that is not JSON, and save nothing', async () => {
    const table = tableStore()
    const store = createSignedGuardStore(table, { keys: [KEY] })
    expect(await codeOf(() => store.save('run-1', { revision: 1, state: { n: 10n } }))).toBe(
      'state_corrupt',
    )
    expect(table.rows.size).toBe(0)
  })

  it('should pass shared budget reservations to the store it wraps', async () => {
    const store = createSignedGuardStore(createMemoryGuardStore(), { keys: [KEY] })
    const reservation = { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: 1 }
    expect(await store.reserve([reservation])).toEqual({ reserved: true })
    expect(await store.reserve([reservation])).toEqual({ reserved: false, reservation, used: 1 })
  })

  it('should load every JSON state it saved, and refuse it under any other run id or revision', async () => {
    const json = fc.jsonValue({ maxDepth: 4 })
    await fc.assert(
      fc.asyncProperty(
        fc.string(),
        fc.string(),
        fc.nat(),
        fc.nat(),
        json,
        async (runId, otherRunId, revision, otherRevision, value) => {
          const table = tableStore()
          const store = createSignedGuardStore(table, { keys: [KEY] })
          await store.save(runId, { revision, state: value })
          const loaded = await store.load(runId)
          expect(JSON.stringify(loaded)).toBe(JSON.stringify({ revision, state: value }))
          const row = table.rows.get(runId) as SavedRunState
          if (otherRunId !== runId) {
            table.rows.set(otherRunId, row)
            expect(await codeOf(() => store.load(otherRunId))).toBe('signature_invalid')
          }
          if (otherRevision !== revision) {
            table.rows.set(runId, { ...row, revision: otherRevision })
            expect(await codeOf(() => store.load(runId))).toBe('signature_invalid')
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('should refuse a signed state replaced by any other JSON state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.jsonValue(), async (value, other) => {
        fc.pre(canonicalJson(value) !== canonicalJson(other))
        const table = tableStore()
        const store = createSignedGuardStore(table, { keys: [KEY] })
        await store.save('run', { revision: 1, state: value })
        const row = table.rows.get('run') as { revision: number; state: { signature: string } }
        table.rows.set('run', {
          revision: 1,
          state: { signature: row.state.signature, state: other },
        })
        expect(await codeOf(() => store.load('run'))).toBe('signature_invalid')
      }),
      { numRuns: 200 },
    )
  })
})
