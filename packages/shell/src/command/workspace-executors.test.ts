import { describe, expect, it } from 'vitest'
import { commandSource, workspaceExecutor } from './workspace-executors.js'

describe('workspaceExecutor', () => {
  it.each([
    [['npm', 'test'], 'node'],
    [['npm', 'run', 'lint'], 'node'],
    [['/usr/local/bin/node', '--test'], 'node'],
    [['pnpm', 'vitest', 'run'], 'node'],
    [['python3', '-m', 'pytest', '-q'], 'python'],
    [['pytest'], 'python'],
    [['make', 'build'], 'build'],
    [['cargo', 'test'], 'rust'],
    [['go', 'test', './...'], 'go'],
  ])('should take %j for a command that executes workspace files (%s)', (argv, family) => {
    expect(workspaceExecutor(argv)?.family).toBe(family)
  })

  it.each([
    [['ls', '-la']],
    [['cat', 'README.md']],
    [['npm', '--version']],
    [['npm', 'ls']],
    [['rg', 'x']],
  ])('should find nothing to execute in %j', (argv) => {
    expect(workspaceExecutor(argv)).toBeUndefined()
  })

  it('should run code and configuration, not documentation', () => {
    const node = workspaceExecutor(['npm', 'test'])
    expect(
      ['docs/test-a.js', 'package.json', 'test/conftest.py', '.env'].map((file) =>
        node?.runs(file),
      ),
    ).toEqual([true, true, true, true])
    expect(['NOTES.md', 'docs/api.md', 'a.txt'].map((file) => node?.runs(file))).toEqual([
      false,
      false,
      false,
    ])
  })

  it('should count its own kind of code and output as already run, nothing else', () => {
    const node = workspaceExecutor(['npm', 'test'])
    const sources = [
      'run:node',
      'file:src/math.js',
      'list:src',
      'file:README.md',
      'file:x.py',
      'run:python',
      'url:docs.example.com',
      'command:git log',
    ]
    expect(sources.map((source) => node?.alreadyRuns(source))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ])
  })

  it('should let git run only its own hooks and configuration', () => {
    const git = workspaceExecutor(['git', 'status'])
    expect(
      ['.git/hooks/pre-commit', 'sub/.git/config', '.gitattributes', 'src/a.js'].map((file) =>
        git?.runs(file),
      ),
    ).toEqual([true, true, true, false])
  })
})

describe('commandSource', () => {
  it('should name an executor by its family and another command by its program', () => {
    expect([
      commandSource(['npm', 'test']),
      commandSource(['git', 'log', '-1']),
      commandSource(['ls']),
    ]).toEqual(['run:node', 'command:git log', 'command:ls'])
  })
})
