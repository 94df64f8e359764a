import { performance } from 'node:perf_hooks'

// Runs in a fresh process: the import of @plan/core is the baseline, the first checker the subject.
const importStart = performance.now()
const { createCommandChecker } = await import('@plan/core')
const imported = performance.now() - importStart
const start = performance.now()
const checker = await createCommandChecker({
  policy: { allow: ['git'], maxLength: 8192 },
  scope: { roots: ['/srv/repo'], readOnly: [], deny: [] },
})
checker.check('git status')
process.stdout.write(JSON.stringify({ imported, firstCheck: performance.now() - start }))
