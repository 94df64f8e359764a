import { describe, expect, it } from 'vitest'
import { createCommandChecker } from '../command/create-command-checker.js'
import type { PathScope } from '../types/path-scope.js'
import { standsFor, withBuildFileAlternatives } from './build-file-alternatives.js'
import { resolvePath } from './path-scope.js'

const roots = ['/srv/repo']

describe('withBuildFileAlternatives', () => {
  it('should add what each read-only build file’s tool reads in its place', () => {
    const readOnly = [
      '/srv/repo/.git',
      '/srv/repo/Makefile',
      '/srv/repo/crates/a/Cargo.toml',
      '/srv/repo/go.mod',
      '/srv/repo/package.json',
    ]
    expect(withBuildFileAlternatives(readOnly, roots)).toEqual([
      ...readOnly,
      '/srv/repo/GNUmakefile',
      '/srv/repo/makefile',
      // cargo reads its configuration and toolchain file from each folder up to the root.
      ...['/srv/repo/crates/a', '/srv/repo/crates', '/srv/repo'].flatMap((folder) =>
        ['.cargo/config.toml', '.cargo/config', 'rust-toolchain.toml', 'rust-toolchain'].map(
          (file) => `${folder}/${file}`,
        ),
      ),
      '/srv/repo/go.work',
      ...['.npmrc', '.yarnrc.yml', '.yarnrc', '.pnpmfile.cjs', 'pnpm-workspace.yaml'].map(
        (file) => `/srv/repo/${file}`,
      ),
    ])
  })

  it('should add nothing for other files, for entries outside the roots, and twice', () => {
    expect(withBuildFileAlternatives(['/srv/repo/docs', '/srv/repo/GNUmakefile'], roots)).toEqual([
      '/srv/repo/docs',
      '/srv/repo/GNUmakefile',
    ])
    expect(withBuildFileAlternatives(['/etc/Makefile'], roots)).toEqual(['/etc/Makefile'])
    const once = withBuildFileAlternatives(['/srv/repo/makefile'], roots)
    expect(once).toEqual(['/srv/repo/makefile', '/srv/repo/GNUmakefile'])
    expect(withBuildFileAlternatives(once, roots)).toEqual(once)
  })

  it('should say which build file a stand-in is protected for', () => {
    const readOnly = withBuildFileAlternatives(['/srv/repo/Makefile'], roots)
    expect(standsFor('/srv/repo/GNUmakefile', readOnly, roots)).toEqual({
      file: '/srv/repo/Makefile',
      tool: 'make',
    })
    expect(standsFor('/srv/repo/Makefile', readOnly, roots)).toBeUndefined()
  })
})

describe('writes of a build file’s stand-ins', () => {
  const scope: PathScope = {
    roots,
    readOnly: [
      '/srv/repo/Makefile',
      '/srv/repo/Cargo.toml',
      '/srv/repo/go.mod',
      '/srv/repo/package.json',
    ],
    deny: [],
  }

  it('should refuse them to a tool path check, naming the build file and its line', () => {
    const widened = { ...scope, readOnly: withBuildFileAlternatives(scope.readOnly, roots) }
    expect(resolvePath('GNUmakefile', widened, 'write')).toEqual({
      code: 'path_not_allowed',
      message:
        'The path /srv/repo/GNUmakefile is read by make in place of or beside /srv/repo/Makefile, which is in workspace.readOnly: it may be read, not written.',
      hint: expect.stringContaining(
        'only removing /srv/repo/Makefile from workspace.readOnly would allow the write',
      ),
    })
    expect(resolvePath('GNUmakefile', widened, 'read')).toBe('/srv/repo/GNUmakefile')
  })

  it('should refuse commands that write them, and allow their neighbours', async () => {
    const checker = await createCommandChecker({
      policy: { allow: ['cp', 'mv', 'sed', 'make', 'cargo', 'go', 'npm'], maxLength: 8192 },
      scope,
    })
    const codeOf = (command: string) => {
      const result = checker.check(command)
      return result.allowed ? 'allowed' : result.issue.code
    }
    for (const command of [
      'cp x.mk GNUmakefile',
      'cp x.mk makefile',
      'mv x.toml .cargo/config.toml',
      'cp x.toml .cargo/config',
      'cp x.toml rust-toolchain.toml',
      'cp x go.work',
      'cp x .npmrc',
      'cp x .yarnrc.yml',
      'cp x .pnpmfile.cjs',
      'sed -i s/a/b/ GNUmakefile',
    ])
      expect({ command, code: codeOf(command) }).toEqual({ command, code: 'path_not_allowed' })
    for (const command of [
      'make test',
      'cargo build',
      'go build ./...',
      'npm test',
      'cp Makefile Makefile.bak',
      'cp x docs/GNUmakefile.md',
      'cp x sub/GNUmakefile',
      'cp x src/npmrc.ts',
      'sed -n 1,5p GNUmakefile',
    ])
      expect({ command, code: codeOf(command) }).toEqual({ command, code: 'allowed' })
  })
})
