import { Parser, Language } from 'web-tree-sitter'
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const t0 = performance.now()
await Parser.init()
const lang = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'))
const parser = new Parser(); parser.setLanguage(lang)
console.log('load ms', performance.now() - t0)
function dump(node, indent = '') {
  let s = `${indent}${node.isNamed ? node.type : JSON.stringify(node.type)} [${node.startIndex},${node.endIndex}]${node.isMissing ? ' MISSING' : ''}${node.isError?' ERROR':''}`
  if (node.childCount === 0) s += ' ' + JSON.stringify(node.text)
  console.log(s)
  for (const c of node.children) dump(c, indent + '  ')
}
for (const cmd of process.argv.slice(2)) { console.log('=== ' + cmd); const tree = parser.parse(cmd); dump(tree.rootNode); tree.delete() }
