import { isWithin, resolvePath } from '../checks/path-scope.js'
import { placeInList } from '../checks/path-wording.js'
import {
  codePartBelow,
  type DiskView,
  looksLikeGitDirectory,
  REPOSITORY_CODE_PATHS,
  repositoryCodePart,
} from '../checks/repository-code-paths.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { nodeBuiltin } from '../util/node-builtin.js'
import { posix } from '../util/posix-path.js'
import { type ArgumentRole, hasSubcommandRoles } from './argument-roles.js'
import { checkBuildFileSelection } from './build-file-selection.js'
import { collectPathCandidates, type PathCandidate } from './collect-path-candidates.js'
import { commandIssue } from './command-issue.js'
import { diskConsultations, noteDiskConsulted } from './disk-verdicts.js'
import { checkGitHistoryReads } from './git-history-reads.js'
import { checkGitRepositorySelection } from './git-repository-selection.js'
import { checkGitRepositoryWrites } from './git-repository-writes.js'
import { findSubcommand } from './global-options.js'
import { looksLikePath } from './looks-like-path.js'
import { parseAwkArguments } from './parse-awk-arguments.js'
import { parseSedArguments } from './parse-sed-arguments.js'
import { checkRecursiveReads } from './recursive-reads.js'
import { LinkLookup, type WorkspaceOnDisk } from './workspace-links.js'

const AWK = new Set(['awk', 'gawk', 'mawk', 'nawk'])

/**
 * The relative names under which a protected path can be named from the first root (`.env`,
 * `vendor`): the first segment of every `deny` and `readOnly` path inside it.
 */
export function protectedNames(scope: PathScope): string[] {
  const root = scope.roots[0]
  if (root === undefined) return []
  const names = new Set<string>()
  for (const path of [...scope.deny, ...scope.readOnly]) {
    if (!isWithin(root, path) || path === root) continue
    const first = path.slice(root === '/' ? 1 : root.length + 1).split('/')[0]
    if (first !== undefined && first.length > 0) names.add(first)
  }
  return [...names]
}

/**
 * Checks every value of an allowed command that may name a file against the workspace: each
 * word, option value and `key=value` value, and the path behind `@`, `file:` and socat-style
 * prefixes. A `deny` path is refused in any position, a `readOnly` one unless the program's
 * role table says the position only reads, a path-like value outside the roots always, and a
 * write whose target is a root or holds a protected path (`rm -rf .`) is refused, and so is a git
 * subcommand that writes a repository whose `.git` is read-only. `names` are the scope's
 * {@link protectedNames}, when the caller has them already.
 */
export function checkCommandPaths(
  name: string,
  args: readonly string[],
  scope: PathScope,
  names: readonly string[] = protectedNames(scope),
  disk: DiskView | undefined = localDisk(),
  verdicts?: PathVerdicts,
  workspace?: WorkspaceOnDisk,
): PlanIssue[] {
  const { skip, programRole } = codeArguments(name, args)
  const { candidates, unreadable } = collectPathCandidates(programRole ?? name, args, skip, names)
  const issues: PlanIssue[] = unreadable.map((word) =>
    commandIssue(
      'command_invalid',
      `The option word ${JSON.stringify(word.slice(0, 40))} carries more possible values than the check follows.`,
      'Pass option values as separate words (-o FILE).',
    ),
  )
  const buildFile = checkBuildFileSelection(name, args, scope)
  if (buildFile !== undefined) issues.push(buildFile)
  const links = workspace === undefined ? undefined : new LinkLookup(workspace, scope)
  const subcommand = links === undefined ? undefined : subcommandWord(name, args)
  issues.push(...checkRecursiveReads(name, args, scope, links))
  if (name === 'git') {
    const selection = checkGitRepositorySelection(args, scope, disk)
    if (selection !== undefined) issues.push(selection)
    issues.push(...checkGitHistoryReads(args, scope))
    const repositoryWrite = checkGitRepositoryWrites(args, scope)
    if (repositoryWrite !== undefined) issues.push(repositoryWrite)
  }
  // Each value is checked once per role and position kind: a bit per pair, by value.
  const seen = new Map<string, number>()
  for (const candidate of candidates) {
    const bit = 1 << (ROLE_BITS[candidate.role] + (candidate.embedded ? ROLE_COUNT : 0))
    const done = seen.get(candidate.value) ?? 0
    if ((done & bit) !== 0) continue
    seen.set(candidate.value, done | bit)
    const issue = candidateIssue(candidate, bit, scope, disk, verdicts)
    if (issue !== undefined) issues.push(issue)
    else if (
      links !== undefined &&
      workspace !== undefined &&
      LINKED_ROLES.has(candidate.role) &&
      candidate.value !== subcommand
    ) {
      const judging = { scope, workspace, links, disk, followLast: !REMOVERS.has(name) }
      const linked = linkIssue(candidate, args, judging)
      if (linked !== undefined) issues.push(linked)
    }
  }
  links?.noteFact()
  return issues
}

