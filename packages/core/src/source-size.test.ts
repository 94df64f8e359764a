import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The most lines core's `src` may hold (every line, comments and blank lines too; tests and
 * fixtures apart): what is reusable on its own belongs in a package of its own, as the shell
 * analysis went to `@plan/shell`, so the count only goes down.
 */
const MAX_LINES = 15_000

const SRC = import.meta.dirname
const isSupport = (path: string) =>
  /\.test(-d)?\.ts$/.test(path) || /(^|\/)(__fixtures__|test-utils)\//.test(path)

describe('core source size', () => {
  it(`should keep src within ${MAX_LINES} lines`, () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter(
      (path) => path.endsWith('.ts') && !isSupport(path.replaceAll('\\', '/')),
    )
    const lines = files.reduce(
      (total, file) => total + readFileSync(join(SRC, file), 'utf8').split('\n').length - 1,
      0,
    )
    expect(files.length).toBeGreaterThan(100)
    expect(lines).toBeLessThanOrEqual(MAX_LINES)
  })
})
