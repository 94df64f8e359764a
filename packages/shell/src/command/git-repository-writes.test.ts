import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPOSITORY_CODE_PATHS, repositoryCodePart } from '../checks/repository-code-paths.js'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'

const policy = { allow: ['git', 'cp', 'mv', 'mkdir', 'touch', 'tee', 'ln', 'rm'], maxLength: 8192 }
const scopeWith = (readOnly: string[]) => ({ roots: ['/srv/repo'], readOnly, deny: [] })

function refusedWith(checker: CommandChecker, command: string): string[] {
  const result = checker.check(command)
  return result.allowed ? [] : result.issues.map((issue) => issue.code)
}

describe('checkGitRepositoryWrites (through createCommandChecker)', () => {
  it('should refuse git subcommands that write when a folder holding .git is read-only', async () => {
    const checker = await createCommandChecker({ policy, scope: scopeWith(['/srv/repo']) })
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
    ])
      expect(refusedWith(checker, command), command).toContain('path_not_allowed')
  })

  it('should let git write its own data when .git itself is read-only (the default)', async () => {
    const checker = await createCommandChecker({ policy, scope: scopeWith(['/srv/repo/.git']) })
    for (const command of [
      'git add src/index.ts',
      'git commit -m "fix: a | b"',
      'git checkout -b feature/auth',
      'git switch -c fix/typo',
      'git restore --staged src/index.ts',
      'git stash',
      'git stash pop',
      'git branch feature',
      'git branch -d feature',
      'git tag -a v1.0.0 -m "release 1.0.0"',
      'git merge main',
      'git fetch origin',
      'git push origin feature',
      'git -C . branch --show-current',
      'git -C /srv/repo commit -m x',
      'git status',
      'git stash list',
    ])
      expect({ command, allowed: checker.check(command).allowed }).toEqual({
        command,
        allowed: true,
      })
  })

  it('should refuse git subcommands that write a code-running part of the repository', async () => {
    const checker = await createCommandChecker({ policy, scope: scopeWith(['/srv/repo/.git']) })
    for (const command of [
      'git remote add evil https://example.com/x.git',
      'git remote set-url origin https://example.com/x.git',
      'git submodule add https://example.com/x.git lib/x',
      'git submodule update --init',
      'git worktree add ../wt feature',
      'git worktree add wt feature',
      'git push -u origin feature',
      'git push --set-upstream origin feature',
      'git branch --set-upstream-to=origin/main',
      'git branch -u origin/main',
      'git checkout --track origin/feature',
      'git switch -t origin/feature',
      'git init --separate-git-dir=other',
      'git clone --separate-git-dir other https://example.com/x.git y',
    ])
      expect(refusedWith(checker, command), command).toContain('path_not_allowed')
    for (const command of [
      'git maintenance start',
      'git maintenance register',
      'git credential fill',
      'git help --web log',
      'git imap-send',
    ])
      expect(refusedWith(checker, command), command).toContain('command_inline_code')
    expect(checker.check('git help log').allowed).toBe(true)
  })

  it('should refuse every other program writing a code-running part, at any depth', async () => {
    const checker = await createCommandChecker({ policy, scope: scopeWith(['/srv/repo/.git']) })
    for (const command of [
      'cp evil sub/.git/config',
      'cp evil a/b/c/.git/config.worktree',
      'cp evil sub/.git/hooks/pre-commit',
      'mkdir -p sub/.git/hooks',
      'cp -r evil sub/.git/info',
      'cp list sub/.git/objects/info/alternates',
      'cp path sub/.git/commondir',
      'cp -r evil sub/.git/modules/x',
      'cp -r evil sub/.git/worktrees/w',
      'cp redirect sub/.git',
      'mv redirect deep/down/.git',
      'ln -s /tmp/evil sub/.git',
      'touch sub/.git/hooks/post-checkout',
      'tee sub/.git/config',
      'cp evil .git/config',
    ])
      expect(refusedWith(checker, command), command).toContain('path_not_allowed')
  })

  it('should allow writes beside the code-running parts', async () => {
    const checker = await createCommandChecker({ policy, scope: scopeWith(['/srv/repo/.git']) })
    for (const command of [
      'cp a.txt sub/config',
      'cp a.txt docs/hooks/README.md',
      'mkdir -p src/info',
      'cp .gitignore backup.gitignore',
      'touch sub/.gitkeep',
      'cp a.txt sub/.github/workflows/ci.yml',
      'rm -rf build',
    ])
      expect({ command, allowed: checker.check(command).allowed }).toEqual({
        command,
        allowed: true,
      })
  })

  it('should name the code-running parts by path below a .git segment', () => {
    expect(REPOSITORY_CODE_PATHS).toContain('hooks')
    expect(repositoryCodePart('/r/a/.git/hooks/pre-commit')).toBe('/r/a/.git/hooks')
    expect(repositoryCodePart('/r/.git')).toBe('/r/.git')
    expect(repositoryCodePart('/r/.git/objects/info/alternates')).toBe(
      '/r/.git/objects/info/alternates',
    )
    expect(repositoryCodePart('/r/.git/worktrees/w/gitdir')).toBe('/r/.git/worktrees')
    expect(repositoryCodePart('/r/.git/objects/ab/cdef')).toBeUndefined()
    expect(repositoryCodePart('/r/.git/refs/heads/main')).toBeUndefined()
    expect(repositoryCodePart('/r/.git/index')).toBeUndefined()
    expect(repositoryCodePart('/r/.gitignore')).toBeUndefined()
    expect(repositoryCodePart('/r/.git/configs')).toBeUndefined()
  })
})

