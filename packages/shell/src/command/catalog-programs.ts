import { programsWithRoles } from './argument-roles.js'
import { programsWithBuiltinRules } from './check-builtin-rules.js'
import {
  DANGEROUS_PROGRAMS,
  INTERACTIVE_PROGRAMS,
  INTERPRETER_PROGRAMS,
  programKind,
  WRAPPER_PROGRAMS,
} from './program-catalog.js'

let known: ReadonlySet<string> | undefined

/**
 * True when the checker has a built-in model of the program (by normalised name): it is
 * always refused or guarded (dangerous, wrapper, interpreter, interactive), has built-in rules
 * for flags that run code, or has an argument-role table. Other allowed programs are checked
 * only generically; their flags are guarded by the sandbox alone.
 */
export function isCatalogProgram(name: string): boolean {
  known ??= new Set([
    ...DANGEROUS_PROGRAMS,
    ...WRAPPER_PROGRAMS,
    ...INTERPRETER_PROGRAMS,
    ...INTERACTIVE_PROGRAMS,
    ...programsWithBuiltinRules(),
    ...programsWithRoles(),
  ])
  return known.has(name) || programKind(name) !== undefined
}
