// Bundles the entry into one file: a cold start reads one module. Types come from tsc.
import { defineConfig } from 'rolldown'

export default defineConfig({
  input: { index: 'src/index.ts' },
  platform: 'neutral',
  output: { dir: 'dist', format: 'esm', sourcemap: true },
})
