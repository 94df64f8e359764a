// Bundles each entry into one file (plus shared and lazily loaded chunks). Types come from tsc.
import { defineConfig } from 'rolldown'

export default defineConfig({
  input: {
    index: 'src/index.ts',
    common: 'src/common.ts',
    schema: 'src/schema.ts',
  },
  platform: 'neutral',
  external: [/^node:/, /^zod(\/|$)/],
  // Every output file sits in dist/, so the vendored WebAssembly is one folder up (from
  // src/command/, two).
  transform: { define: { __PLAN_VENDOR_DIR__: JSON.stringify('../vendor/') } },
  output: {
    dir: 'dist',
    format: 'esm',
    sourcemap: true,
    chunkFileNames: '[name]-[hash].js',
  },
})
