// Prints `tests: N passed, M failed, K skipped` from every package's vitest JSON report; exits 1 when a
// package that has a test script left no report or a test file failed to load.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = process.argv[2] ?? process.cwd()
let passed = 0
let failed = 0
let skipped = 0
let broken = false

for (const group of ['packages', 'apps']) {
  const groupDir = join(root, group)
  if (!existsSync(groupDir)) continue
  for (const name of readdirSync(groupDir)) {
    const manifestPath = join(groupDir, name, 'package.json')
    if (!existsSync(manifestPath)) continue
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
    if (!manifest.scripts?.test) continue
    const reportPath = join(groupDir, name, 'test-results.json')
    if (!existsSync(reportPath)) {
      console.error(`ci: ${group}/${name} left no test report`)
      broken = true
      continue
    }
    const report = JSON.parse(readFileSync(reportPath, 'utf8'))
    passed += report.numPassedTests ?? 0
    failed += report.numFailedTests ?? 0
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
    for (const file of report.testResults ?? []) {
      // A file that fails to import has no assertions but must still count as a failure.
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1
    }
  }
}

console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
if (broken || failed > 0) process.exit(1)
