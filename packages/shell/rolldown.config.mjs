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
    // Local names shortened and whitespace and comments dropped: V8 parses every byte of a module
    // a process imports, and that parse is most of a cold start's cost. No other rewrite, and
    // functions and classes keep their `name`; the source map leads back to src/.
    minify: { compress: false, mangle: { keepNames: true } },
    chunkFileNames: '[name]-[hash].js',
  },
})
