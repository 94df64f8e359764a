import { readFileSync } from 'node:fs'
import { it } from 'vitest'
import { createCommandChecker } from './create-command-checker.js'

it('scratch', async () => {
  const checker = await createCommandChecker({
    policy: {
      allow: [
        'git',
        'npm',
        'ls',
        'cat',
        'grep',
        'rg',
        'find',
        'sed',
        'awk',
        'tar',
        'pytest',
        'echo',
        'bash',
        'python3',
        'node',
        'make',
        'ssh',
        'rsync',
        'zip',
        'head',
        'rm',
        'cp',
        'jq',
      ],
      maxLength: 8192,
      rules: { bash: { allowExec: true }, python3: { allowExec: false } },
    },
    scope: { roots: ['/srv/repo'], readOnly: [], deny: ['/srv/repo/.env'] },
  })
  const lines = readFileSync('/tmp/scratch-cmds.txt', 'utf8').split('\n@@\n')
  for (const line of lines) {
    if (!line) continue
    const r = checker.check(line)
    process.stdout.write(
      `${JSON.stringify(line)} => ${r.allowed ? 'ALLOW ' + JSON.stringify(r.argv) : 'DENY ' + r.issues.map((i) => i.code).join(',') + ' | ' + r.issue.message}\n`,
    )
  }
})
