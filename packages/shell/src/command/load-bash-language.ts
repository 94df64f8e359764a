import type { Language, Parser } from 'web-tree-sitter'
import { PlanError } from '../errors/plan-error.js'
import { createIssue } from '../issues/create-issue.js'
import { loadNodeBuiltin, nodeBuiltin } from '../util/node-builtin.js'

/** The Bash grammar and the parser class that runs it. */
export interface BashLanguage {
  readonly language: Language
  readonly Parser: typeof Parser
}

/**
 * The parser class, and the Bash grammar on demand: plain commands are read without the grammar
 * (plain-command-words.ts), so a process that checks only those never compiles it.
 */
export interface BashRuntime {
  readonly Parser: typeof Parser
  /** The grammar, loaded at the first call (synchronously, where it is a local file). */
  language(): Language
}

// Set by the bundler for dist/ (rolldown.config.mjs); absent when this file runs from src/.
declare const __PLAN_VENDOR_DIR__: string | undefined

// Copied from devDependencies at build time (scripts/copy-grammar.mjs).
const VENDOR_URL = new URL(
  typeof __PLAN_VENDOR_DIR__ === 'string' ? __PLAN_VENDOR_DIR__ : '../../vendor/',
  import.meta.url,
)

let loading: Promise<BashRuntime> | undefined

/** What the loader uses of the WebAssembly API, which every runtime the grammar runs on has. */
interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<CompiledModule>
  readonly Module: new (bytes: Uint8Array) => CompiledModule
  readonly Instance: new (module: CompiledModule, imports: object) => object
}

/** A compiled `WebAssembly.Module`. */
type CompiledModule = object

/** The vendored runtime: its `Language.load` also takes a compiled module, as `loadSync` does. */
interface VendoredRuntime {
  readonly Parser: typeof Parser
  readonly Language: {
    load(module: CompiledModule): Promise<Language>
    loadSync(module: CompiledModule): Language
  }
}

/** What the loader uses of `node:fs`. */
interface FileSystem {
  readFileSync(path: URL): Uint8Array
  accessSync(path: URL, mode: number): void
  readonly constants: { readonly R_OK: number }
}

async function readVendorFile(name: string): Promise<Uint8Array> {
  const url = new URL(name, VENDOR_URL)
  // Read once per process at start-up: a synchronous read is several times quicker than a
  // round trip through the thread pool, and nothing waits on this process meanwhile.
  const fsSync = nodeBuiltin<FileSystem>('node:fs')
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

/** Compiles and loads the grammar from a local file at the first call, once. */
function localGrammar(
  wasm: WebAssemblyApi,
  runtime: VendoredRuntime,
  fs: FileSystem,
  url: URL,
): () => Language {
  let language: Language | undefined
  return () => {
    language ??= runtime.Language.loadSync(new wasm.Module(fs.readFileSync(url)))
    return language
  }
}

/**
 * Starts on the grammar: a local file is only looked for (so that a package without it fails
 * where the runtime loads) and compiled when first asked for; another is compiled at once, on the
 * engine's own threads, and loaded with the runtime.
 */
function startGrammar(wasm: WebAssemblyApi): (runtime: VendoredRuntime) => Promise<() => Language> {
  const url = new URL('tree-sitter-bash.wasm', VENDOR_URL)
  const fs = url.protocol === 'file:' ? nodeBuiltin<FileSystem>('node:fs') : undefined
  if (fs !== undefined) {
    fs.accessSync(url, fs.constants.R_OK)
    return async (runtime) => localGrammar(wasm, runtime, fs, url)
  }
  const compiled = compileVendorFile(wasm, 'tree-sitter-bash.wasm')
  return async (runtime) => {
    const language = await runtime.Language.load(await compiled)
    return () => language
  }
}

async function load(): Promise<BashRuntime> {
  const wasm: WebAssemblyApi = Reflect.get(globalThis, 'WebAssembly')
  // The runtime compiles on the engine's own threads while its script loads.
  const runtimeModule = compileVendorFile(wasm, 'tree-sitter.wasm')
  const grammar = startGrammar(wasm)
  const runtime: VendoredRuntime = await import(new URL('tree-sitter.js', VENDOR_URL).href)
  const compiled = await runtimeModule
  await runtime.Parser.init({
    // Instantiated synchronously, so that a failure rejects the init instead of stalling it.
    instantiateWasm(imports: object, receive: (instance: object, module: CompiledModule) => void) {
      receive(new wasm.Instance(compiled, imports), compiled)
      return {}
    },
  })
  return { Parser: runtime.Parser, language: await grammar(runtime) }
}

/**
 * Loads the tree-sitter runtime (WebAssembly, shipped in the package's `vendor/` folder with the
 * Bash grammar) once per process; every later call gets the same promise. A failed load is
 * forgotten so that the next call can retry.
 */
export function loadBashRuntime(): Promise<BashRuntime> {
  if (loading === undefined) {
    loading = load()
    loading.catch(() => {
      loading = undefined
    })
  }
  return loading
}

/** {@link loadBashRuntime} with the grammar loaded. */
export async function loadBashLanguage(): Promise<BashLanguage> {
  const runtime = await loadBashRuntime()
  return { language: runtime.language(), Parser: runtime.Parser }
}
