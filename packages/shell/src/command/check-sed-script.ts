/**
 * Finds the sed commands that run programs or touch files other than the operands: `e`,
 * `s///e`, `w`/`W`/`s///w` (write a file), `r`/`R` (read a file). The script is scanned
 * command by command; anything it cannot follow counts as a problem (fail closed).
 * Returns a description of the first problem, or undefined when the script is harmless.
 */
export function checkSedScript(script: string): string | undefined {
  const scanner = new SedScanner(script)
  for (;;) {
    scanner.skipSpace()
    if (scanner.done) return undefined
    const problem = scanner.command()
    if (problem !== undefined) return problem
  }
}

// Commands that take no argument, or whose argument cannot name a file or a program.
const PLAIN = new Set(['{', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F'])
const NUMBERED = new Set(['q', 'Q', 'l', 'L'])
const TEXT = new Set(['a', 'i', 'c'])
const LABELLED = new Set([':', 'b', 't', 'T', 'v'])
const REFUSED: Readonly<Record<string, string>> = {
  e: 'the e command, which runs a shell command',
  w: 'the w command, which writes a file',
  W: 'the w command, which writes a file',
  r: 'the r command, which reads a file the path check cannot see',
  R: 'the r command, which reads a file the path check cannot see',
}

/** A cursor over a sed script that reads addresses, commands and their arguments. */
class SedScanner {
  readonly #script: string
  #index = 0

  constructor(script: string) {
    this.#script = script
  }

  get done(): boolean {
    return this.#index >= this.#script.length
  }

  #at(position: number): string {
    return this.#script[position] ?? ''
  }

  skipSpace(): void {
    while (!this.done && /[\s;]/.test(this.#at(this.#index))) this.#index += 1
  }

  /** Reads one command with its addresses; returns the problem it poses, if any. */
  command(): string | undefined {
    const first = this.#at(this.#index)
    if (first === '#') {
      this.#toLineEnd()
      return undefined
    }
    if (first === '}') {
      this.#index += 1
      return undefined
    }
    if (!this.#readAddress()) return 'an address it cannot read'
    if (this.#at(this.#index) === ',') {
      this.#index += 1
      if (this.#at(this.#index) === '+' || this.#at(this.#index) === '~') this.#index += 1
      if (!this.#readAddress()) return 'an address it cannot read'
    }
    this.#skipBlanks()
    if (this.#at(this.#index) === '!') this.#index += 1
    this.#skipBlanks()
    const name = this.#at(this.#index)
    this.#index += 1
    return this.#arguments(name)
  }

  #arguments(name: string): string | undefined {
    if (PLAIN.has(name)) return undefined
    if (NUMBERED.has(name)) {
      while (/[0-9 ]/.test(this.#at(this.#index))) this.#index += 1
      return undefined
    }
    if (TEXT.has(name)) {
      // GNU one-line form: the text runs to the end of the line (escaped newlines continue it).
      while (!this.done && this.#at(this.#index) !== '\n')
        this.#index += this.#at(this.#index) === '\\' ? 2 : 1
      return undefined
    }
    if (LABELLED.has(name)) {
      this.#readLabel()
      return undefined
    }
    if (name === 's') return this.#substitution()
    if (name === 'y') return this.#transliteration()
    return Object.hasOwn(REFUSED, name)
      ? REFUSED[name]
      : `the command ${JSON.stringify(name)}, which it does not know`
  }

  #substitution(): string | undefined {
    if (!this.#readTwoParts()) return 'an s command it cannot read'
    while (!this.done && !/[;\n}]/.test(this.#at(this.#index))) {
      const flag = this.#at(this.#index)
      if (flag === 'e') return 'the s///e flag, which runs the pattern space as a shell command'
      if (flag === 'w' || flag === 'W') return 'the s///w flag, which writes a file'
      if (!/[gpiImM0-9 \t]/.test(flag))
        return `the s flag ${JSON.stringify(flag)}, which it does not know`
      this.#index += 1
    }
    return undefined
  }

  #transliteration(): string | undefined {
    return this.#readTwoParts() ? undefined : 'a y command it cannot read'
  }

  // The regex and replacement of s, or the two sets of y, after their delimiter.
  #readTwoParts(): boolean {
    const delimiter = this.#at(this.#index)
    if (delimiter === '' || delimiter === '\\' || delimiter === '\n') return false
    this.#index += 1
    return this.#readDelimited(delimiter) && this.#readDelimited(delimiter)
  }

  // Reads a delimited part (regex or replacement) ending at an unescaped delimiter.
  #readDelimited(delimiter: string): boolean {
    while (!this.done) {
      const char = this.#at(this.#index)
      if (char === '\\') {
        this.#index += 2
        continue
      }
      if (char === '\n' && delimiter !== '\n') return false
      this.#index += 1
      if (char === delimiter) return true
    }
    return false
  }

  #readAddress(): boolean {
    const char = this.#at(this.#index)
    if (/[0-9]/.test(char)) {
      while (/[0-9~]/.test(this.#at(this.#index))) this.#index += 1
      return true
    }
    if (char === '$') {
      this.#index += 1
      return true
    }
    if (char !== '/' && char !== '\\') return true
    let delimiter = '/'
    if (char === '\\') {
      delimiter = this.#at(this.#index + 1)
      this.#index += 2
    } else this.#index += 1
    if (delimiter === '' || !this.#readDelimited(delimiter)) return false
    while (/[IM]/.test(this.#at(this.#index))) this.#index += 1
    return true
  }

  #skipBlanks(): void {
    while (this.#at(this.#index) === ' ' || this.#at(this.#index) === '\t') this.#index += 1
  }

  #toLineEnd(): void {
    while (!this.done && this.#at(this.#index) !== '\n') this.#index += 1
  }

  // GNU sed ends a label at whitespace as well as at `;` (`:a e id` runs `id`).
  #readLabel(): void {
    while (!this.done && this.#at(this.#index) === ' ') this.#index += 1
    while (!this.done && !/[\s;}]/.test(this.#at(this.#index))) this.#index += 1
  }
}
