// Bundles each entry into one file (plus shared and lazily loaded chunks). Types come from tsc.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'rolldown'
import { quoteTemplateStringsPlugin } from './scripts/quote-template-strings.mjs'

const STATIC_ENTRIES = ['src/index.ts', 'src/common.ts'].map((entry) =>
  fileURLToPath(new URL(entry, import.meta.url)),
)

/** The modules that `index` and `common` load statically, found once from the module graph. */
let staticModules
function isStatic(id, context) {
  if (staticModules === undefined) {
    staticModules = new Set()
    const pending = [...STATIC_ENTRIES]
    while (pending.length > 0) {
      const module = pending.pop()
      if (staticModules.has(module)) continue
      staticModules.add(module)
      pending.push(...(context.getModuleInfo(module)?.importedIds ?? []))
    }
  }
  return staticModules.has(id)
}

export default defineConfig({
  input: {
    index: 'src/index.ts',
    common: 'src/common.ts',
    schema: 'src/schema.ts',
  },
  platform: 'neutral',
  // Plain strings printed as "…" once minified: V8 scans them faster than template literals.
  plugins: [quoteTemplateStringsPlugin()],
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
    // What `index` and `common` load is one chunk they share (both are loaded by `@plan/core`), so
    // a cold start reads three files of this package rather than five.
    codeSplitting: {
      groups: [
        {
          name: (id, context) =>
            isStatic(id, context) && !STATIC_ENTRIES.includes(id) ? 'main' : null,
        },
      ],
    },
  },
})