/** The subcommand of a program with subcommand roles (git), when no other word repeats it. */
function subcommandWord(name: string, args: readonly string[]): string | undefined {
  if (!hasSubcommandRoles(name)) return undefined
  const position = findSubcommand(name, args)
  if (!('subcommand' in position) || position.subcommand === undefined) return undefined
  const word = position.subcommand
  return args.indexOf(word) === args.lastIndexOf(word) ? word : undefined
}

// The roles whose value the program opens, runs or writes as a file: a link there is followed.
const LINKED_ROLES: ReadonlySet<ArgumentRole> = new Set(['read', 'write', 'unknown', 'command'])

/** What judging a value at its link's target needs. */
interface LinkJudging {
  readonly scope: PathScope
  readonly workspace: WorkspaceOnDisk
  readonly links: LinkLookup
  readonly disk: DiskView | undefined
  /** False for a program that removes the link a value names, not what it leads to. */
  readonly followLast: boolean
}

// Programs that remove a link named as an operand, not its target (`rm result` with `result -> /nix/store/…`).
const REMOVERS: ReadonlySet<string> = new Set(['rm', 'unlink'])

/**
 * Judges a value that the lexical check allowed at the real path its symbolic links lead to
 * (the nearest existing folder's for a file still to be written, a dangling link's target),
 * against the scope's real paths: a link inside the workspace to a denied, read-only or
 * outside path is refused as that path would be.
 */
function linkIssue(
  candidate: PathCandidate,
  args: readonly string[],
  judging: LinkJudging,
): PlanIssue | undefined {
  const { value, role } = candidate
  if (value.length === 0 || value.includes('\0')) return undefined
  // The lexical check allowed the value; only where it lies is needed here.
  const first = judging.scope.roots[0] ?? '/'
  const lexical = value.startsWith('/') ? posix.normalize(value) : posix.join(first, value)
  const linked = judging.links.linkedTarget(value, lexical, role !== 'write' || judging.followLast)
  if (linked === undefined) return undefined
  const word = args.findIndex((argument) => argument.includes(value)) + 1
  const at = word === 0 ? '' : ` (argv[${word}])`
  const { resolution, link, linkTarget } = linked
  if (!resolution.ok)
    return {
      code: 'path_not_allowed',
      message: `The argument ${JSON.stringify(value)}${at} cannot be followed safely on disk (${resolution.reason}).`,
      path: [],
      hint: 'Name a plain path inside the workspace, without link loops.',
    }
  const { realScope } = judging.workspace
  const issue = checkCandidate(resolution.real, role, false, realScope, judging.disk)
  if (issue === undefined) return undefined
  const through =
    link === undefined
      ? `${JSON.stringify(value)} leads to ${resolution.real} through a symbolic link`
      : `${link} is a symbolic link to ${linkTarget ?? 'a missing path'}`
  return {
    ...issue,
    message: issue.message.replace(
      `The argument ${JSON.stringify(resolution.real)}`,
      `The argument ${JSON.stringify(value)}${at} leads through a symbolic link to ${resolution.real}, which`,
    ),
    hint: `${through}; the command would reach ${resolution.real}. Name the file itself, or a link to a path the policy allows. ${
      issue.code === 'path_outside_workspace'
        ? `Links may not lead out of the workspace (${judging.scope.roots.join(', ')}).`
        : issue.hint
    }`,
  }
}

