// Bundles each entry into one file (plus shared and lazily loaded chunks): a process that starts
// a compiler then reads a few modules instead of about a hundred. Types come from tsc.
// @plan/json is bundled too (its types stay a dependency): the hashes and the JSON Schema reader
// are on every cold start, and another package to resolve and read costs one measurably. It
// bundles @plan/json's SHA-256 and HMAC of @noble/hashes with it, so their MIT license goes beside.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'rolldown'
// @plan/shell's build script, shared: it rewrites the minified output of either package alike.
import { quoteTemplateStringsPlugin } from '../shell/scripts/quote-template-strings.mjs'

const require = createRequire(import.meta.url)
const JSON_DIR = dirname(require.resolve('@plan/json/package.json'))

/** Emits the license of the @noble/hashes code bundled with @plan/json as dist/LICENSE.noble-hashes. */
const nobleLicense = {
  name: 'noble-license',
  generateBundle() {
    this.emitFile({
      type: 'asset',
      fileName: 'LICENSE.noble-hashes',
      source: readFileSync(join(JSON_DIR, 'dist', 'LICENSE.noble-hashes'), 'utf8'),
    })
  },
}

const MAIN = fileURLToPath(new URL('src/index.ts', import.meta.url))

/** The modules the main entry loads statically, found once from the module graph. */
let mainModules
function isInMain(id, context) {
  if (mainModules === undefined) {
    mainModules = new Set()
    const pending = [MAIN]
    while (pending.length > 0) {
      const module = pending.pop()
      if (mainModules.has(module)) continue
      mainModules.add(module)
      pending.push(...(context.getModuleInfo(module)?.importedIds ?? []))
    }
  }
  return mainModules.has(id)
}

export default defineConfig({
  input: {
    index: 'src/index.ts',
    adapter: 'src/adapter.ts',
    internal: 'src/internal.ts',
    node: 'src/node.ts',
    schemas: 'src/schemas.ts',
    test: 'src/test.ts',
  },
  platform: 'neutral',
  // Plain strings printed as "…" once minified: V8 scans them faster than template literals.
  plugins: [nobleLicense, quoteTemplateStringsPlugin()],
  external: [
    /^node:/,
    /^@plan\/shell(\/|$)/,
    /^zod(\/|$)/,
    /^re2js(\/|$)/,
    /^@opentelemetry\/api(\/|$)/,
  ],
  output: {
    dir: 'dist',
    format: 'esm',
    sourcemap: true,
    // Local names shortened and whitespace and comments dropped: V8 parses every byte of a module
    // a process imports, and that parse is most of a cold start's cost. No other rewrite, and
    // functions and classes keep their `name`; the source map leads back to src/.
    minify: { compress: false, mangle: { keepNames: true } },
    chunkFileNames: '[name]-[hash].js',
    // What the main entry loads is one chunk that the other entries share, so a cold start reads
    // two files rather than one per module shared with a subpath.
    codeSplitting: {
      groups: [{ name: (id, context) => (isInMain(id, context) ? 'main' : null) }],
    },
  },
})
