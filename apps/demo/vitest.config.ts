import { defineConfig } from 'vitest/config'

export default defineConfig({
  // fixture/ is the sample project the agents work on; its own tests are not ours.
  // Scenarios run real programs in the OS sandbox: generous limits, never timing assertions.
  test: { include: ['src/**/*.test.ts'], testTimeout: 60_000 },
})