/**
 * The verdicts of path candidates already checked under one scope, by role, position kind and
 * value: most words come back in many commands (`src/index.ts`, `status`). Only verdicts that did
 * not look at the disk are kept.
 */
export class PathVerdicts {
  // By role and position bit, then by value; false for a value without an issue.
  readonly #byBit = new Map<number, Map<string, PlanIssue | false>>()
  #size = 0

  /** The verdict of `value` in the position `bit`: an issue, false for none, undefined if new. */
  get(bit: number, value: string): PlanIssue | false | undefined {
    return this.#byBit.get(bit)?.get(value)
  }

  set(bit: number, value: string, issue: PlanIssue | undefined): void {
    if (this.#size >= MAX_PATH_VERDICTS) {
      this.#byBit.clear()
      this.#size = 0
    }
    let verdicts = this.#byBit.get(bit)
    if (verdicts === undefined) {
      verdicts = new Map()
      this.#byBit.set(bit, verdicts)
    }
    verdicts.set(value, issue ?? false)
    this.#size += 1
  }
}

// Candidate verdicts kept per checker before the table starts again.
const MAX_PATH_VERDICTS = 4096

function candidateIssue(
  candidate: PathCandidate,
  bit: number,
  scope: PathScope,
  disk: DiskView | undefined,
  verdicts: PathVerdicts | undefined,
): PlanIssue | undefined {
  const { value, role, embedded } = candidate
  if (verdicts === undefined) return checkCandidate(value, role, embedded, scope, disk)
  const known = verdicts.get(bit, value)
  if (known !== undefined) return known === false ? undefined : known
  const consulted = diskConsultations()
  const issue = checkCandidate(value, role, embedded, scope, disk)
  if (diskConsultations() === consulted) verdicts.set(bit, value, issue)
  return issue
}

const ROLE_BITS: Readonly<Record<ArgumentRole, number>> = {
  read: 0,
  write: 1,
  unknown: 2,
  command: 3,
  url: 4,
  inert: 5,
}
const ROLE_COUNT = 6

function checkCandidate(
  value: string,
  role: ArgumentRole,
  embedded: boolean,
  scope: PathScope,
  disk: DiskView | undefined,
): PlanIssue | undefined {
  // Reading the empty device (`diff -u /dev/null new.ts`) reads nothing; writing or deleting it
  // (`rm /dev/null` as root) is checked as any path outside the workspace.
  if (value === '/dev/null' && role === 'read') return undefined
  const pathLike = looksLikePath(value)
  // A word of a text value that does not look like a path is refused for nothing it resolves to.
  if (embedded && role === 'inert' && !pathLike) return undefined
  const write = role === 'write'
  const result = resolvePath(value, scope, write ? 'write' : 'read')
  const verb = write ? 'write' : 'read'
  if (typeof result !== 'string') {
    if (!pathLike && result.code !== 'path_not_allowed') return undefined
    // Text (a pattern, a message, a URL's words) only counts where it names a protected path.
    if ((role === 'inert' || (embedded && role === 'url')) && result.code !== 'path_not_allowed')
      return undefined
    return pathIssue(value, verb, result.code, result.message, result.hint)
  }
  if (role === 'unknown' || role === 'command' || write) {
    const codePart = codePartWritten(result, scope, disk)
    if (codePart !== undefined)
      return pathIssue(
        value,
        write ? 'write' : 'use',
        'path_not_allowed',
        `${result} is ${codePart === result ? '' : `in ${codePart}, `}a code-running part of a git repository (${REPOSITORY_CODE_PATHS.join(', ')}, or a .git entry), which no command may write.`,
        'Change the repository through git subcommands (add, commit, branch, tag); never write its configuration, hooks or .git entries.',
      )
  }
  if (role === 'unknown' || role === 'command') {
    const readOnly = scope.readOnly.find((entry) => isWithin(entry, result))
    if (readOnly !== undefined) {
      return pathIssue(
        value,
        'use',
        'path_not_allowed',
        `${placeInList(result, readOnly, 'workspace.readOnly')}, and the checker does not know that this position only reads.`,
        `Name read-only paths only where the program reads (e.g. cat ${JSON.stringify(value)}).`,
      )
    }
  }
  if (write) {
    const root = scope.roots.find((entry) => entry === result)
    const held = [...scope.deny, ...scope.readOnly].find(
      (entry) => entry !== result && isWithin(result, entry),
    )
    if (root !== undefined || held !== undefined) {
      return pathIssue(
        value,
        'write',
        'path_not_allowed',
        root !== undefined
          ? `${result} is a workspace root; writing or deleting it touches every protected path.`
          : `${result} holds ${held}, which the policy protects.`,
        'Name the files or folders to change, not a folder that holds protected paths.',
      )
    }
  }
  return undefined
}

