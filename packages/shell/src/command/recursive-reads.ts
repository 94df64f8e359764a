import { isWithin, resolvePath } from '../checks/path-scope.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { stringAt } from '../util/item-at.js'
import { programRoles, valueRoles } from './argument-roles.js'
import { commandIssue } from './command-issue.js'
import { findSubcommand } from './global-options.js'
import { familyTable, programEntry } from './programs/program-families.js'
import { afterPattern } from './tree-sources.js'
import type { LinkLookup } from './workspace-links.js'

const TREE_READS = familyTable((family) => family.treeReads)

// git grep reads the work tree, untracked files included, with these.
const GIT_GREP_TREE = ['--untracked', '--no-index', '--no-exclude-standard']

/**
 * Refuses a command that reads a whole tree holding a denied path: recursive search
 * (`grep -r x .`, `rg -uuu x`, `git grep --untracked`), archivers and copiers of a folder
 * (`tar -czf out.tgz .`, `zip -r`, `cp -r . dst`, `rsync -a . dst`), `diff -r`. The operand is
 * allowed; what the program reads under it is not. ripgrep skips hidden files by default, so
 * without `-u`/`--hidden` a hidden denied path (`.env`) does not count.
 */
export function checkRecursiveReads(
  name: string,
  args: readonly string[],
  scope: PathScope,
  links?: LinkLookup,
): PlanIssue[] {
  if (scope.deny.length === 0) return []
  const tree = treeSources(name, args)
  if (tree === undefined) return []
  const issues: PlanIssue[] = []
  for (const source of tree.sources) {
    const resolved = resolvePath(source, scope, 'read')
    if (typeof resolved !== 'string') continue // the path check refuses it
    const held = heldDenied(resolved, scope.deny, tree.skipsHidden)
    if (held !== undefined) {
      issues.push(treeIssue(name, source, resolved, held))
      continue
    }
    // A link to a folder is read as the folder it leads to.
    const linked = links?.linkedTarget(source, resolved)
    if (linked === undefined || !linked.resolution.ok || links === undefined) continue
    const real = linked.resolution.real
    const heldReally = heldDenied(real, links.realScope.deny, tree.skipsHidden)
    if (heldReally === undefined) continue
    const issue = treeIssue(name, source, `through a symbolic link, ${real}`, heldReally)
    const link = linked.link === undefined ? JSON.stringify(source) : linked.link
    issues.push({
      ...issue,
      hint: `${link} is a symbolic link to ${linked.linkTarget ?? real}. ${issue.hint}`,
    })
  }
  return issues
}

// The denied path a folder holds below it (a hidden one only when the reader reads those).
function heldDenied(
  folder: string,
  deny: readonly string[],
  skipsHidden: boolean,
): string | undefined {
  return deny.find(
    (denied) =>
      denied !== folder &&
      isWithin(folder, denied) &&
      !(skipsHidden && isHiddenBelow(folder, denied)),
  )
}

function treeIssue(name: string, source: string, resolved: string, held: string): PlanIssue {
  return commandIssue(
    'path_not_allowed',
    `${name} reads every file under ${JSON.stringify(source)} (${resolved}), which holds the denied ${held}.`,
    `Name the folders to read, not one that holds a denied path (e.g. ${name} … src); only removing ${held} from workspace.deny would allow it.`,
  )
}

function treeSources(
  name: string,
  args: readonly string[],
): { sources: readonly string[]; skipsHidden: boolean } | undefined {
  if (name === 'git') {
    if (!args.some((argument) => GIT_GREP_TREE.includes(argument))) return undefined
    const position = findSubcommand('git', args)
    if (!('subcommand' in position) || position.subcommand !== 'grep') return undefined
    const rest = args.slice(position.index + 1)
    if (!rest.some((argument) => GIT_GREP_TREE.includes(argument))) return undefined
    const end = rest.indexOf('--')
    const paths = end === -1 ? afterPattern(operandsOf('git', rest), rest) : rest.slice(end + 1)
    return { sources: paths.length === 0 ? ['.'] : paths, skipsHidden: false }
  }
  const reader = programEntry(TREE_READS, name)
  if (reader === undefined || !reader.recursive(args)) return undefined
  const operands = operandsOf(name, args)
  return {
    sources: reader.sources(operands, args),
    skipsHidden: reader.skipsHidden?.(args) ?? false,
  }
}

// The operands of an argument list: words that are not options or the values of known ones.
function operandsOf(name: string, args: readonly string[]): string[] {
  const roles = programRoles(name)
  const values = valueRoles(roles, args)
  const operands: string[] = []
  for (let index = 0; index < args.length; index += 1) {
    const argument = stringAt(args, index)
    if (argument === '--') {
      operands.push(...args.slice(index + 1))
      break
    }
    if (!argument.startsWith('-') || argument === '-') {
      operands.push(argument)
      continue
    }
    if (argument.includes('=')) continue
    if (Object.hasOwn(values, argument)) index += 1
    else if (!argument.startsWith('--') && Object.hasOwn(values, `-${argument.at(-1)}`)) index += 1
  }
  return operands
}

function isHiddenBelow(folder: string, path: string): boolean {
  return path
    .slice(folder === '/' ? 1 : folder.length + 1)
    .split('/')
    .some((segment) => segment.startsWith('.'))
}
