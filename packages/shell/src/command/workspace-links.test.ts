import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'
import { workspaceOnDisk } from './workspace-links.js'

const policy = {
  allow: [
    'cat',
    'cp',
    'sed',
    'grep',
    'rg',
    'tar',
    'node',
    'mypy',
    'make',
    'ls',
    'git',
    'touch',
    'rm',
  ],
  maxLength: 8192,
}

function codes(checker: CommandChecker, command: string): string[] {
  const result = checker.check(command)
  return result.allowed ? [] : result.issues.map((issue) => issue.code)
}

/** A workspace beside a folder outside it, with links of every kind the tests name. */
function createLinkedWorkspace(): { base: string; root: string; scope: PathScope } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'plan-links-')))
  const root = join(base, 'repo')
  const files: Record<string, string> = {
    '.env': 'TOKEN=1\n',
    'README.md': '# Demo\n',
    'src/index.ts': 'export {}\n',
    'scripts/build.mjs': '\n',
    'vendor/lib.js': 'export {}\n',
    'mypy.ini': '[mypy]\n',
    'node_modules/vitest/vitest.mjs': '\n',
    '../outside/secret.txt': 'secret\n',
    '../outside/evil.mjs': '\n',
    '../outside/mypy.ini': '[mypy]\n',
  }
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(root, file, '..'), { recursive: true })
    writeFileSync(join(root, file), text)
  }
  mkdirSync(join(root, 'node_modules', '.bin'))
  const links: Record<string, string> = {
    'notes.txt': '.env',
    'chain-env': 'notes.txt',
    'shadow-link': join(base, 'outside', 'secret.txt'),
    out: '../outside',
    'ro-link': 'vendor/lib.js',
    'dangling-ro': 'vendor/new.js',
    'dangling-out': '../outside/new.txt',
    'dangling-ok': 'src/new.ts',
    'readme-link': 'README.md',
    chain: 'readme-link',
    alias: '.',
    'src-link': 'src',
    'evil.mjs': '../outside/evil.mjs',
    'env-script.mjs': '.env',
    'mypy-out.ini': '../outside/mypy.ini',
    'mypy-link.ini': 'mypy.ini',
    loop: 'loop',
    diff: '.env',
    'node_modules/.bin/vitest': '../vitest/vitest.mjs',
  }
  for (const [link, target] of Object.entries(links)) symlinkSync(target, join(root, link))
  const scope = { roots: [root], readOnly: [join(root, 'vendor')], deny: [join(root, '.env')] }
  return { base, root, scope }
}

describe('createCommandChecker (symbolic links on disk)', () => {
  let base: string
  let root: string
  let checker: CommandChecker
  beforeAll(async () => {
    const workspace = createLinkedWorkspace()
    ;({ base, root } = workspace)
    checker = await createCommandChecker({ policy, scope: workspace.scope })
  })
  afterAll(() => rmSync(base, { recursive: true, force: true }))

  it('should refuse a read through a link to a denied or outside path', () => {
    expect(codes(checker, 'cat notes.txt')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'cat chain-env')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'cat alias/.env')).toEqual(['path_not_allowed'])
    // `..` applies after the link: alias/.. is the root's parent, as the kernel reads it.
    expect(codes(checker, 'cat alias/../repo/.env')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'cp shadow-link copy.txt')).toEqual(['path_outside_workspace'])
    expect(codes(checker, 'cat out/secret.txt')).toEqual(['path_outside_workspace'])
    expect(codes(checker, 'cat loop')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'git diff --no-index diff README.md')).toEqual(['path_not_allowed'])
  })

  it('should name the argument, the link and its target', () => {
    const result = checker.check('cat README.md notes.txt')
    if (result.allowed) throw new Error('a link to .env was read')
    expect(result.issue.message).toContain('"notes.txt" (argv[2]) leads through a symbolic link')
    expect(result.issue.message).toContain('workspace.deny')
    expect(result.issue.hint).toContain(`"notes.txt" is a symbolic link to ${root}/.env`)
    const through = checker.check('cat out/secret.txt')
    if (through.allowed) throw new Error('a link out was read')
    expect(through.issue.hint).toContain(`"out" is a symbolic link to ${base}/outside`)
    const loop = checker.check('cat loop')
    if (loop.allowed) throw new Error('a link loop was read')
    expect(loop.issue.message).toContain('"loop" (argv[1]) cannot be followed safely on disk')
    expect(loop.issue.message).toContain('ELOOP')
    const tree = checker.check('grep -r TOKEN alias')
    if (tree.allowed) throw new Error('a link to the root was searched')
    expect(tree.issue.message).toContain(`(through a symbolic link, ${root})`)
    expect(tree.issue.hint).toContain(`"alias" is a symbolic link to ${root}`)
  })

  it('should refuse a write through a link to a read-only, denied or outside path', () => {
    expect(codes(checker, 'cp README.md ro-link')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'sed -i s/a/b/ ro-link')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'cp README.md notes.txt')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'cp README.md out/new.txt')).toEqual(['path_outside_workspace'])
    // A dangling link is judged at its target, the file the write would create.
    expect(codes(checker, 'cp README.md dangling-ro')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'touch dangling-out')).toEqual(['path_outside_workspace'])
    // rm removes a link it names, but follows the links on the way and a trailing slash.
    expect(codes(checker, 'rm out/secret.txt')).toEqual(['path_outside_workspace'])
    expect(codes(checker, 'rm -rf alias/')).toEqual(['path_not_allowed'])
  })

  it('should refuse a recursive read of a link to a folder that holds a denied path', () => {
    expect(codes(checker, 'grep -r TOKEN alias')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'tar -czf out.tgz alias')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'cp -r alias copy')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'rg -uuu TOKEN alias')).toEqual(['path_not_allowed'])
  })

  it('should refuse a program or a config file named through a link that leads out or to a denied path', () => {
    expect(codes(checker, 'node evil.mjs')).toEqual(['path_outside_workspace'])
    expect(codes(checker, 'node env-script.mjs')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'mypy --config-file mypy-out.ini src')).toEqual([
      'path_outside_workspace',
    ])
    expect(codes(checker, 'mypy --config-file notes.txt src')).toEqual(['path_not_allowed'])
    expect(codes(checker, 'make -f notes.txt')).toEqual(['path_not_allowed'])
  })

  it('should allow links that stay on ordinary workspace files and folders', () => {
    for (const command of [
      'cat readme-link',
      'cat chain',
      'cat alias/README.md',
      'cat src/../README.md',
      'cat ro-link',
      'grep -r export src-link',
      'grep -r export src',
      // ripgrep skips hidden files such as .env unless told otherwise.
      'rg export alias',
      'cp README.md src/new.ts',
      'cp README.md dangling-ok',
      'cp -r src-link copy',
      'node node_modules/.bin/vitest',
      'rm out',
      'rm -rf alias shadow-link dangling-out',
      'node scripts/build.mjs',
      'mypy --config-file mypy-link.ini src',
      'make -f README.md',
      'ls',
      'git status',
      // git's subcommand names no file, even where a link of that name exists.
      'git diff',
    ])
      expect(codes(checker, command), command).toEqual([])
  })

  it('should judge a command again when a link appears or goes away', async () => {
    const fresh = await createCommandChecker({
      policy,
      scope: { roots: [root], readOnly: [], deny: [join(root, '.env')] },
    })
    expect(codes(fresh, 'cat later.txt')).toEqual([])
    symlinkSync('.env', join(root, 'later.txt'))
    expect(codes(fresh, 'cat later.txt')).toEqual(['path_not_allowed'])
    rmSync(join(root, 'later.txt'))
    writeFileSync(join(root, 'later.txt'), 'plain\n')
    expect(codes(fresh, 'cat later.txt')).toEqual([])
  })

  it('should resolve a workspace root that is itself a link', async () => {
    const linked = join(base, 'linked-root')
    symlinkSync(root, linked)
    const through = await createCommandChecker({
      policy,
      scope: { roots: [linked], readOnly: [], deny: [join(linked, '.env')] },
    })
    expect(codes(through, 'cat README.md')).toEqual([])
    expect(codes(through, 'cat readme-link')).toEqual([])
    expect(codes(through, 'cat notes.txt')).toEqual(['path_not_allowed'])
    const named = through.check('cat notes.txt')
    if (named.allowed) throw new Error('a link to .env was read')
    expect(named.issue.hint).toContain(`"notes.txt" is a symbolic link to ${root}/.env`)
    expect(codes(through, 'cat out/secret.txt')).toEqual(['path_outside_workspace'])
  })
})

