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
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    createBudgets: `CREATE TABLE IF NOT EXISTS ${budgets} (
      budget text NOT NULL,
      key text NOT NULL,
      window_start bigint NOT NULL,
      used integer NOT NULL,
      PRIMARY KEY (budget, key, window_start)
    )`,
    load: `SELECT revision, state FROM ${runs} WHERE run_id = $1`,
    // Never replaces a state by an older one (a late write of a slower call).
    save: `INSERT INTO ${runs} AS r (run_id, revision, state) VALUES ($1, $2, $3)
      ON CONFLICT (run_id) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state,
        updated_at = now()
      WHERE r.revision <= EXCLUDED.revision`,
    // One statement: the row lock of ON CONFLICT makes concurrent reservations take turns,
    // and the WHERE is evaluated on the latest count.
    reserve: `INSERT INTO ${budgets} AS b (budget, key, window_start, used) VALUES ($1, $2, $3, 1)
      ON CONFLICT (budget, key, window_start) DO UPDATE SET used = b.used + 1
      WHERE b.used < $4
      RETURNING used`,
    used: `SELECT used FROM ${budgets} WHERE budget = $1 AND key = $2 AND window_start = $3`,
  }
}