/**
 * The code-running part of a repository a written path is or lies in: by name below a `.git`
 * segment, or, with the disk, below a bare repository's folder inside the workspace.
 */
function codePartWritten(
  path: string,
  scope: PathScope,
  disk: DiskView | undefined,
): string | undefined {
  const named = repositoryCodePart(path)
  if (named !== undefined || disk === undefined || !CODE_PART_SEGMENT.test(path)) return named
  const root = scope.roots.find((entry) => isWithin(entry, path))
  if (root === undefined) return undefined
  const parts: string[] = []
  for (let current = path; current !== root && current !== '/'; ) {
    const parent = posix.dirname(current)
    parts.unshift(current.slice(current.lastIndexOf('/') + 1))
    const part = codePartBelow(parts)
    if (part !== undefined && looksLikeGitDirectory(parent, disk))
      return `${parent === '/' ? '' : parent}/${part}`
    current = parent
  }
  return undefined
}

// A segment that starts a code-running part: only such paths can lie in a bare repository's.
const CODE_PART_SEGMENT = new RegExp(
  `/(${[...new Set(REPOSITORY_CODE_PATHS.map((part) => part.split('/')[0]))].join('|').replace(/\./g, '\\.')})(/|$)`,
)

let disk: DiskView | undefined | null = null

/** The checking process's own file system, when it has one (`node:fs`). */
export function localDisk(): DiskView | undefined {
  if (disk !== null) return disk
  const fs = nodeBuiltin<{ existsSync(path: string): boolean }>('node:fs')
  disk =
    fs === undefined
      ? undefined
      : {
          exists: (path) => {
            const ask = () => fs.existsSync(path)
            const answer = ask()
            noteDiskConsulted(ask, answer)
            return answer
          },
        }
  return disk
}

function pathIssue(
  value: string,
  verb: string,
  code: PlanIssue['code'],
  message: string,
  hint: string,
): PlanIssue {
  return {
    code,
    message: `The argument ${JSON.stringify(value)} is a path the command may not ${verb}: ${message}`,
    path: [],
    hint,
  }
}

// Arguments that are a script or a program, not a path: sed scripts, awk programs.
function codeArguments(
  name: string,
  args: readonly string[],
): { skip: ReadonlySet<string>; programRole?: string } {
  if (name === 'sed' || name === 'gsed') {
    const parsed = parseSedArguments(args)
    return { skip: new Set(parsed.scripts), programRole: parsed.inPlace ? 'sed -i' : 'sed' }
  }
  if (AWK.has(name)) return { skip: new Set(parseAwkArguments(args).programs), programRole: 'awk' }
  return { skip: NO_CODE_ARGUMENTS }
}

const NO_CODE_ARGUMENTS: ReadonlySet<string> = new Set()