describe('workspaceOnDisk', () => {
  it('should be undefined when no root exists, so the check stays lexical', async () => {
    const scope = { roots: ['/nonexistent/plan-links'], readOnly: [], deny: [] }
    expect(workspaceOnDisk(scope)).toBeUndefined()
    const lexical = await createCommandChecker({ policy, scope })
    expect(codes(lexical, 'cat notes.txt')).toEqual([])
  })
})

describe('createCommandChecker (everyday commands on disk)', () => {
  it('should give every everyday command the verdict it gets lexically, with its files on disk', async () => {
    const corpus = JSON.parse(
      readFileSync(new URL('./__fixtures__/everyday-commands.json', import.meta.url), 'utf8'),
    ) as { policy: unknown; scope: PathScope; commands: readonly string[] }
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'plan-everyday-')))
    try {
      const root = join(base, 'app')
      // Every relative path a command names, as a file, or a folder when it holds another.
      const named = new Set<string>()
      for (const command of corpus.commands)
        for (const word of command.split(/\s+/).map((part) => part.replace(/^["']|["']$/g, '')))
          if (word.includes('/') && !/^[-/]|[:@*]|\.\.\.|^s\//.test(word))
            named.add(word.replace(/^\.\//, '').replace(/\/$/, ''))
      const folders = new Set(['node_modules/.bin', 'node_modules/vitest'])
      for (const path of named)
        path.split('/').forEach((_, index, parts) => {
          if (index > 0) folders.add(parts.slice(0, index).join('/'))
        })
      for (const folder of folders) mkdirSync(join(root, folder), { recursive: true })
      for (const path of named) if (!folders.has(path)) writeFileSync(join(root, path), '\n')
      writeFileSync(join(root, '.env'), 'TOKEN=1\n')
      writeFileSync(join(root, 'node_modules', 'vitest', 'cli.mjs'), '\n')
      symlinkSync('../vitest/cli.mjs', join(root, 'node_modules', '.bin', 'vitest'))
      const policy = commandPolicySchema.parse(corpus.policy)
      const lexical = await createCommandChecker({ policy, scope: corpus.scope })
      const onDisk = await createCommandChecker({
        policy,
        scope: { roots: [root], readOnly: [join(root, '.git')], deny: [join(root, '.env')] },
      })
      const verdict = (checker: CommandChecker, command: string) => {
        const result = checker.check(command)
        return result.allowed ? 'allowed' : result.issue.code
      }
      const differing = corpus.commands.filter(
        (command) => verdict(lexical, command) !== verdict(onDisk, command),
      )
      expect(named.size).toBeGreaterThan(50)
      expect(differing).toEqual([])
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
