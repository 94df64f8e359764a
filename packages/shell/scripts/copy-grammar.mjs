// Copies the Bash grammar and the tree-sitter runtime (both WebAssembly, both MIT) with their
// licenses from devDependencies into vendor/, which is published with the package: installing
// @plan/shell (or @plan/core, which depends on it) then runs no install script, builds nothing
// and carries no debug builds or C sources.
// The grammar's lexer is split into small functions on the way (outline-wasm-functions.mjs), so
// that V8's optimising compile of it takes megabytes instead of half a GiB.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { minifySync } from 'rolldown/utils'
import { outlineLargeFunctions } from './outline-wasm-functions.mjs'
import { quoteTemplateStrings } from './quote-template-strings.mjs'

const require = createRequire(import.meta.url)
const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'vendor')
const bash = dirname(require.resolve('tree-sitter-bash/package.json'))
const runtime = dirname(require.resolve('web-tree-sitter/tree-sitter.wasm'))

mkdirSync(target, { recursive: true })
const grammar = outlineLargeFunctions(readFileSync(join(bash, 'tree-sitter-bash.wasm')))
if (grammar.outlined === 0) throw new Error('The Bash grammar has no switch cases left to outline.')
writeFileSync(join(target, 'tree-sitter-bash.wasm'), grammar.bytes)
copyFileSync(join(bash, 'LICENSE'), join(target, 'LICENSE.tree-sitter-bash'))
copyFileSync(join(runtime, 'tree-sitter.wasm'), join(target, 'tree-sitter.wasm'))
copyFileSync(join(runtime, 'LICENSE'), join(target, 'LICENSE.web-tree-sitter'))
// The source map is not shipped, so its comment goes too. Language.load also takes a compiled
// WebAssembly.Module (its loader does already), so that the grammar compiles while the runtime
// starts (src/command/load-bash-language.ts).
// The runtime's one large function, which Parser.init calls at once, is wrapped in parentheses:
// V8 then compiles it with the script instead of scanning it twice. On Node.js it takes
// `createRequire` from `process.getBuiltinModule` where there is one, instead of a dynamic import
// (a round trip through the module loader).
// `Parser.initSync` starts the runtime synchronously from a module that `instantiateWasmSync`
// instantiates at once, and `Language.loadSync` loads a compiled grammar synchronously, as the
// runtime's loader can: both are then loaded only for the first command that needs the grammar
// (load-bash-language.ts).
// A C string (the grammar's ~300 node type and field names, read once as it loads) is found with
// `indexOf` and decoded by a TextDecoder when it is short too, instead of byte by byte in script:
// the decoder is strict and keeps a byte-order mark, and whatever it refuses is still decoded by
// the runtime's own loop, so every string reads as before.
const edits = [
  [
    'if (input instanceof Uint8Array) {',
    'if (input instanceof Uint8Array || input instanceof WebAssembly.Module) {',
  ],
  [
    '  static async load(input) {\n',
    '  static loadSync(module) {\n    const mod = C.loadWebAssemblyModule(module, { loadAsync: false });\n    const functionName = Object.keys(mod).find((key) => LANGUAGE_FUNCTION_REGEX.test(key) && !key.includes("external_scanner_"));\n    if (!functionName) throw new Error("Language.load failed: no language function found in WASM file");\n    return new _Language(INTERNAL, mod[functionName]());\n  }\n  static async load(input) {\n',
  ],
  [
    '  static async init(moduleOptions) {\n',
    '  static initSync(moduleOptions) {\n    if (!Module3) {\n      tree_sitter_default(moduleOptions).catch(() => {\n      });\n      if (!moduleOptions.calledRun) throw new Error("The tree-sitter runtime did not start synchronously.");\n      Module3 = moduleOptions;\n    }\n    setModule(Module3);\n    TRANSFER_BUFFER = C._ts_init();\n    LANGUAGE_VERSION = C.getValue(TRANSFER_BUFFER, "i32");\n    MIN_COMPATIBLE_VERSION = C.getValue(TRANSFER_BUFFER + SIZE_OF_INT, "i32");\n  }\n  static async init(moduleOptions) {\n',
  ],
  [
    '    async function createWasm() {\n',
    '    var wasmExportsNow;\n    async function createWasm() {\n',
  ],
  [
    '      var info2 = getWasmImports();\n',
    '      if (Module["instantiateWasmSync"]) {\n        Module["instantiateWasmSync"](getWasmImports(), (instance2, module2) => {\n          receiveInstance(instance2, module2);\n          wasmExportsNow = instance2.exports;\n        });\n        return wasmExportsNow;\n      }\n      var info2 = getWasmImports();\n',
  ],
  [
    '    var wasmExports = await createWasm();\n',
    '    var wasmExports = Module["instantiateWasmSync"] ? (createWasm().catch(() => {\n    }), wasmExportsNow) : await createWasm();\n',
  ],
  ['  return async function(moduleArg = {}) {', '  return (async function(moduleArg = {}) {'],
  ['    return moduleRtn;\n  };\n})();', '    return moduleRtn;\n  });\n})();'],
  [
    'const { createRequire } = await import("module");',
    'const { createRequire } = process.getBuiltinModule?.("module") ?? await import("module");',
  ],
  [
    '      var endPtr = idx;\n      while (heapOrArray[endPtr] && !(endPtr >= endIdx)) ++endPtr;\n',
    '      var endPtr = heapOrArray.indexOf(0, idx);\n      if (endPtr === -1) endPtr = heapOrArray.length;\n      if (endPtr > endIdx) endPtr = endIdx;\n',
  ],
  [
    '        return UTF8Decoder.decode(heapOrArray.subarray(idx, endPtr));\n      }\n',
    '        return UTF8Decoder.decode(heapOrArray.subarray(idx, endPtr));\n      }\n      if (endPtr > idx && heapOrArray.buffer && ShortUTF8Decoder) {\n        try {\n          return ShortUTF8Decoder.decode(heapOrArray.subarray(idx, endPtr));\n        } catch {}\n      }\n',
  ],
  [
    '    var UTF8Decoder = typeof TextDecoder != "undefined" ? new TextDecoder() : void 0;\n',
    '    var UTF8Decoder = typeof TextDecoder != "undefined" ? new TextDecoder() : void 0;\n    var ShortUTF8Decoder = typeof TextDecoder != "undefined" ? new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }) : void 0;\n',
  ],
]
let script = readFileSync(join(runtime, 'tree-sitter.js'), 'utf8')
for (const [from, to] of edits) {
  if (script.split(from).length !== 2) throw new Error(`tree-sitter.js has changed: ${from}`)
  script = script.replace(from, to)
}
// Local names shortened and whitespace dropped, as in dist/ (rolldown.config.mjs): the process that
// loads the grammar parses all of this script. The parentheses above stay, and plain strings are
// printed as "…" again (quote-template-strings.mjs).
const minified = minifySync(
  'tree-sitter.js',
  script.replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'),
  {
    module: true,
    compress: false,
    mangle: { keepNames: true },
  },
)
if (minified.errors.length > 0) throw new Error(`tree-sitter.js: ${minified.errors[0].message}`)
if (!minified.code.includes('return(async function(moduleArg={}){')) {
  throw new Error('tree-sitter.js lost the parentheses around its factory.')
}
writeFileSync(join(target, 'tree-sitter.js'), quoteTemplateStrings('tree-sitter.js', minified.code))
