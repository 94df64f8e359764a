/**
 * Finds the sed commands that run programs or touch files other than the operands: `e`,
 * `s///e`, `w`/`W`/`s///w` (write a file), `r`/`R` (read a file). The script is scanned
 * command by command; anything it cannot follow counts as a problem (fail closed).
 * Returns a description of the first problem, or undefined when the script is harmless.
 */
export function checkSedScript(script: string): string | undefined {
  let index = 0
  const length = script.length
  const at = (position: number) => script[position] ?? ''
  const skipSpace = () => {
    while (index < length && /[\s;]/.test(at(index))) index += 1
  }
  // Reads a delimited part (regex or replacement) ending at an unescaped delimiter.
  const readDelimited = (delimiter: string): boolean => {
    while (index < length) {
      const char = at(index)
      if (char === '\\') {
        index += 2
        continue
      }
      if (char === '\n' && delimiter !== '\n') return false
      index += 1
      if (char === delimiter) return true
    }
    return false
  }
  const readAddress = (): boolean => {
    const char = at(index)
    if (/[0-9]/.test(char)) {
      while (/[0-9~]/.test(at(index))) index += 1
      return true
    }
    if (char === '$') {
      index += 1
      return true
    }
    if (char === '/' || char === '\\') {
      let delimiter = '/'
      if (char === '\\') {
        delimiter = at(index + 1)
        index += 2
      } else {
        index += 1
      }
      if (delimiter === '' || !readDelimited(delimiter)) return false
      while (/[IM]/.test(at(index))) index += 1
      return true
    }
    return true
  }
  const toLineEnd = () => {
    while (index < length && at(index) !== '\n') index += 1
  }
  // GNU sed ends a label at whitespace as well as at `;` (`:a e id` runs `id`).
  const readLabel = () => {
    while (index < length && at(index) === ' ') index += 1
    while (index < length && !/[\s;}]/.test(at(index))) index += 1
  }
  while (true) {
    skipSpace()
    if (index >= length) return undefined
    if (at(index) === '#') {
      toLineEnd()
      continue
    }
    if (at(index) === '}') {
      index += 1
      continue
    }
    if (!readAddress()) return 'an address it cannot read'
    if (at(index) === ',') {
      index += 1
      if (at(index) === '+' || at(index) === '~') index += 1
      if (!readAddress()) return 'an address it cannot read'
    }
    while (at(index) === ' ' || at(index) === '\t') index += 1
    if (at(index) === '!') index += 1
    while (at(index) === ' ' || at(index) === '\t') index += 1
    const command = at(index)
    index += 1
    switch (command) {
      case '{':
      case '=':
      case 'd':
      case 'D':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
      case 'F':
        break
      case 'q':
      case 'Q':
      case 'l':
      case 'L':
        while (/[0-9 ]/.test(at(index))) index += 1
        break
      case 'a':
      case 'i':
      case 'c':
        // GNU one-line form: the text runs to the end of the line (escaped newlines continue it).
        while (index < length && at(index) !== '\n') index += at(index) === '\\' ? 2 : 1
        break
      case ':':
      case 'b':
      case 't':
      case 'T':
        readLabel()
        break
      case 'v':
        readLabel()
        break
      case 's': {
        const delimiter = at(index)
        if (delimiter === '' || delimiter === '\\' || delimiter === '\n')
          return 'an s command it cannot read'
        index += 1
        if (!readDelimited(delimiter) || !readDelimited(delimiter))
          return 'an s command it cannot read'
        while (index < length && !/[;\n}]/.test(at(index))) {
          const flag = at(index)
          if (flag === 'e') return 'the s///e flag, which runs the pattern space as a shell command'
          if (flag === 'w' || flag === 'W') return 'the s///w flag, which writes a file'
          if (!/[gpiImM0-9 \t]/.test(flag))
            return `the s flag ${JSON.stringify(flag)}, which it does not know`
          index += 1
        }
        break
      }
      case 'y': {
        const delimiter = at(index)
        if (delimiter === '' || delimiter === '\\' || delimiter === '\n')
          return 'a y command it cannot read'
        index += 1
        if (!readDelimited(delimiter) || !readDelimited(delimiter))
          return 'a y command it cannot read'
        break
      }
      case 'e':
        return 'the e command, which runs a shell command'
      case 'w':
      case 'W':
        return 'the w command, which writes a file'
      case 'r':
      case 'R':
        return 'the r command, which reads a file the path check cannot see'
      default:
        return `the command ${JSON.stringify(command)}, which it does not know`
    }
  }
}
