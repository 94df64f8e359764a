import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { quoteTemplateStrings } from '../../scripts/quote-template-strings.mjs'

/** The value of the one expression that `code` assigns to `v`, run as a strict script. */
function assignedValue(code: string): unknown {
  const sandbox: { v?: unknown; tag?: unknown } = {
    tag: (strings: TemplateStringsArray) => strings.raw.join('|'),
  }
  runInNewContext(`'use strict'; var v; ${code}`, sandbox)
  return sandbox.v
}

function rewrite(code: string): string {
  return quoteTemplateStrings('sample.js', code)
}

describe('quoteTemplateStrings', () => {
  it('should print a plain template literal as a string of the same length and value', () => {
    const samples = [
      'v=`plain`',
      'v=`\\n\\t\\u00e9\\x41\\u{1F600}`',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an escaped substitution, as source text
      'v=`a\\${b}`',
      'v=`é λ`',
      'v=``',
    ]
    for (const code of samples) {
      const rewritten = rewrite(code)
      expect(rewritten).toBe(code.replaceAll('`', '"'))
      expect(assignedValue(rewritten)).toBe(assignedValue(code))
    }
  })

  it('should leave templates alone that a string would read differently or that are tagged', () => {
    const kept = [
      'v=`say "hi"`',
      'v=`two\nlines`',
      'v=`a\\`b`',
      'v=`a\\\nb`',
      'v=tag`raw\\n`',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a substitution, as source text
      'v=`${1}`',
      '`use strict`;v=1',
    ]
    for (const code of kept) expect(rewrite(code)).toBe(code)
  })

  it('should rewrite templates nested in substitutions and tagged templates', () => {
    const code = ['v=`a$', '{`b`}c`+tag`x$', '{`y`}`'].join('')
    expect(rewrite(code)).toBe(['v=`a$', '{"b"}c`+tag`x$', '{"y"}`'].join(''))
  })

  it('should keep the value of every generated string', () => {
    const escaped = (text: string) => text.replace(/[\\`$]/g, (character) => `\\${character}`)
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const code = `v=\`${escaped(text)}\``
        const rewritten = rewrite(code)
        expect(rewritten.length).toBe(code.length)
        expect(assignedValue(rewritten)).toBe(text)
      }),
      { numRuns: 2000 },
    )
  })

  it('should refuse code that does not parse', () => {
    expect(() => rewrite('v=`open')).toThrow('sample.js')
  })
})
