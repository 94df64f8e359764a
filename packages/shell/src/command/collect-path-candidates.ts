import { stringAt, valueAt } from '../util/item-at.js'
import { type ArgumentRole, type OperandRoles, programRoles, valueRoles } from './argument-roles.js'

/** A value of a command line that may name a file, with the role of its position. */
export interface PathCandidate {
  readonly value: string
  readonly role: ArgumentRole
  /** True for a word of a multi-word value (a message, a script, an option list). */
  readonly embedded: boolean
}

/** What the candidates of one command line are, and the words that could not be read. */
export interface PathCandidates {
  readonly candidates: readonly PathCandidate[]
  /** Option words with more possible values than the check follows. */
  readonly unreadable: readonly string[]
}

/** Most values tried inside one short-option cluster before the word is refused. */
export const MAX_CLUSTER_VALUES = 16

const PREFIXED =
  /^(?:open|create|gopen|file|pipe|unix-connect|unix-listen|unix-client|unix-sendto|unix-recv|readline|system|exec):/i
// `TYPE:PATH` values (pytest --cov-report=xml:/out/cov.xml): a word, a colon, then a path.
const TYPED_PATH = /^[A-Za-z][\w-]+:(?=[/.~])(?!\/\/)/
const FILE_URL = /^file:(?:\/\/(?:localhost)?(?=\/))?/i
const PATH_START = new Set(['/', '.', '~', '@'])
const STRENGTH: readonly ArgumentRole[] = ['write', 'unknown', 'command', 'read', 'url', 'inert']

// A regular expression scans a long value much faster than a loop of charCodeAt calls, which
// pay for the string's representation (sliced, concatenated) on every character.
const PREFIX_CHARACTER = /[=@<:]/
const WHITESPACE = /\s/

/** True when the value holds `=`, `@`, `<` or `:`, which every known prefix starts at or holds. */
function hasPrefixCharacter(value: string): boolean {
  return PREFIX_CHARACTER.test(value)
}

function hasWhitespace(value: string): boolean {
  return WHITESPACE.test(value)
}

/** The values a word may hand to the program as a path: itself, and behind known prefixes. */
export function unwrapValue(value: string): string[] {
  // Every prefix below starts at or holds one of these characters.
  if (!hasPrefixCharacter(value)) return [value]
  const values = [value]
  let rest = value
  const assignment = /^[A-Za-z_][\w.-]*=/.exec(rest)
  if (assignment !== null) {
    rest = rest.slice(assignment[0].length)
    values.push(rest)
  }
  if (rest.startsWith('@') || rest.startsWith('<')) rest = rest.slice(1)
  const inner = /=[@<]/.exec(rest)
  if (inner !== null) rest = rest.slice(inner.index + 2)
  const url = FILE_URL.exec(rest)
  if (url !== null) rest = rest.slice(url[0].length)
  else if (PREFIXED.test(rest) || TYPED_PATH.test(rest)) rest = rest.slice(rest.indexOf(':') + 1)
  if (rest !== values[values.length - 1] && rest.length > 0) {
    values.push(rest)
    const cut = rest.search(/[;,]/)
    if (cut > 0) values.push(rest.slice(0, cut))
  }
  // The innermost value first: it is what the program opens.
  return values.reverse()
}

/**
 * Collects every value of a command line that may name a file, with the role the program's
 * table gives its position: operands, `--opt=v`, `-o=v`, attached short values (`-ov`, every
 * split of an unknown cluster that starts a path or a protected name), separate values of
 * known options, `key=value` values, values behind `@`, `file:` and socat-style prefixes, and
 * the words of multi-word values. `skip` holds values that are code (sed scripts, awk programs).
 */
