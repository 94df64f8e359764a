import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * What every package's tests share. Timeouts are generous because CI machines are small and
 * busy: a test fails on what it asserts, never on how fast the machine is. Every run gets its own
 * temporary folder, removed at the end even when tests fail or time out.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 60_000,
    globalSetup: [fileURLToPath(new URL('./vitest.temp-dir.ts', import.meta.url))],
  },
})
