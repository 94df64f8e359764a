// Bundles the entry into one file: a cold start reads one module. Types come from tsc.
// @noble/hashes is bundled too (only SHA-256 and HMAC are kept), with its MIT license beside the
// bundle.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { defineConfig } from 'rolldown'

const require = createRequire(import.meta.url)
const NOBLE_LICENSE = join(dirname(require.resolve('@noble/hashes/sha2.js')), 'LICENSE')

/** Emits the license of the bundled @noble/hashes as dist/LICENSE.noble-hashes. */
const nobleLicense = {
  name: 'noble-license',
  generateBundle() {
    this.emitFile({
      type: 'asset',
      fileName: 'LICENSE.noble-hashes',
      source: readFileSync(NOBLE_LICENSE, 'utf8'),
    })
  },
}

export default defineConfig({
  input: { index: 'src/index.ts' },
  platform: 'neutral',
  plugins: [nobleLicense],
  external: [/^node:/],
  output: { dir: 'dist', format: 'esm', sourcemap: true },
})
