import { isWithin, resolvePath } from '../checks/path-scope.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { commandIssue } from './command-issue.js'
import { programEntry } from './programs/program-families.js'
import {
  optionValues,
  SHORT_VALUE_LETTERS,
  splitShortClusters,
  type ValueOption,
} from './value-roles.js'

/** A build tool's own files, and the options that point it at other ones. */
interface BuildTool {
  /** The files it reads from the folder it runs in (`Makefile`, `package.json`). */
  readonly files: readonly string[]
  /** Options whose value is a build file. */
  readonly fileOptions: readonly string[]
  /** Options whose value is a folder (or a workspace package) whose build files it reads. */
  readonly folderOptions: readonly string[]
  /** Flags that run it in every package of the workspace. */
  readonly everyPackage?: readonly string[]
  /** The shortest abbreviations of the long options above that the tool accepts. */
  readonly abbreviations?: readonly string[]
}

const NPM_FILES = ['package.json', '.npmrc']
const BUILD_TOOLS: Readonly<Record<string, BuildTool>> = {
  make: {
    files: ['Makefile', 'makefile', 'GNUmakefile'],
    fileOptions: ['-f', '--file', '--makefile'],
    folderOptions: ['-C', '--directory'],
    abbreviations: ['--fi', '--mak', '--di'],
  },
  npm: {
    files: NPM_FILES,
    fileOptions: [],
    folderOptions: ['--prefix', '-w', '--workspace'],
    everyPackage: ['--workspaces', '-ws'],
  },
  pnpm: {
    files: [...NPM_FILES, 'pnpm-workspace.yaml'],
    fileOptions: [],
    folderOptions: ['-C', '--dir', '--filter', '-F'],
    everyPackage: ['-r', '--recursive'],
  },
  yarn: { files: [...NPM_FILES, '.yarnrc.yml'], fileOptions: [], folderOptions: ['--cwd'] },
  cargo: { files: ['Cargo.toml'], fileOptions: ['--manifest-path'], folderOptions: ['-C'] },
  pytest: {
    files: ['pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg', 'conftest.py'],
    fileOptions: ['-c', '--config-file', '--inifile'],
    folderOptions: ['--rootdir', '--confcutdir'],
  },
  go: { files: ['go.mod'], fileOptions: ['-modfile'], folderOptions: ['-C'] },
}

/**
 * "A build file is any file the build tool can be pointed at": when the policy makes a tool's
 * build file at the root read-only (`readOnly: ['Makefile']`), every option that points the tool
 * at another build file or folder (`make -f other.mk`, `make -C sub`, `npm --prefix sub`,
 * `cargo --manifest-path sub/Cargo.toml`, `pytest --rootdir sub`) must select a read-only one
 * too; a workspace package named by name, or every package, cannot be told and is refused.
 */
export function checkBuildFileSelection(
  name: string,
  args: readonly string[],
  scope: PathScope,
): PlanIssue | undefined {
  const tool = programEntry(BUILD_TOOLS, name)
  const root = scope.roots[0]
  if (tool === undefined || root === undefined) return undefined
  const prefix = root === '/' ? '' : root
  const protectedFile = tool.files
    .map((file) => `${prefix}/${file}`)
    .find((file) => isReadOnly(file, scope))
  if (protectedFile === undefined) return undefined
  const every = args.find(
    (argument, index) =>
      tool.everyPackage?.includes(argument) ||
      (name === 'yarn' && argument === 'workspace' && index === firstWord(args)),
  )
  if (every !== undefined)
    return refuse(
      name,
      every,
      `runs ${name} with the build files of every workspace package`,
      protectedFile,
    )
  const { abbreviations } = tool
  const options: ValueOption[] = [
    { spellings: tool.fileOptions, role: 'config-file', why: 'file', abbreviations },
    { spellings: tool.folderOptions, role: 'config-file', why: 'folder', abbreviations },
  ]
  const letters = programEntry(SHORT_VALUE_LETTERS, name)
  const words = letters === undefined ? args : splitShortClusters(args, letters)
  for (const { option, spelling, value } of optionValues(words, options)) {
    const resolved = resolvePath(value, scope, 'read')
    if (typeof resolved !== 'string') continue // the path check refuses it
    const selected =
      option.why === 'file'
        ? [resolved]
        : tool.files.map((file) => `${resolved === '/' ? '' : resolved}/${file}`)
    const open = selected.find((file) => !isReadOnly(file, scope))
    if (open !== undefined && resolved !== root)
      return refuse(
        name,
        `${spelling} ${value}`,
        `points ${name} at ${open}, which is not read-only`,
        protectedFile,
        open,
      )
  }
  return undefined
}

function firstWord(args: readonly string[]): number {
  return args.findIndex((argument) => !argument.startsWith('-'))
}

function isReadOnly(path: string, scope: PathScope): boolean {
  return scope.readOnly.some((entry) => isWithin(entry, path))
}

function refuse(
  name: string,
  shown: string,
  what: string,
  protectedFile: string,
  open?: string,
): PlanIssue {
  const line =
    open === undefined
      ? 'no policy line allows it, as the packages it reads cannot be told'
      : `only adding ${open} to workspace.readOnly would allow it`
  return commandIssue(
    'path_not_allowed',
    `${name} ${shown} ${what}, while the policy protects ${protectedFile}: a build file the agent can write runs its commands.`,
    `Run ${name} on the protected build files, or make the other build files read-only too; ${line}.`,
  )
}
