import type { Language, Parser } from 'web-tree-sitter'
import { PlanError } from '../errors/plan-error.js'
import { createIssue } from '../issues/create-issue.js'
import { loadNodeBuiltin, nodeBuiltin } from '../util/node-builtin.js'

/** The Bash grammar and the parser class that runs it. */
export interface BashLanguage {
  readonly language: Language
  readonly Parser: typeof Parser
}

// Set by the bundler for dist/ (rolldown.config.mjs); absent when this file runs from src/.
declare const __PLAN_VENDOR_DIR__: string | undefined

// Copied from devDependencies at build time (scripts/copy-grammar.mjs).
const VENDOR_URL = new URL(
  typeof __PLAN_VENDOR_DIR__ === 'string' ? __PLAN_VENDOR_DIR__ : '../../vendor/',
  import.meta.url,
)

let loading: Promise<BashLanguage> | undefined

/** What the loader uses of the WebAssembly API, which every runtime the grammar runs on has. */
interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<CompiledModule>
  readonly Instance: new (module: CompiledModule, imports: object) => object
}

/** A compiled `WebAssembly.Module`. */
type CompiledModule = object

/** The vendored runtime: its `Language.load` also takes a compiled module (copy-grammar.mjs). */
interface VendoredRuntime {
  readonly Parser: typeof Parser
  readonly Language: { load(module: CompiledModule): Promise<Language> }
}

async function readVendorFile(name: string): Promise<Uint8Array> {
  const url = new URL(name, VENDOR_URL)
  // Read once per process at start-up: a synchronous read is several times quicker than a
  // round trip through the thread pool, and nothing waits on this process meanwhile.
  const fsSync = nodeBuiltin<{ readFileSync(path: URL): Uint8Array }>('node:fs')
  if (url.protocol === 'file:' && fsSync !== undefined) return fsSync.readFileSync(url)
  const fs = await loadNodeBuiltin<{ readFile(path: URL): Promise<Uint8Array> }>('node:fs/promises')
  if (url.protocol === 'file:' && fs !== undefined) return fs.readFile(url)
  const response = await fetch(url)
  if (!response.ok) {
    const message = `Cannot load the Bash grammar from ${url.href}: HTTP ${response.status}.`
    const hint = "Serve the package's vendor/ folder next to its dist/ folder."
    throw new PlanError(message, {
      issues: [createIssue('command_parse_error', message, [], hint)],
    })
  }
  return new Uint8Array(await response.arrayBuffer())
}

/** Starts compiling a vendored WebAssembly module; its failure is reported where it is awaited. */
function compileVendorFile(wasm: WebAssemblyApi, name: string): Promise<CompiledModule> {
  const compiled = readVendorFile(name).then((bytes) => wasm.compile(bytes))
  compiled.catch(() => undefined)
  return compiled
}

async function load(): Promise<BashLanguage> {
  const wasm: WebAssemblyApi = Reflect.get(globalThis, 'WebAssembly')
  // Both modules compile on the engine's own threads while the runtime's script loads.
  const runtimeModule = compileVendorFile(wasm, 'tree-sitter.wasm')
  const grammarModule = compileVendorFile(wasm, 'tree-sitter-bash.wasm')
  const runtime: VendoredRuntime = await import(new URL('tree-sitter.js', VENDOR_URL).href)
  const compiled = await runtimeModule
  await runtime.Parser.init({
    // Instantiated synchronously, so that a failure rejects the init instead of stalling it.
    instantiateWasm(imports: object, receive: (instance: object, module: CompiledModule) => void) {
      receive(new wasm.Instance(compiled, imports), compiled)
      return {}
    },
  })
  return { language: await runtime.Language.load(await grammarModule), Parser: runtime.Parser }
}

/**
 * Loads the tree-sitter runtime and the Bash grammar (both WebAssembly, shipped in the
 * package's `vendor/` folder) once per process; every later call gets the same promise. A
 * failed load is forgotten so that the next call can retry.
 */
export function loadBashLanguage(): Promise<BashLanguage> {
  if (loading === undefined) {
    loading = load()
    loading.catch(() => {
      loading = undefined
    })
  }
  return loading
}
