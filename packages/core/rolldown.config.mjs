// Bundles each entry into one file (plus shared and lazily loaded chunks): a process that starts
// a compiler then reads a few modules instead of about a hundred. Types come from tsc.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'rolldown'

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
  external: [
    /^node:/,
    /^@plan\/json(\/|$)/,
    /^@plan\/shell(\/|$)/,
    /^zod(\/|$)/,
    /^re2js(\/|$)/,
    /^@opentelemetry\/api(\/|$)/,
  ],
  output: {
    dir: 'dist',
    format: 'esm',
    sourcemap: true,
    chunkFileNames: '[name]-[hash].js',
    // What the main entry loads is one chunk that the other entries share, so a cold start reads
    // two files rather than one per module shared with a subpath.
    codeSplitting: {
      groups: [{ name: (id, context) => (isInMain(id, context) ? 'main' : null) }],
    },
  },
})
