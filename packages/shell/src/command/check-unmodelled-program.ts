import type { PlanIssue } from '../types/plan-issue.js'
import { allowExecSentence, quoted } from './command-hints.js'
import { commandIssue } from './command-issue.js'
import { programKind, programName } from './program-catalog.js'

/**
 * For a program the catalog does not model: refuses an argument whose first word names a
 * shell, interpreter, wrapper or dangerous program (`aa-exec sh`, `--up 'sh -s'`,
 * `-e 'exec sh #'`), since such a program may well run it. Its other flags are guarded only by
 * the sandbox.
 */
export function checkUnmodelledProgram(word: string, args: readonly string[]): PlanIssue[] {
  for (const argument of args) {
    const equals = argument.startsWith('-') ? argument.indexOf('=') : -1
    const value = equals === -1 ? argument : argument.slice(equals + 1)
    for (const part of value.split(/[,;]/)) {
      const first = part
        .trim()
        .replace(/^['"%({]+/, '')
        .split(/[\s'"=)]/)[0]
      // A bare name or an absolute path (/bin/sh); src/command is a file, not the program.
      // `.` is a folder here (tsc -p .), not the `source` builtin.
      if (first === undefined || first === '.' || first === '..' || /^[^/].*\//.test(first))
        continue
      const kind = programKind(programName(first))
      if (kind === undefined || (argument.startsWith('-') && equals === -1)) continue
      return [
        commandIssue(
          'command_inline_code',
          `${quoted(word)} is given the program ${quoted(first)} (${kind}) as an argument, and the checker has no model of how ${quoted(word)} uses it.`,
          `Run the program you need directly, in its own step. ${allowExecSentence(word)}`,
        ),
      ]
    }
  }
  return []
}
