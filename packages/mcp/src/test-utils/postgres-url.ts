/**
 * The URL of the PostgreSQL server the tests run against (`PLAN_TEST_PG_URL`, set by
 * `.ci/run`). Under `CI=true` a missing URL is an error, so these tests never skip in CI;
 * locally they skip, and say why.
 */
export function postgresTestUrl(): string | undefined {
  const url = process.env.PLAN_TEST_PG_URL
  if (url !== undefined && url !== '') return url
  if (process.env.CI === 'true') {
    throw new Error('PLAN_TEST_PG_URL is not set; .ci/run starts a PostgreSQL server and sets it.')
  }
  console.warn('PLAN_TEST_PG_URL is not set: skipping the PostgreSQL tests (see .ci/postgres.sh).')
  return undefined
}
