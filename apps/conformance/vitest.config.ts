import { defineConfig, mergeConfig } from 'vitest/config'
import shared from '../../vitest.shared.ts'

export default mergeConfig(
  shared,
  defineConfig({
    // Each property run drives three real agent loops: minutes on a busy two-core machine.
    test: { include: ['src/**/*.test.ts'], testTimeout: 600_000 },
  }),
)
