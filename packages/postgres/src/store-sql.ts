/** Table names of a store whose tables start with `prefix`. */
function tableNames(prefix: string) {
  return {
    runs: `${prefix}guard_runs`,
    budgets: `${prefix}shared_budgets`,
    changes: `${prefix}guard_run_changes`,
    parts: `${prefix}guard_run_parts`,
  }
}

/** The statements that set the tables up, in order. */
function setupSql(prefix: string) {
  const { runs, budgets, changes, parts } = tableNames(prefix)
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
    // Tables made by an earlier version have no writer, nor the revision of the full state.
    addWriter: `ALTER TABLE ${runs} ADD COLUMN IF NOT EXISTS writer text`,
    addBase: `ALTER TABLE ${runs} ADD COLUMN IF NOT EXISTS base_revision bigint`,
    // A full state too large for one statement: its parts (NULL, in rows of an earlier version
    // and of small states, means the state is the row's own `state`).
    addParts: `ALTER TABLE ${runs} ADD COLUMN IF NOT EXISTS parts integer`,
    addPartsId: `ALTER TABLE ${runs} ADD COLUMN IF NOT EXISTS parts_id text`,
    // The parts of full states, by the id of the save that wrote them: a save that loses the
    // compare-and-set, or dies, rolls its parts back with it.
    createParts: `CREATE TABLE IF NOT EXISTS ${parts} (
      run_id text NOT NULL,
      parts_id text NOT NULL,
      part integer NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (run_id, parts_id, part)
    )`,
    // What each save changed since the full state in the run's row (base_revision).
    createChanges: `CREATE TABLE IF NOT EXISTS ${changes} (
      run_id text NOT NULL,
      revision bigint NOT NULL,
      changes text NOT NULL,
      PRIMARY KEY (run_id, revision)
    )`,
    createBudgets: `CREATE TABLE IF NOT EXISTS ${budgets} (
      budget text NOT NULL,
      key text NOT NULL,
      window_start bigint NOT NULL,
      used integer NOT NULL,
      PRIMARY KEY (budget, key, window_start)
    )`,
    // For forgetOld: the windows of a budget by start, whatever their key.
    indexWindows: `CREATE INDEX IF NOT EXISTS ${budgets}_windows ON ${budgets} (budget, window_start)`,
  }
}

