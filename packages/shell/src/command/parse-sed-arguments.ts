import { stringAt } from '../util/item-at.js'

/** The parts of a sed command line. */
export interface SedArguments {
  /** Scripts given with -e/--expression, or the first operand. */
  readonly scripts: readonly string[]
  /** Input files. */
  readonly files: readonly string[]
  /** -i/--in-place: the files are rewritten. */
  readonly inPlace: boolean
  /** -f/--file: a script file, which cannot be checked. */
  readonly scriptFile: boolean
}

const LONG_WITH_VALUE = ['--expression', '--file', '--line-length']

/** Splits a sed command line (GNU and BSD options) into scripts, files and modes. */
export function parseSedArguments(args: readonly string[]): SedArguments {
  const scripts: string[] = []
  const operands: string[] = []
  let inPlace = false
  let scriptFile = false
  let explicitScript = false
  for (let index = 0; index < args.length; index += 1) {
    const argument = stringAt(args, index)
    if (argument === '--') {
      operands.push(...args.slice(index + 1))
      break
    }
    if (argument.startsWith('--')) {
      const equals = argument.indexOf('=')
      const name = equals === -1 ? argument : argument.slice(0, equals)
      const long =
        name.length >= 3 ? LONG_WITH_VALUE.find((flag) => flag.startsWith(name)) : undefined
      const inline = equals === -1 ? undefined : argument.slice(equals + 1)
      if ('--in-place'.startsWith(name) && name.length >= 4) inPlace = true
      if (long === undefined) continue
      const value = inline ?? args[index + 1] ?? ''
      if (inline === undefined) index += 1
      if (long === '--expression') {
        scripts.push(value)
        explicitScript = true
      } else if (long === '--file') {
        scriptFile = true
        explicitScript = true
      }
      continue
    }
    if (argument.startsWith('-') && argument.length > 1) {
      for (let position = 1; position < argument.length; position += 1) {
        const letter = argument[position]
        if (letter === 'i') {
          inPlace = true
          break
        }
        if (letter === 'e' || letter === 'f' || letter === 'l') {
          const rest = argument.slice(position + 1)
          const value = rest.length > 0 ? rest : (args[index + 1] ?? '')
          if (rest.length === 0) index += 1
          if (letter === 'e') {
            scripts.push(value)
            explicitScript = true
          } else if (letter === 'f') {
            scriptFile = true
            explicitScript = true
          }
          break
        }
      }
      continue
    }
    operands.push(argument)
  }
  if (!explicitScript && operands.length > 0) scripts.push(...operands.splice(0, 1))
  return { scripts, files: operands, inPlace, scriptFile }
}