describe('checkGitRepositorySelection (through createCommandChecker, on disk)', () => {
  let root: string
  let checker: CommandChecker
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'plan-nested-repo-'))
    mkdirSync(join(root, '.git', 'objects'), { recursive: true })
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n')
    mkdirSync(join(root, 'sub', '.git', 'objects'), { recursive: true })
    writeFileSync(join(root, 'sub', '.git', 'HEAD'), 'ref: refs/heads/main\n')
    mkdirSync(join(root, 'sub', 'deeper'), { recursive: true })
    mkdirSync(join(root, 'linked'))
    writeFileSync(join(root, 'linked', '.git'), 'gitdir: /tmp/elsewhere\n')
    mkdirSync(join(root, 'bare.git', 'objects'), { recursive: true })
    writeFileSync(join(root, 'bare.git', 'HEAD'), 'ref: refs/heads/main\n')
    mkdirSync(join(root, 'plain', 'objects'), { recursive: true })
    writeFileSync(join(root, 'plain', 'HEAD'), 'ref: refs/heads/main\n')
    mkdirSync(join(root, 'src', 'lib'), { recursive: true })
    checker = await createCommandChecker({
      policy,
      scope: { roots: [root], readOnly: [join(root, '.git')], deny: [] },
    })
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('should refuse git pointed at a nested, redirected or bare repository', () => {
    for (const command of [
      'git -C sub status',
      'git -C sub/deeper log',
      'git -C ./sub diff',
      'git -C src -C ../sub status',
      'git -C linked status',
      'git -C bare.git log',
      'git -C plain log',
      'git -C sub/.git status',
      'git -C .git status',
      'git --git-dir=sub/.git status',
      'git --git-dir sub/.git log',
      'git --git-dir=bare.git log',
      'git --work-tree=sub status',
      'git --bare log',
      'cp evil plain/config',
      'cp evil bare.git/hooks/pre-commit',
      'cp evil bare.git/objects/info/alternates',
    ])
      expect(refusedWith(checker, command), command).toContain('path_not_allowed')
  })

  it('should answer an option left without its value, never throw', () => {
    for (const command of ['git -c', 'git -C', 'git --git-dir', 'git -C sub -c', 'git --work-tree'])
      expect(() => checker.check(command), command).not.toThrow()
    // A config override with no value is still an override; `git -C` alone makes git exit.
    expect(refusedWith(checker, 'git -c')).toEqual(['command_inline_code'])
    expect(refusedWith(checker, 'git -C')).toEqual([])
  })

  it('should allow git in the workspace repository and its plain folders', () => {
    for (const command of [
      'git -C . status',
      'git -C src status',
      'git -C src/lib log --oneline',
      `git -C ${root} status`,
      'git --git-dir=.git status',
      'git --work-tree=. status',
      'git status sub',
      'cp a.txt src/config',
      'cp a.txt plain/notes.txt',
    ])
      expect({ command, allowed: checker.check(command).allowed }).toEqual({
        command,
        allowed: true,
      })
  })

  it('should check the disk again when the same command comes back', () => {
    mkdirSync(join(root, 'later'))
    expect(checker.check('git -C later status').allowed).toBe(true)
    mkdirSync(join(root, 'later', '.git', 'objects'), { recursive: true })
    writeFileSync(join(root, 'later', '.git', 'HEAD'), 'ref: refs/heads/main\n')
    expect(refusedWith(checker, 'git -C later status')).toContain('path_not_allowed')
  })

  it('should reuse a verdict that looked at the disk only while the disk answers the same', () => {
    mkdirSync(join(root, 'again'))
    const first = checker.check('git -C again status')
    expect(first.allowed).toBe(true)
    expect(checker.check('git -C again status')).toBe(first)
    mkdirSync(join(root, 'again', '.git', 'objects'), { recursive: true })
    writeFileSync(join(root, 'again', '.git', 'HEAD'), 'ref: refs/heads/main\n')
    const refused = checker.check('git -C again status')
    expect(refused.allowed).toBe(false)
    expect(checker.check('git -C again status')).toBe(refused)
    rmSync(join(root, 'again', '.git'), { recursive: true })
    expect(checker.check('git -C again status')).toEqual(first)
  })
})
