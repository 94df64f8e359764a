import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'
import { parseGitPathspec, pathspecSelects } from './git-pathspec.js'

const policy = { allow: ['git'], maxLength: 8192 }

function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'plan-history-'))
  const git = (...args: string[]) =>
    spawnSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args])
  git('init', '-q')
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  git('add', '-f', '.')
  git('commit', '-qm', 'first')
  return root
}

async function checkerFor(root: string): Promise<CommandChecker> {
  return createCommandChecker({
    policy,
    scope: {
      roots: [root],
      readOnly: [join(root, '.git')],
      deny: [join(root, '.env'), join(root, 'config', 'secrets')],
    },
  })
}

const allowed = (checker: CommandChecker, command: string) => ({
  command,
  allowed: checker.check(command).allowed,
})

describe('git readers of history and pathspec magic', () => {
  let committed: string
  let clean: string
  let withSecrets: CommandChecker
  let withoutSecrets: CommandChecker
  beforeAll(async () => {
    committed = repository({ '.env': 'KEY=1\n', 'config/secrets/key.pem': 'k', 'src/a.ts': 'a' })
    clean = repository({ 'src/a.ts': 'a', 'README.md': 'r' })
    withSecrets = await checkerFor(committed)
    withoutSecrets = await checkerFor(clean)
  })
  afterAll(() => {
    rmSync(committed, { recursive: true, force: true })
    rmSync(clean, { recursive: true, force: true })
  })

  it('should refuse pathspecs whose magic, case or pattern selects a denied path', () => {
    for (const checker of [withSecrets, withoutSecrets])
      for (const command of [
        "git log -p -- ':(top).env'",
        "git log -p -- ':(literal).env'",
        "git log -- ':(top,literal).env'",
        "git log -p -- ':(icase).ENV'",
        "git show HEAD -- ':(icase)CONFIG/Secrets'",
        "git log -p -- ':(glob).en*'",
        "git log -p -- ':(glob)**/.env'",
        'git --icase-pathspecs log -p -- .ENV',
        "git --glob-pathspecs log -p -- '**/.env'",
        "git --icase-pathspecs --glob-pathspecs show HEAD -- '**/.ENV'",
        "git log -p -- ':(glob,icase)**/.ENV'",
        "git log -p -- ':(glob)config/**'",
        "git log -p -- ':(glob)**'",
        "git log -p -- ':/.env'",
        "git log -p -- ':(top)config/secrets/key.pem'",
        "git log -p -- '.en?'",
        "git log -p -- '*.env'",
        "git grep KEY -- '.e[n]v'",
        "git diff HEAD~1 -- 'config/*'",
      ])
        expect(allowed(checker, command)).toEqual({ command, allowed: false })
  })

  it('should refuse whole-history readers of a repository that committed a denied path', () => {
    for (const command of [
      'git log -p',
      'git log --patch --all',
      'git log -S KEY',
      'git show HEAD',
      'git show',
      'git grep -e . HEAD',
      'git grep KEY',
      'git diff HEAD~1',
      "git diff HEAD -- ':!src'",
      'git log -p -- .',
      'git log -p -- config',
      'git archive HEAD',
      'git format-patch -1 HEAD --stdout',
    ])
      expect(allowed(withSecrets, command)).toEqual({ command, allowed: false })
  })

  it('should refuse every spelling of a patch, and the plumbing that prints one', () => {
    for (const command of [
      'git log -pu',
      'git log -1 -sp',
      'git log -U1',
      'git log --unified=0',
      'git log --remerge-diff',
      'git log --diff-merges=on',
      'git log -m',
      'git log --dd',
      'git log -W',
      'git show --stat -p HEAD',
      'git show -s --patch HEAD',
      'git diff --name-only -U3 HEAD',
      'git diff --numstat --cc HEAD',
      'git diff-tree -p HEAD',
      'git diff-index -p HEAD',
      'git diff-files -p',
      'git request-pull -p HEAD . HEAD',
      'git merge-tree HEAD HEAD HEAD',
      'git pack-objects --stdout',
    ])
      expect(allowed(withSecrets, command)).toEqual({ command, allowed: false })
  })

  it('should name the deny entry that keeps a whole-history reader refused', () => {
    const result = withSecrets.check('git log -p')
    expect(result.allowed ? '' : result.issue.hint).toContain(
      `only removing ${join(committed, '.env')} from workspace.deny would allow it`,
    )
  })

  it('should allow the same readers without a patch', () => {
    for (const command of [
      'git log --oneline -20',
      'git log --diff-merges=off --stat',
      'git log -n 5 --format=%s',
      'git show -s --format=%H HEAD',
      'git diff --stat HEAD',
      'git diff-tree --no-commit-id --name-only -r HEAD',
      'git diff-index --quiet HEAD',
      'git diff-tree -p HEAD -- src',
    ])
      expect(allowed(withSecrets, command)).toEqual({ command, allowed: true })
  })

  it('should allow readers limited to other paths, names only, or a clean history', () => {
    for (const command of [
      'git log -p -- src',
      'git log -p -- src/a.ts',
      "git log -p -- ':(top)src'",
      "git log -p -- ':(glob)src/**'",
      'git --icase-pathspecs log -p -- SRC',
      "git --glob-pathspecs log -p -- 'src/*.ts'",
      'git --literal-pathspecs log -p -- src',
      "git log -p -- ':(glob)**/*.ts'",
      'git show HEAD --stat',
      'git show HEAD --name-only',
      'git log --oneline',
      'git log --stat',
      'git grep TODO -- src',
      'git diff -- src/a.ts',
      'git status',
    ])
      expect(allowed(withSecrets, command)).toEqual({ command, allowed: true })
    for (const command of [
      'git log -p',
      'git show HEAD',
      'git grep -e . HEAD',
      'git diff HEAD',
      'git archive HEAD',
    ])
      expect(allowed(withoutSecrets, command)).toEqual({ command, allowed: true })
  })

  it('should read pathspec magic as git does', () => {
    expect(parseGitPathspec(':(top,icase)A/B')).toEqual({
      pattern: 'A/B',
      literal: false,
      glob: false,
      icase: true,
      exclude: false,
    })
    expect(parseGitPathspec(':!src').exclude).toBe(true)
    expect(parseGitPathspec(':^src').exclude).toBe(true)
    expect(parseGitPathspec(':/').pattern).toBe('.')
    expect(pathspecSelects(parseGitPathspec(':(literal)*.env'), '.env')).toBe(false)
    expect(pathspecSelects(parseGitPathspec('*.env'), 'a/.env')).toBe(true)
    expect(pathspecSelects(parseGitPathspec(':!src'), '.env')).toBe(true)
    expect(pathspecSelects(parseGitPathspec(':!.env'), '.env')).toBe(false)
  })

  it('should see a denied path committed after an earlier check of the same command', () => {
    expect(allowed(withoutSecrets, 'git log -p')).toEqual({ command: 'git log -p', allowed: true })
    writeFileSync(join(clean, '.env'), 'KEY=2\n')
    const git = (...args: string[]) =>
      spawnSync('git', ['-C', clean, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args])
    git('add', '-f', '.env')
    git('commit', '-qm', 'oops')
    expect(allowed(withoutSecrets, 'git log -p')).toEqual({ command: 'git log -p', allowed: false })
  })
})
