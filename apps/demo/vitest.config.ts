import { defineConfig, mergeConfig } from 'vitest/config'
import shared from '../../vitest.shared.ts'

export default mergeConfig(
  shared,
  defineConfig({
    // fixture/ is the sample project the agents work on; its own tests are not ours.
    test: { include: ['src/**/*.test.ts'] },
  }),
)
