import type { StringKind } from './arg-spec-from-json-schema.js'

/** Last words of property names that hold paths (`path`, `filePath`, `source_dir`, …). */
const PATH_WORDS = new Set(
  'path paths file files filename filepath dir dirs directory directories folder source destination dest target cwd root'.split(
    ' ',
  ),
)
const COMMAND_NAME = /^(command|cmd|commandline|command_line|shell_command|script)$/i
const WRITING_TOOL =
  /(write|edit|create|delete|remove|move|rename|mkdir|update|save|append|put|patch|upload|copy|touch)/i

/** True when the last word of a property name (camelCase, snake_case or kebab-case) names a path. */
function isPathName(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\s_-]+/)
  return PATH_WORDS.has((words[words.length - 1] ?? '').toLowerCase())
}

/**
 * Guesses from names which string arguments are commands (`command`, `cmd`, …) and which are
 * paths (`path`, `filePath`, `source_dir`, or `format: "path"`), with `write` access when the
 * tool's name says it changes files (`write_file`, `move_file`), else `read`.
 */
export function kindFromName(toolName: string, argumentName: string): StringKind {
  const access = WRITING_TOOL.test(toolName) ? 'write' : 'read'
  return (node) => {
    if (COMMAND_NAME.test(argumentName)) return { type: 'command' }
    if (isPathName(argumentName) || node.format === 'path') return { type: 'path', access }
    return undefined
  }
}
