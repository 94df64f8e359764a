import { checkPathLexical, type PathAccess, type PathScope } from '../checks/path-scope.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import { parseAwkArguments } from './parse-awk-arguments.js'
import { parseSedArguments } from './parse-sed-arguments.js'

// Programs whose operands are files they read.
const READERS = new Set([
  'cat',
  'tac',
  'head',
  'tail',
  'less',
  'more',
  'bat',
  'batcat',
  'nl',
  'wc',
  'sort',
  'uniq',
  'cut',
  'paste',
  'join',
  'comm',
  'od',
  'xxd',
  'hexdump',
  'hd',
  'strings',
  'file',
  'stat',
  'ls',
  'dir',
  'tree',
  'du',
  'diff',
  'cmp',
  'md5sum',
  'sha1sum',
  'sha224sum',
  'sha256sum',
  'sha384sum',
  'sha512sum',
  'b2sum',
  'cksum',
  'base64',
  'base32',
  'fold',
  'fmt',
  'column',
  'expand',
  'unexpand',
  'iconv',
  'readlink',
  'realpath',
  'zcat',
  'bzcat',
  'xzcat',
  'zstdcat',
  'lz4cat',
  'find',
  'source-highlight',
  'pr',
  'split',
  'csplit',
  'shuf',
  'tsort',
  'look',
  'vi',
  'vim',
  'nano',
  'emacs',
  'code',
  'jq',
  'yq',
  'grep',
  'egrep',
  'fgrep',
  'zgrep',
  'rg',
  'ag',
  'ack',
])
// Readers whose first operand is a pattern or program, not a file (unless -e/-f gives it).
const PATTERN_FIRST = new Set(['grep', 'egrep', 'fgrep', 'zgrep', 'rg', 'ag', 'ack', 'jq', 'yq'])
const AWK = new Set(['awk', 'gawk', 'mawk', 'nawk'])
// Programs whose operands are files they create, change or delete.
const WRITERS = new Set([
  'rm',
  'rmdir',
  'touch',
  'mkdir',
  'mv',
  'chmod',
  'chown',
  'chgrp',
  'truncate',
  'shred',
  'unlink',
  'tee',
  'mkfifo',
  'mknod',
  'setfacl',
  'chattr',
])
// Programs whose last operand is written and the others read.
const COPIERS = new Set(['cp', 'ln', 'install', 'rsync', 'scp'])
// Long options whose value is written.
const WRITE_OPTIONS =
  /^--(output|out|outfile|output-file|output-document|log-file|logfile|dump|save)$/

const URL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//
const SHORT_OPTION = /^-[A-Za-z0-9]/

/**
 * True when a word looks like a file path: absolute, `~…`, `.`/`..` or containing a `..`
 * segment, a `file://` URL, or containing `/` without spaces or backslashes (so that commit
 * messages and regexes are not mistaken for paths).
 */
export function looksLikePath(value: string): boolean {
  if (value.startsWith('/') || value.startsWith('~')) return true
  if (value === '.' || value === '..' || value.startsWith('./') || value.startsWith('../'))
    return true
  if (value.includes('/../') || value.endsWith('/..')) return true
  if (URL.test(value)) return value.toLowerCase().startsWith('file:')
  return value.includes('/') && !/[\s\\]/.test(value)
}

interface Candidate {
  readonly value: string
  readonly access: PathAccess
}

/**
 * Checks the path-like arguments of an allowed command against the workspace: every word that
 * looks like a path (also the value part of `--flag=value`, `-xVALUE` and `key=value`), and
 * every operand of programs known to read or write files (cat, ls, grep, rm, cp, sed -i …).
 */
