/** The SQL of the store, for tables named with `prefix` (checked by the caller). */
export function storeSql(prefix: string) {
  const runs = `${prefix}guard_runs`
  const budgets = `${prefix}shared_budgets`
  return {
    // Several processes may set up at once: CREATE TABLE IF NOT EXISTS alone can race.
    lock: `SELECT pg_advisory_xact_lock(hashtext('${runs}'))`,
    createRuns: `CREATE TABLE IF NOT EXISTS ${runs} (
      run_id text PRIMARY KEY,
      revision bigint NOT NULL,
      state text NOT NULL,
      writer text,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    // Tables made by an earlier version have no writer.
    addWriter: `ALTER TABLE ${runs} ADD COLUMN IF NOT EXISTS writer text`,
    createBudgets: `CREATE TABLE IF NOT EXISTS ${budgets} (
      budget text NOT NULL,
      key text NOT NULL,
      window_start bigint NOT NULL,
      used integer NOT NULL,
      PRIMARY KEY (budget, key, window_start)
    )`,
    load: `SELECT revision, state FROM ${runs} WHERE run_id = $1`,
    // Compare-and-set, as runWriteDecision of @plan/core: a writer's own newer state, or any
    // writer's state on the revision it loaded; without a writer, never an older state.
    save: `INSERT INTO ${runs} AS r (run_id, revision, state, writer) VALUES ($1, $2, $3, $4)
      ON CONFLICT (run_id) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state,
        writer = EXCLUDED.writer, updated_at = now()
      WHERE CASE
        WHEN EXCLUDED.writer IS NULL THEN r.revision <= EXCLUDED.revision
        WHEN r.writer IS NOT DISTINCT FROM EXCLUDED.writer THEN r.revision < EXCLUDED.revision
        ELSE r.revision = $5::bigint
      END
      RETURNING revision`,
    writerOf: `SELECT writer FROM ${runs} WHERE run_id = $1`,
    // One statement: the row lock of ON CONFLICT makes concurrent reservations take turns,
    // and the WHERE is evaluated on the latest count.
    reserve: `INSERT INTO ${budgets} AS b (budget, key, window_start, used) VALUES ($1, $2, $3, 1)
      ON CONFLICT (budget, key, window_start) DO UPDATE SET used = b.used + 1
      WHERE b.used < $4
      RETURNING used`,
    used: `SELECT used FROM ${budgets} WHERE budget = $1 AND key = $2 AND window_start = $3`,
    // A call that provably never started: its count comes back, never below zero.
    release: `UPDATE ${budgets} SET used = used - 1
      WHERE budget = $1 AND key = $2 AND window_start = $3 AND used > 0`,
    // Windows that ended more than a window before the current one began ($3 is that bound).
    forgetOld: `DELETE FROM ${budgets} WHERE budget = $1 AND key = $2 AND window_start < $3`,
  }
}
