import { describe, expect, it } from 'vitest'
import { createCommandChecker } from './create-command-checker.js'

const policy = { allow: ['git'], maxLength: 8192 }
const scopeWith = (readOnly: string[]) => ({ roots: ['/srv/repo'], readOnly, deny: [] })

describe('checkGitRepositoryWrites (through createCommandChecker)', () => {
  it('should refuse git subcommands that write a repository whose .git is read-only', async () => {
    const checker = await createCommandChecker({ policy, scope: scopeWith(['/srv/repo/.git']) })
    for (const command of [
      'git add src/index.ts',
      'git commit -m "fix"',
      'git checkout -b feature',
      'git stash',
      'git fetch origin',
      'git branch feature',
      'git tag v1',
      'git -C /srv/repo commit -m x',
      'git merge main',
    ]) {
      const result = checker.check(command)
      expect(result.allowed, command).toBe(false)
      if (!result.allowed)
        expect(
          result.issues.map((issue) => issue.code),
          command,
        ).toContain('path_not_allowed')
    }
  })

  it('should allow git subcommands that only read the repository', async () => {
    const checker = await createCommandChecker({ policy, scope: scopeWith(['/srv/repo/.git']) })
    for (const command of [
      'git status',
      'git diff HEAD~1 -- src',
      'git log --oneline -n 20',
      'git show HEAD',
      'git branch',
      'git branch --list -a',
      'git stash list',
      'git tag -l',
    ])
      expect(checker.check(command).allowed, command).toBe(true)
  })

  it('should allow commits when only .git/config and .git/hooks are read-only', async () => {
    const checker = await createCommandChecker({
      policy,
      scope: scopeWith(['/srv/repo/.git/config', '/srv/repo/.git/hooks']),
    })
    for (const command of ['git add src/index.ts', 'git commit -m "fix"', 'git stash'])
      expect(checker.check(command).allowed, command).toBe(true)
  })
})