/** The statements that load and save a run's state. */
function runSql(prefix: string) {
  const { runs, changes } = tableNames(prefix)
  const inParts = `(r.parts IS NOT NULL AND r.state = '')`
  return {
    // A state in the row: it and its changes in one statement, so from one snapshot; a state in
    // parts gets no changes here and is read with loadRow. A state is in parts when the row
    // names parts and holds no state of its own (a version before parts that saved over such a
    // row wrote its state there and left the parts named).
    load: `SELECT r.revision, r.state, ${inParts} AS in_parts, CASE WHEN NOT ${inParts} THEN (
        SELECT coalesce(json_agg(c.changes ORDER BY c.revision), '[]'::json) FROM ${changes} c
        WHERE c.run_id = r.run_id AND c.revision > coalesce(r.base_revision, r.revision)
          AND c.revision <= r.revision
      ) END::text AS changes
      FROM ${runs} r WHERE r.run_id = $1`,
    // A state in parts, in a transaction of one snapshot (READ_ONE_SNAPSHOT): the row, then its
    // parts and changes a bounded number at a time, so no statement grows with the state.
    loadRow: `SELECT r.revision, r.state, coalesce(r.base_revision, r.revision) AS base,
        ${inParts} AS in_parts, r.parts, r.parts_id
      FROM ${runs} r WHERE r.run_id = $1`,
    // The next changes: of the first $4 rows, those that begin within $5 characters (so at
    // least one, and at most $5 characters and one row).
    loadChanges: `SELECT revision, changes FROM (
        SELECT revision, changes, sum(length(changes)) OVER (ORDER BY revision) AS upto FROM (
          SELECT revision, changes FROM ${changes}
          WHERE run_id = $1 AND revision > $2 AND revision <= $3 ORDER BY revision LIMIT $4
        ) page
      ) sized WHERE upto - length(changes) < $5 ORDER BY revision`,
    // Compare-and-set, as runWriteDecision of @plan/core: a writer's own newer state, or any
    // writer's state on the revision it loaded; without a writer, never an older state.
    // The state is the row's `state` ($3), or, with $6 parts, the parts written as $7.
    save: `INSERT INTO ${runs} AS r (run_id, revision, state, writer, base_revision, parts, parts_id)
      VALUES ($1, $2, $3, $4, $2, $6::integer, $7::text)
      ON CONFLICT (run_id) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state,
        writer = EXCLUDED.writer, base_revision = EXCLUDED.revision, parts = EXCLUDED.parts,
        parts_id = EXCLUDED.parts_id, updated_at = now()
      WHERE CASE
        WHEN EXCLUDED.writer IS NULL THEN r.revision <= EXCLUDED.revision
        WHEN r.writer IS NOT DISTINCT FROM EXCLUDED.writer THEN r.revision < EXCLUDED.revision
        ELSE r.revision = $5::bigint
      END
      RETURNING revision`,
    writerOf: `SELECT writer FROM ${runs} WHERE run_id = $1`,
    // At most $3 of the changes a full state of revision $2 holds, so no statement grows with them.
    dropChanges: `DELETE FROM ${changes} WHERE ctid IN (
        SELECT ctid FROM ${changes} WHERE run_id = $1 AND revision <= $2 LIMIT $3
      )`,
    // A save of what changed: only on the exact revision the changes were taken from ($4), and
    // under the writer rule of save.
    // A row of a version before base_revision: its full state is that of its revision.
    advance: `UPDATE ${runs} AS r SET revision = $2, writer = $3, updated_at = now(),
        base_revision = coalesce(r.base_revision, r.revision)
      WHERE r.run_id = $1 AND r.revision = $4 AND CASE
        WHEN $3::text IS NULL THEN true
        WHEN r.writer IS NOT DISTINCT FROM $3::text THEN true
        ELSE r.revision = $5::bigint
      END
      RETURNING revision`,
    addChanges: `INSERT INTO ${changes} (run_id, revision, changes) VALUES ($1, $2, $3)
      ON CONFLICT (run_id, revision) DO UPDATE SET changes = EXCLUDED.changes`,
  }
}

/** The statements of the parts of full states. */
function partSql(prefix: string) {
  const { runs, parts } = tableNames(prefix)
  return {
    addPart: `INSERT INTO ${parts} (run_id, parts_id, part, body) VALUES ($1, $2, $3, $4)`,
    loadPart: `SELECT body FROM ${parts} WHERE run_id = $1 AND parts_id = $2 AND part = $3`,
    // At most $2 parts of the run that its row does not name (a snapshot loading them still
    // reads them); a save in flight writes parts no other statement sees before it commits.
    dropParts: `DELETE FROM ${parts} WHERE ctid IN (
        SELECT p.ctid FROM ${parts} p WHERE p.run_id = $1 AND p.parts_id IS DISTINCT FROM (
          SELECT r.parts_id FROM ${runs} r WHERE r.run_id = $1
        ) LIMIT $2
      )`,
  }
}

/** The statements of shared budgets. */
function budgetSql(prefix: string) {
  const { budgets } = tableNames(prefix)
  return {
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
    // Windows of a budget, every key's, that ended more than a window before the current one
    // began ($2 is that bound); rows another session is deleting are skipped, not waited for.
    forgetOld: `DELETE FROM ${budgets} WHERE ctid IN (
        SELECT ctid FROM ${budgets} WHERE budget = $1 AND window_start < $2
        ORDER BY window_start LIMIT 1000 FOR UPDATE SKIP LOCKED
      )`,
  }
}

/** The SQL of the store, for tables named with `prefix` (checked by the caller). */
export function storeSql(prefix: string) {
  return { ...setupSql(prefix), ...runSql(prefix), ...partSql(prefix), ...budgetSql(prefix) }
}