export function collectPathCandidates(
  name: string,
  input: readonly string[],
  skip: ReadonlySet<string>,
  protectedNames: readonly string[],
): PathCandidates {
  const roles = programRoles(name)
  // tar's old-style first word is an option cluster without a dash (tar cf out.tar src).
  const args =
    roles?.bareOptions === true && /^[A-Za-z]+$/.test(input[0] ?? '')
      ? [`-${input[0]}`, ...input.slice(1)]
      : input
  const values = valueRoles(roles, args)
  const candidates: PathCandidate[] = []
  const unreadable: string[] = []
  const push = (value: string, role: ArgumentRole, embedded: boolean) => {
    if (!hasPrefixCharacter(value)) candidates.push({ value, role, embedded })
    else
      for (const unwrapped of unwrapValue(value))
        candidates.push({ value: unwrapped, role, embedded })
  }
  const add = (value: string | undefined, role: ArgumentRole) => {
    if (value === undefined || value.length === 0 || skip.has(value) || role === 'command') return
    push(value, role, false)
    if (!hasWhitespace(value)) return
    for (const token of value.split(/[\s'"=,;()]+/)) if (token.length > 0) push(token, role, true)
  }
  const operands: string[] = []
  const end = args.indexOf('--')
  for (let index = 0; index < args.length; index += 1) {
    const argument = stringAt(args, index)
    if (end !== -1 && index >= end) {
      if (index > end) operands.push(argument)
      continue
    }
    if (argument.startsWith('-') && argument.length > 1) {
      const option = readOption(argument, args[index + 1], values, protectedNames)
      if (option === undefined) unreadable.push(argument)
      else {
        for (const found of option.values) add(found.value, found.role)
        index += option.consumed
      }
      continue
    }
    if (skip.has(argument)) continue
    const equals = argument.indexOf('=')
    if (equals > 0 && /^[A-Za-z_][\w.-]*$/.test(argument.slice(0, equals))) {
      const key = argument.slice(0, equals)
      const keyRole = roles?.keys !== undefined && Object.hasOwn(roles.keys, key)
      add(argument.slice(equals + 1), keyRole ? (roles?.keys?.[key] ?? 'unknown') : 'unknown')
      if (keyRole) continue
    }
    operands.push(argument)
  }
  const operandRoles = roles === undefined ? 'unknown' : resolveOperands(roles.operands, args)
  const patternFirst =
    roles?.patternFirst === true &&
    !args.some((argument) => /^-[A-Za-z]*[ef]|^--(regexp|file)/.test(argument))
  operands.forEach((operand, index) => {
    const role =
      patternFirst && index === 0 ? 'inert' : operandRole(operandRoles, index, operands.length)
    add(operand, role)
    // git names files in the object store as REV:PATH (git show HEAD:.env).
    const colon = operand.indexOf(':')
    if (name === 'git' && colon !== -1 && !operand.includes('://'))
      add(operand.slice(colon + 1), role === 'inert' ? 'inert' : 'read')
  })
  return { candidates, unreadable }
}

interface OptionValues {
  readonly values: readonly { readonly value: string | undefined; readonly role: ArgumentRole }[]
  /** 1 when the option took the next word as its value. */
  readonly consumed: 0 | 1
}

/**
 * The values one option word carries, with their roles: `--opt=v` and `--opt v` (unique
 * abbreviations too), an exact single-dash option (`-out v`), the first short letter the table
 * knows (`-ov`, `-o=v`, `-o v`), else every split of the cluster ({@link clusterValues}).
 * Undefined when the cluster has too many splits to follow.
 */
function readOption(
  argument: string,
  next: string | undefined,
  values: Readonly<Record<string, ArgumentRole>>,
  protectedNames: readonly string[],
): OptionValues | undefined {
  if (argument.startsWith('--') && argument.length > 2) {
    const equals = argument.indexOf('=')
    const role = longRole(equals === -1 ? argument : argument.slice(0, equals), values)
    if (equals !== -1)
      return {
        values: [{ value: argument.slice(equals + 1), role: role ?? 'unknown' }],
        consumed: 0,
      }
    if (role === undefined) return { values: [], consumed: 0 }
    // An abbreviation followed by another option is a flag of its own (node --test --test-…):
    // the next word is read as an option, not swallowed as this one's value.
    if (!Object.hasOwn(values, argument) && next?.startsWith('-') === true)
      return { values: [], consumed: 0 }
    return { values: [{ value: next, role }], consumed: 1 }
  }
  const exact = Object.hasOwn(values, argument) ? values[argument] : undefined
  if (exact !== undefined) return { values: [{ value: next, role: exact }], consumed: 1 }
  const taken = shortValue(argument, values)
  if (taken !== undefined) {
    return taken.attached
      ? { values: [{ value: argument.slice(taken.at), role: taken.role }], consumed: 0 }
      : { values: [{ value: next, role: taken.role }], consumed: 1 }
  }
  const splits = clusterValues(argument, protectedNames)
  if (splits === undefined) return undefined
  return { values: splits.map((value) => ({ value, role: 'unknown' as const })), consumed: 0 }
}

// A long option by name or unique abbreviation; an ambiguous abbreviation (curl --out: --output
// or --output-dir) takes the strongest of the roles it could mean.
function longRole(
  option: string,
  values: Readonly<Record<string, ArgumentRole>>,
): ArgumentRole | undefined {
  if (Object.hasOwn(values, option)) return values[option]
  if (option.length < 4) return undefined
  const found = longOptions(values)
    .filter((known) => known.startsWith(option))
    .map((known) => valueAt(values, known))
  return STRENGTH.find((role) => found.includes(role))
}

// The long options of each role table, listed once per table.
const LONG_OPTIONS = new WeakMap<Readonly<Record<string, ArgumentRole>>, readonly string[]>()

function longOptions(values: Readonly<Record<string, ArgumentRole>>): readonly string[] {
  let known = LONG_OPTIONS.get(values)
  if (known === undefined) {
    known = Object.keys(values).filter((option) => option.startsWith('--'))
    LONG_OPTIONS.set(values, known)
  }
  return known
}

function operandRole(roles: OperandRoles, index: number, count: number): ArgumentRole {
  switch (roles) {
    case 'last-write':
      return index === count - 1 && count > 1 ? 'write' : 'read'
    case 'second-write':
      return index === 1 ? 'write' : 'read'
    case 'first-read':
      return index === 0 ? 'read' : 'unknown'
    default:
      return roles
  }
}

function resolveOperands(
  operands: OperandRoles | ((args: readonly string[]) => OperandRoles),
  args: readonly string[],
): OperandRoles {
  return typeof operands === 'function' ? operands(args) : operands
}

// `-` and each ASCII character, the short options a cluster's letters stand for.
const SHORT_FLAGS: readonly string[] = Array.from(
  { length: 128 },
  (_, code) => `-${String.fromCharCode(code)}`,
)

// The first letter of a cluster that the table says takes a value: `-ofile`, `-vo file`.
function shortValue(
  argument: string,
  values: Readonly<Record<string, ArgumentRole>>,
): { role: ArgumentRole; attached: boolean; at: number } | undefined {
  for (let position = 1; position < argument.length; position += 1) {
    const code = argument.charCodeAt(position)
    const flag = code < SHORT_FLAGS.length ? stringAt(SHORT_FLAGS, code) : `-${argument[position]}`
    if (!Object.hasOwn(values, flag)) continue
    const role = valueAt(values, flag)
    let at = position + 1
    if (argument[at] === '=') at += 1
    return { role, attached: at < argument.length, at }
  }
  return undefined
}

/**
 * The values an unknown short-option cluster may carry: every suffix that starts with a path
 * character (`/ . ~ @`), follows an `=`, or starts with a protected name. Linear in the word's
 * length; undefined when there are more than {@link MAX_CLUSTER_VALUES}.
 */
function clusterValues(argument: string, protectedNames: readonly string[]): string[] | undefined {
  const starts = new Set<number>()
  for (let position = 2; position < argument.length; position += 1) {
    const char = argument.charAt(position)
    if (PATH_START.has(char) || argument[position - 1] === '=') starts.add(position)
    if (starts.size > MAX_CLUSTER_VALUES) return undefined
  }
  const equals = argument.indexOf('=')
  if (equals > 0) starts.add(equals + 1)
  for (const name of protectedNames) {
    let at = argument.indexOf(name, 2)
    while (at !== -1) {
      starts.add(at)
      if (starts.size > MAX_CLUSTER_VALUES) return undefined
      at = argument.indexOf(name, at + 1)
    }
  }
  if (starts.size === 0) return []
  return [...starts].filter((at) => at < argument.length).map((at) => argument.slice(at))
}
