/**
 * Finds the awk features that run programs or touch files other than the operands:
 * `system()`, pipes (`|`, `|&`), output redirection (`>`, `>>`), `getline`, `@load` and
 * `@include`. String literals are skipped; everything else is read as code, so a `>` that is a
 * comparison is refused too (fail closed: `100 < $3` says the same as `$3 > 100`).
 * Returns a description of the first problem, or undefined when the program is harmless.
 */
export function checkAwkProgram(program: string): string | undefined {
  let code = ''
  for (let index = 0; index < program.length; index += 1) {
    const char = program[index] as string
    if (char === '"') {
      index += 1
      while (index < program.length && program[index] !== '"')
        index += program[index] === '\\' ? 2 : 1
      code += ' "" '
      continue
    }
    code += char
  }
  if (/\bsystem\s*\(/.test(code)) return 'system(), which runs a shell command'
  if (code.includes('|'))
    return 'a pipe (|), which runs a shell command (or a | in a regex: use grep -E instead)'
  if (/>(?!=)/.test(code))
    return 'a > (output redirection writes a file; write a comparison as 100 < $3)'
  if (/\bgetline\b/.test(code)) return 'getline, which reads a file or a command'
  if (/@\s*(load|include|namespace)\b/.test(code)) return '@load or @include, which loads code'
  return undefined
}