export function checkCommandPaths(
  name: string,
  args: readonly string[],
  scope: PathScope,
): PlanIssue[] {
  const candidates = new Map<string, Candidate>()
  const code = codeArguments(name, args)
  const add = (value: string, access: PathAccess) => {
    if (value.length === 0 || code.has(value)) return
    const known = candidates.get(value)
    // The same word seen twice is checked once, for the stronger access.
    candidates.set(value, { value, access: known?.access === 'write' ? 'write' : access })
  }
  for (const argument of args) {
    if (argument.startsWith('--')) {
      const equals = argument.indexOf('=')
      if (equals !== -1) {
        const value = argument.slice(equals + 1)
        const access = WRITE_OPTIONS.test(argument.slice(0, equals)) ? 'write' : 'read'
        if (looksLikePath(value)) add(value, access)
      }
      continue
    }
    if (SHORT_OPTION.test(argument) && argument.length > 2) {
      // The value may start after any letter of a cluster (-xvf/etc/x): try every split.
      for (let position = 2; position < argument.length; position += 1) {
        const value = argument.slice(position)
        if (looksLikePath(value)) add(value, 'read')
        if (!/[A-Za-z0-9]/.test(argument[position] as string)) break
      }
      continue
    }
    if (looksLikePath(argument)) add(argument, 'read')
    const equals = argument.indexOf('=')
    if (equals > 0 && !argument.startsWith('-')) {
      const value = argument.slice(equals + 1)
      if (looksLikePath(value)) add(value, 'read')
    }
  }
  for (const operand of operandsOf(name, args)) add(operand.value, operand.access)
  const issues: PlanIssue[] = []
  for (const candidate of candidates.values()) {
    const target = candidate.value.toLowerCase().startsWith('file://')
      ? candidate.value.slice(7)
      : candidate.value
    const result = checkPathLexical(target, scope, candidate.access)
    if (result.allowed) continue
    // A bare operand such as a grep pattern is only refused where it names a real place.
    if (result.issue.code === 'path_invalid' && !looksLikePath(candidate.value)) continue
    issues.push({
      code: result.issue.code,
      message: `The argument ${JSON.stringify(candidate.value)} is a path the command may not ${candidate.access === 'write' ? 'write' : 'read'}: ${result.issue.message}`,
      path: [],
      hint: result.issue.hint,
    })
  }
  return issues
}

// Arguments that are a script or a pattern, not a path: sed scripts, awk programs, grep patterns.
function codeArguments(name: string, args: readonly string[]): ReadonlySet<string> {
  if (name === 'sed' || name === 'gsed') return new Set(parseSedArguments(args).scripts)
  if (AWK.has(name)) return new Set(parseAwkArguments(args).programs)
  if (PATTERN_FIRST.has(name) && !patternGiven(args)) {
    const first = args.find((argument) => !argument.startsWith('-'))
    if (first !== undefined) return new Set([first])
  }
  return new Set()
}

function patternGiven(args: readonly string[]): boolean {
  return args.some((argument) => /^-[A-Za-z]*[ef]|^--(regexp|file)/.test(argument))
}

function operandsOf(
  name: string,
  args: readonly string[],
): { value: string; access: PathAccess }[] {
  if (name === 'sed' || name === 'gsed') {
    const parsed = parseSedArguments(args)
    return parsed.files.map((value) => ({ value, access: parsed.inPlace ? 'write' : 'read' }))
  }
  if (AWK.has(name)) {
    return parseAwkArguments(args).files.map((value) => ({ value, access: 'read' }))
  }
  const end = args.indexOf('--')
  const operands = args.filter(
    (argument, index) =>
      (end !== -1 && index > end) || (!argument.startsWith('-') && index !== end),
  )
  if (READERS.has(name)) {
    const files = PATTERN_FIRST.has(name) && !patternGiven(args) ? operands.slice(1) : operands
    return files.map((value) => ({ value, access: 'read' }))
  }
  if (WRITERS.has(name)) return operands.map((value) => ({ value, access: 'write' }))
  if (COPIERS.has(name)) {
    return operands.map((value, index) => ({
      value,
      access: index === operands.length - 1 ? 'write' : 'read',
    }))
  }
  return []
}
