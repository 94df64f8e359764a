// Bundles each entry into one file (plus shared and lazily loaded chunks): a process that starts
// a compiler then reads a few modules instead of about a hundred. Types come from tsc.
import { defineConfig } from 'rolldown'

export default defineConfig({
  input: {
    index: 'src/index.ts',
    audit: 'src/audit.ts',
    internal: 'src/internal.ts',
    node: 'src/node.ts',
    render: 'src/render.ts',
    schemas: 'src/schemas.ts',
  },
  platform: 'neutral',
  external: [/^node:/, /^zod(\/|$)/, /^re2js(\/|$)/],
  // Every output file sits in dist/, so the vendored WebAssembly is one folder up (from
  // src/command/, two).
  transform: { define: { __PLAN_VENDOR_DIR__: JSON.stringify('../vendor/') } },
  output: { dir: 'dist', format: 'esm', sourcemap: true, chunkFileNames: '[name]-[hash].js' },
})
