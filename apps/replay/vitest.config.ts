import { defineConfig, mergeConfig } from 'vitest/config'
import shared from '../../vitest.shared.ts'

export default mergeConfig(
  shared,
  defineConfig({
    // Each test replays a whole suite of agent runs: minutes on a busy two-core machine.
    test: { include: ['src/**/*.test.ts'], testTimeout: 600_000 },
  }),
)
