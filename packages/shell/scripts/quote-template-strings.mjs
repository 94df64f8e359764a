// Prints plain strings of minified code as "…" again. The minifier prints every string literal
// as a template literal (`…`), and V8 scans a template literal more slowly than a string: in a
// cold start, where V8 parses every byte of each module it imports, that shows. Only the two
// quote characters change, so the code keeps its length, its lines and its source map.
import { parseSync } from 'rolldown/utils'

// What a template literal reads exactly as a "…" string does: no `"` to escape, no line
// break, and no escaped backtick (whose meaning a string does not share).
const STRING_SAFE = /^(?:[^"`\\\n\r\u2028\u2029]|\\[^`\n\r\u2028\u2029])*$/

/** Where each untagged template literal without substitutions that reads as a string starts. */
function stringTemplateStarts(program) {
  const starts = []
  const pending = [program]
  while (pending.length > 0) {
    const node = pending.pop()
    if (node.type === 'TaggedTemplateExpression') {
      pending.push(node.tag, ...node.quasi.expressions)
      continue
    }
    // A string standing alone at the head of a body would become a directive.
    if (node.type === 'ExpressionStatement' && node.expression.type === 'TemplateLiteral') {
      pending.push(...node.expression.expressions)
      continue
    }
    if (node.type === 'TemplateLiteral' && node.expressions.length === 0) {
      if (STRING_SAFE.test(node.quasis[0].value.raw)) starts.push([node.start, node.end])
      continue
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) {
        for (const item of value) if (item !== null && typeof item === 'object') pending.push(item)
      } else if (value !== null && typeof value === 'object' && typeof value.type === 'string') {
        pending.push(value)
      }
    }
  }
  return starts
}

/**
 * Rewrites `…` as "…" wherever the two mean the same string. Throws when the code does not
 * parse or a literal is not where the parser put it, so that a build never ships a half edit.
 */
export function quoteTemplateStrings(fileName, code) {
  const parsed = parseSync(fileName, code, { sourceType: 'module' })
  if (parsed.errors.length > 0) throw new Error(`${fileName}: ${parsed.errors[0].message}`)
  const characters = code.split('')
  for (const [start, end] of stringTemplateStarts(parsed.program)) {
    if (characters[start] !== '`' || characters[end - 1] !== '`') {
      throw new Error(`${fileName}: no template literal at ${start}`)
    }
    characters[start] = '"'
    characters[end - 1] = '"'
  }
  return characters.join('')
}

/** A rolldown plugin that applies `quoteTemplateStrings` to every chunk once it is minified. */
export function quoteTemplateStringsPlugin() {
  return {
    name: 'quote-template-strings',
    generateBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type === 'chunk') file.code = quoteTemplateStrings(file.fileName, file.code)
      }
    },
  }
}
