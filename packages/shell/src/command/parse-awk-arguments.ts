import { stringAt } from '../util/item-at.js'

/** The parts of an awk command line. */
export interface AwkArguments {
  /** Program texts: the first operand, or the values of -e/--source. */
  readonly programs: readonly string[]
  /** Input files (operands that are not NAME=value assignments). */
  readonly files: readonly string[]
  /** Options that load or write code or files the check cannot see (-f, -E, -i, -l, -o, -p, -d, -D). */
  readonly unsafeOptions: readonly string[]
}

const SHORT_WITH_VALUE = new Set(['F', 'v', 'f', 'e', 'E', 'i', 'l', 'W'])
// -W values (mawk, gawk) that neither load code nor name a file.
const SAFE_W =
  /^(version|v|usage|help|posix_space|posix|traditional|lint|interactive|dump|sprintf=\d+|random=\d+)$/
const UNSAFE_SHORT = new Set(['f', 'E', 'i', 'l', 'o', 'p', 'd', 'D'])
const LONG_UNSAFE = [
  '--file',
  '--exec',
  '--include',
  '--load',
  '--pretty-print',
  '--profile',
  '--dump-variables',
  '--debug',
]
const LONG_WITH_VALUE = [
  '--field-separator',
  '--assign',
  '--file',
  '--source',
  '--exec',
  '--include',
  '--load',
]
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

/** Splits an awk command line (POSIX awk, gawk, mawk) into programs, files and unsafe options. */
export function parseAwkArguments(args: readonly string[]): AwkArguments {
  const programs: string[] = []
  const operands: string[] = []
  const unsafeOptions: string[] = []
  let explicitProgram = false
  for (let index = 0; index < args.length; index += 1) {
    const argument = stringAt(args, index)
    if (argument === '--') {
      operands.push(...args.slice(index + 1))
      break
    }
    if (argument.startsWith('--')) {
      const equals = argument.indexOf('=')
      const name = equals === -1 ? argument : argument.slice(0, equals)
      if (name.length < 3) continue
      const unsafe = LONG_UNSAFE.find((flag) => flag.startsWith(name))
      if (unsafe !== undefined) {
        unsafeOptions.push(unsafe)
        explicitProgram = explicitProgram || unsafe === '--file' || unsafe === '--exec'
      }
      const long = LONG_WITH_VALUE.find((flag) => flag.startsWith(name))
      if (long === undefined) continue
      const value = equals === -1 ? (args[index + 1] ?? '') : argument.slice(equals + 1)
      if (equals === -1) index += 1
      if (long === '--source') {
        programs.push(value)
        explicitProgram = true
      }
      continue
    }
    if (argument.startsWith('-') && argument.length > 1) {
      for (let position = 1; position < argument.length; position += 1) {
        const letter = argument.charAt(position)
        if (UNSAFE_SHORT.has(letter)) {
          unsafeOptions.push(`-${letter}`)
          if (letter === 'f' || letter === 'E') explicitProgram = true
        }
        if (SHORT_WITH_VALUE.has(letter)) {
          const rest = argument.slice(position + 1)
          const value = rest.length > 0 ? rest : (args[index + 1] ?? '')
          if (rest.length === 0) index += 1
          if (letter === 'e') {
            programs.push(value)
            explicitProgram = true
          } else if (letter === 'W' && !SAFE_W.test(value)) {
            // -W exec FILE, -We, -W source=…, -W file=…: code the check cannot read.
            unsafeOptions.push(`-W ${value}`)
            explicitProgram = true
          }
          break
        }
      }
      continue
    }
    operands.push(argument)
  }
  if (!explicitProgram && operands.length > 0) programs.push(...operands.splice(0, 1))
  return { programs, files: operands.filter((operand) => !ASSIGNMENT.test(operand)), unsafeOptions }
}
