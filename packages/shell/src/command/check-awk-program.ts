// After these tokens a `/` starts a regular expression; after an operand it divides.
const OPERAND_END = /[A-Za-z0-9_$)\]]$/
const REGEX_KEYWORDS = new Set(['print', 'printf', 'return', 'case', 'in', 'getline'])

/**
 * The code of an awk program with string literals, regular-expression literals and comments
 * replaced by blanks, read as awk's own lexer does: a `/` starts a regex where an operand is
 * expected, so a `"` inside `/"/` does not open a string that hides the code after it.
 */
export function awkCode(program: string): string {
  let code = ''
  let last = ''
  let index = 0
  while (index < program.length) {
    const char = program.charAt(index)
    if (char === '#') {
      while (index < program.length && program[index] !== '\n') index += 1
      continue
    }
    if (char === '"' || (char === '/' && startsRegex(last))) {
      index += 1
      while (index < program.length && program[index] !== char) {
        if (program[index] === '\n') break
        if (char === '/' && program[index] === '[') index = skipBracket(program, index)
        else index += program[index] === '\\' ? 2 : 1
      }
      index += 1
      code += ' "" '
      last = '""'
      continue
    }
    code += char
    if (!/\s/.test(char)) last = /[A-Za-z0-9_]/.test(char) ? `${last}${char}` : char
    else if (last !== '') last = `${last} `
    index += 1
  }
  return code
}

function startsRegex(last: string): boolean {
  const trimmed = last.trimEnd()
  if (trimmed === '') return true
  const word = /[A-Za-z_][A-Za-z0-9_]*$/.exec(trimmed)
  if (word !== null && REGEX_KEYWORDS.has(word[0])) return true
  return trimmed !== '""' && !OPERAND_END.test(trimmed)
}

// A bracket expression inside a regex may hold `/` and `]` as its first character.
function skipBracket(program: string, start: number): number {
  let index = start + 1
  if (program[index] === '^') index += 1
  if (program[index] === ']') index += 1
  while (index < program.length && program[index] !== ']' && program[index] !== '\n') index += 1
  return index + 1
}

/**
 * The `print` and `printf` statements of blanked code, each from its keyword to the `;` or `}`
 * that ends it. A newline is read as part of the statement: after a `,` or a `\` the statement
 * goes on, and reading too far only refuses more.
 */
function printStatements(code: string): string[] {
  const statements: string[] = []
  for (const match of code.matchAll(/\bprintf?\b/g)) {
    const rest = code.slice(match.index + match[0].length)
    const end = rest.search(/[;}]/)
    statements.push(end === -1 ? rest : rest.slice(0, end))
  }
  return statements
}

/**
 * Finds the awk features that run programs or touch files other than the operands:
 * `system()`, pipes (`|`, `|&`), output redirection (`>`, `>>`), `getline`, `@` directives and
 * gawk's indirect calls (`@name()`), and `ENVIRON`, `ARGV`, `ARGC`, `PROCINFO` (which read the
 * environment or change which files are read). Strings, regex literals and comments are
 * skipped as awk's lexer skips them; everything else is read as code. A `>` redirects only in a
 * `print` or `printf` statement, so one in a pattern or condition (`NR>1`, `if ($3 > 100)`) is a
 * comparison; any `>` from `print` to the end of its statement is refused, even a parenthesised
 * comparison (fail closed).
 * Returns a description of the first problem, or undefined when the program is harmless.
 */
export function checkAwkProgram(program: string): string | undefined {
  const code = awkCode(program)
  if (/\bsystem\s*\(/.test(code) || /\bsystem\b/.test(program))
    return 'system(), which runs a shell command'
  if (code.includes('|'))
    return 'a pipe (|), which runs a shell command (or a | in a regex: use grep -E instead)'
  if (printStatements(code).some((statement) => statement.includes('>')))
    return 'a > in a print statement (output redirection writes a file; compare before printing, as in $3 > 100 { print $1 })'
  if (/\bgetline\b/.test(code)) return 'getline, which reads a file or a command'
  if (code.includes('@'))
    return 'an @ directive or indirect call, which loads or calls code by name'
  if (/\b(ENVIRON|ARGV|ARGC|PROCINFO)\b/.test(code))
    return 'ENVIRON, ARGV, ARGC or PROCINFO, which read the environment or change the files read'
  return undefined
}
