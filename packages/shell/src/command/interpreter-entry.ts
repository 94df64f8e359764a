import { resolvePath } from '../checks/path-scope.js'
import type { PathScope } from '../types/path-scope.js'
import { stringAt } from '../util/item-at.js'
import { bounded, quoted } from './command-hints.js'
import {
  NODE_INFO,
  NODE_REPORTERS,
  NODE_SAFE,
  NODE_SAFE_WITH_VALUE,
  NODE_TEST_OPTIONS,
} from './programs/node.js'
import { PYTHON_INFO, PYTHON_RUNNERS, PYTHON_SAFE, PYTHON_X_SAFE } from './programs/python.js'
import { findFlag } from './uses-flag.js'

/**
 * What an allowed interpreter is asked to run: refused with a reason, or a script file of the
 * workspace, or an entry point (`python -m pytest`, `node --test`) whose remaining words are
 * checked by the runner's own model, as if that program had been run directly.
 */
export type InterpreterEntry =
  | { readonly refused: string; readonly module?: string }
  | { readonly runner?: readonly string[] }

/** True for the python interpreters (`python`, `python3`, `python3.12`, `pypy3`). */
export function isPythonName(name: string): boolean {
  return /^(python|pypy)[0-9.]*$/.test(name)
}

/** True for node (`node`, `nodejs`, `node22`). */
export function isNodeName(name: string): boolean {
  return /^node(js)?[0-9.]*$/.test(name)
}

/**
 * Reads a python or node command the policy allows without a rule: options that load no code,
 * then a script file inside the workspace, an entry-point module, `node --test`, or only
 * `--version`. Inline code, stdin, interactive prompts, loaders, preloaded modules, env files
 * and options the checker does not know are refused.
 */
export function readInterpreterEntry(
  name: string,
  args: readonly string[],
  scope: PathScope,
): InterpreterEntry {
  return isPythonName(name) ? readPython(name, args, scope) : readNode(name, args, scope)
}

function readPython(name: string, args: readonly string[], scope: PathScope): InterpreterEntry {
  let index = 0
  for (; index < args.length; index += 1) {
    const argument = stringAt(args, index)
    if (PYTHON_SAFE.has(argument)) continue
    if (PYTHON_INFO.has(argument)) return {}
    if (argument === '-W' || argument === '-X') {
      const why = pythonOptionValue(name, argument, args[index + 1])
      if (why !== undefined) return { refused: why }
      index += 1
      continue
    }
    if (/^-[WX]./.test(argument)) {
      const why = pythonOptionValue(name, argument.slice(0, 2), argument.slice(2))
      if (why !== undefined) return { refused: why }
      continue
    }
    break
  }
  const argument = args[index]
  if (argument === undefined || argument === '-')
    return { refused: `${name} without a script reads code from stdin.` }
  if (argument === '-m' || /^-m[A-Za-z_]/.test(argument)) {
    const module = argument === '-m' ? (args[index + 1] ?? '') : argument.slice(2)
    const runner = Object.hasOwn(PYTHON_RUNNERS, module) ? PYTHON_RUNNERS[module] : undefined
    const rest = args.slice(index + (argument === '-m' ? 2 : 1))
    if (runner === undefined)
      return {
        refused: `${name} -m ${quoted(module)} runs a module the checker has no model of.`,
        module,
      }
    return { runner: [...runner.split(' '), ...rest] }
  }
  if (argument.startsWith('-')) return { refused: unknownOption(name, argument) }
  return scriptEntry(name, argument, scope)
}

// `-W action:message:category:module:line` imports the category's module; `-X` takes a name.
function pythonOptionValue(
  name: string,
  option: string,
  value: string | undefined,
): string | undefined {
  if (value === undefined) return `${name} ${option} needs a value.`
  if (option === '-X')
    return PYTHON_X_SAFE.test(value)
      ? undefined
      : `${name} -X ${quoted(value)} is not an option the checker knows to load no code.`
  const category = value.split(':')[2] ?? ''
  return category.includes('.')
    ? `${name} -W ${quoted(value)} names the warning category ${quoted(category)}, which python imports.`
    : undefined
}

function readNode(name: string, args: readonly string[], scope: PathScope): InterpreterEntry {
  let index = 0
  for (; index < args.length; index += 1) {
    const argument = stringAt(args, index)
    if (NODE_SAFE.has(argument)) continue
    if (NODE_INFO.has(argument)) return {}
    const option = stringAt(argument.split('='), 0)
    if (NODE_SAFE_WITH_VALUE.has(option)) {
      if (!argument.includes('=')) index += 1
      continue
    }
    break
  }
  const argument = args[index]
  if (argument === undefined || argument === '-')
    return { refused: `${name} without a script reads code from stdin.` }
  if (argument === '--test') return readNodeTest(name, args.slice(index + 1))
  if (argument === '--check' || argument === '-c') return readNodeCheck(name, args, index)
  if (argument.startsWith('-')) return { refused: unknownOption(name, argument) }
  return scriptEntry(name, argument, scope)
}

/**
 * `node --check FILE` parses the file and runs nothing of it; only the options that load no code
 * may come before it, and only the one file after it (an option after it could preload a module).
 */
function readNodeCheck(name: string, args: readonly string[], index: number): InterpreterEntry {
  const rest = args.slice(index + 1)
  const file = rest[0]
  if (rest.length === 1 && file !== undefined && !file.startsWith('-')) return {}
  return {
    refused: `${name} ${stringAt(args, index)} checks exactly one script file, named after it.`,
  }
}

// `node --test [options] [files]`: the runner's options are checked by role; files are read.
function readNodeTest(name: string, rest: readonly string[]): InterpreterEntry {
  for (let index = 0; index < rest.length; index += 1) {
    const argument = stringAt(rest, index)
    if (argument === '--') break
    if (!argument.startsWith('-')) continue
    const option = stringAt(argument.split('='), 0)
    const takesValue = Object.hasOwn(NODE_TEST_OPTIONS, option)
      ? NODE_TEST_OPTIONS[option]
      : undefined
    if (takesValue === undefined) {
      if (NODE_SAFE.has(argument)) continue
      return { refused: unknownOption(`${name} --test`, argument) }
    }
    if (!takesValue) continue
    const value = argument.includes('=') ? argument.slice(option.length + 1) : rest[index + 1]
    if (!argument.includes('=')) index += 1
    if (option === '--test-reporter' && !NODE_REPORTERS.has(value ?? ''))
      return {
        refused: `${name} --test-reporter=${quoted(value ?? '')} names a reporter module, which node imports.`,
      }
  }
  return {}
}

function scriptEntry(name: string, script: string, scope: PathScope): InterpreterEntry {
  const resolved = resolvePath(script, scope, 'read')
  if (typeof resolved !== 'string')
    return {
      refused: `${name} ${quoted(script)} is not a script file inside the workspace: ${resolved.message}`,
    }
  return {}
}

function unknownOption(name: string, argument: string): string {
  const code = findFlag(argument, [
    '-e',
    '--eval',
    '-p',
    '--print',
    '-c',
    '-r',
    '--require',
    '--import',
    '--loader',
    '--experimental-loader',
    '-i',
    '--interactive',
  ])
  return code !== undefined
    ? `${name} ${bounded(argument)} runs inline code or loads a module before the script.`
    : `${name} ${bounded(argument)} is an option the checker has no role for, so it is treated as one that loads code.`
}
