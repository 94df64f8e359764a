import { defineConfig } from 'vitest/config'

export default defineConfig({
  // fixture/ is the sample project the agents work on; its own tests are not ours.
  test: { include: ['src/**/*.test.ts'] },
})
