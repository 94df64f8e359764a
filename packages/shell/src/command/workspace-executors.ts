import { valueAt } from '../util/item-at.js'
/**
 * A command that executes files of the workspace (a test runner, a build tool, an
 * interpreter, a package script): what it could run, and which data sources it already runs.
 */
export interface WorkspaceExecutor {
  /** The ecosystem, for a refusal and for `run:` sources (`node`, `python`, `build`, …). */
  readonly family: string
  /** Whether the command could execute (or load as code or config) this workspace file. */
  runs(relative: string): boolean
  /**
   * Whether data from `source` adds nothing the command does not already run: the output of
   * the same kind of command, the content of a file of its own ecosystem that no run wrote.
   */
  alreadyRuns(source: string): boolean
}

/** Files no executor treats as code: documentation, plain text, images. */
const DOCUMENT = /\.(md|markdown|mdx|txt|rst|adoc|csv|tsv|log|png|jpe?g|gif|svg|ico|webp|pdf)$/iu

/**
 * Whether some command of the workspace could execute (or load as code or config) this
 * workspace file: every file but documentation, plain text and images.
 */
export function runsAsCode(relative: string): boolean {
  return !DOCUMENT.test(relative)
}

interface Family {
  readonly programs: readonly string[]
  /** The files of this ecosystem: a source that holds one of them is code it already runs. */
  readonly code: RegExp
}

const FAMILIES: Readonly<Record<string, Family>> = {
  node: {
    programs: [
      'node',
      'nodejs',
      'npm',
      'npx',
      'pnpm',
      'pnpx',
      'yarn',
      'bun',
      'bunx',
      'deno',
      'tsx',
      'ts-node',
      'jest',
      'vitest',
      'mocha',
      'ava',
      'tap',
      'eslint',
      'prettier',
      'webpack',
      'vite',
      'rollup',
      'turbo',
      'nx',
    ],
    code: /\.(c|m)?(j|t)sx?$|\.json$/iu,
  },
  python: {
    programs: [
      'python',
      'python2',
      'python3',
      'pytest',
      'py.test',
      'tox',
      'nox',
      'pip',
      'pip3',
      'poetry',
      'uv',
      'hatch',
      'pdm',
      'coverage',
    ],
    code: /\.(py|pyi|toml|ini|cfg)$/iu,
  },
  rust: { programs: ['cargo', 'rustc'], code: /\.(rs|toml)$/iu },
  go: { programs: ['go'], code: /\.(go|mod|s)$/iu },
  ruby: { programs: ['ruby', 'bundle', 'rake', 'rspec'], code: /\.(rb|gemspec)$|Gemfile$/iu },
  jvm: { programs: ['mvn', 'gradle', 'gradlew', 'java', 'sbt'], code: /\.(java|kt|xml|gradle)$/iu },
  build: {
    programs: ['make', 'gmake', 'cmake', 'ninja', 'just', 'bash', 'sh', 'zsh', 'dash', 'perl'],
    code: /(?:)/u,
  },
}

/** Arguments after which a program only prints something about itself. */
const ONLY_PRINTS = new Set(['--version', '-v', '-V', '--help', '-h', 'help', 'version'])
/** Package-manager subcommands that run no script of the workspace. */
const PACKAGE_QUERIES = new Set(['ls', 'list', 'view', 'info', 'why', 'outdated', 'whoami'])

const byProgram = new Map<string, string>()
for (const [family, { programs }] of Object.entries(FAMILIES))
  for (const program of programs) byProgram.set(program, family)

function baseName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1)
}

/** The family of a program named by a command's first word (a path to it counts too). */
function familyOf(program: string): string | undefined {
  return byProgram.get(baseName(program))
}

/** The files git runs itself: hooks and configuration of any repository in the workspace. */
function gitRuns(relative: string): boolean {
  return /(^|\/)\.git(\/|$)|(^|\/)\.git(attributes|modules)$/u.test(relative)
}

/**
 * What a command (its argv) executes of the workspace, or undefined when it executes none of
 * it: `npm test`, `node --test`, `pytest`, `make`, `node scripts/x.js` do; `npm --version`,
 * `ls`, `cat` do not. `git` runs only its hooks and configuration.
 */
export function workspaceExecutor(argv: readonly string[]): WorkspaceExecutor | undefined {
  const program = argv[0]
  if (program === undefined) return undefined
  const second = argv[1]
  if (argv.length === 2 && second !== undefined && ONLY_PRINTS.has(second)) return undefined
  if (baseName(program) === 'git') return { family: 'git', runs: gitRuns, alreadyRuns: () => false }
  const family = familyOf(program)
  if (family === undefined) return undefined
  if (family === 'node' && second !== undefined && PACKAGE_QUERIES.has(second)) return undefined
  const { code } = valueAt(FAMILIES, family)
  return {
    family,
    runs: runsAsCode,
    alreadyRuns: (source) => {
      if (source === `run:${family}` || source.startsWith('list:')) return true
      if (!source.startsWith('file:')) return false
      const file = source.slice('file:'.length)
      return !DOCUMENT.test(file) && code.test(file)
    },
  }
}

/** The source name of a command's output: `run:<family>` for an executor, else its program. */
export function commandSource(argv: readonly string[]): string {
  const executor = workspaceExecutor(argv)
  if (executor !== undefined && executor.family !== 'git') return `run:${executor.family}`
  return `command:${argv.slice(0, 2).join(' ')}`
}

/**
 * Whether data from `sources` naming the workspace file `relative` adds nothing to what that
 * file's own ecosystem already runs: every source is code of the ecosystem that no run wrote,
 * its commands' output or a listing, and `relative` is code of it too (`src/strings.js` named by
 * `file:test/strings.test.js`). A README, a page, an error or another program's output does not.
 */
export function namedByOwnCode(sources: readonly string[], relative: string): boolean {
  if (sources.length === 0 || DOCUMENT.test(relative)) return false
  for (const [family, { code }] of Object.entries(FAMILIES)) {
    if (family === 'build' || !code.test(relative)) continue
    const own = sources.every(
      (source) =>
        source === `run:${family}` ||
        source.startsWith('list:') ||
        (source.startsWith('file:') &&
          !DOCUMENT.test(source.slice('file:'.length)) &&
          code.test(source.slice('file:'.length))),
    )
    if (own) return true
  }
  return false
}
