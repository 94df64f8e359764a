import type { Language, Parser } from 'web-tree-sitter'
import { PlanError } from '../errors/plan-error.js'
import { createIssue } from '../issues/create-issue.js'
import { hostProcess, loadNodeBuiltin, nodeBuiltin } from '../util/node-builtin.js'

/** The Bash grammar, the parser class that runs it, and the runtime's class of grammars. */
export interface BashLanguage {
  readonly language: Language
  readonly Parser: typeof Parser
  readonly Language: typeof Language
}

/**
 * The parser class, and the Bash grammar on demand: plain commands are read without the grammar
 * (plain-command-words.ts), so a process that checks only those never compiles it.
 */
export interface BashRuntime {
  /** The grammar and its parser class, loaded at the first call where they are local files. */
  load(): BashLanguage
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

/** The vendored runtime, with the synchronous `initSync` and `loadSync` (copy-grammar.mjs). */
interface VendoredRuntime {
  readonly Parser: typeof Parser & {
    initSync(options: {
      instantiateWasmSync(
        imports: object,
        receive: (instance: object, module: object) => void,
      ): void
    }): void
  }
  readonly Language: typeof Language & {
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

/**
 * Starts the runtime and loads the grammar from local files at the first call, synchronously
 * and once; a failed step is thrown to that caller and tried again at the next call.
 */
function localLanguage(wasm: WebAssemblyApi, script: () => VendoredRuntime, fs: FileSystem) {
  const compile = (name: string) => new wasm.Module(fs.readFileSync(new URL(name, VENDOR_URL)))
  let started = false
  let language: Language | undefined
  return (): BashLanguage => {
    const runtime = script()
    if (!started) {
      const compiled = compile('tree-sitter.wasm')
      // The runtime starts inside an async function, which would only reject with the cause.
      let failure: unknown
      try {
        runtime.Parser.initSync({
          instantiateWasmSync(
            imports: object,
            receive: (instance: object, module: object) => void,
          ) {
            try {
              receive(new wasm.Instance(compiled, imports), compiled)
            } catch (error) {
              failure = error
              throw error
            }
          },
        })
      } catch (error) {
        throw failure ?? error
      }
      started = true
    }
    language ??= runtime.Language.loadSync(compile('tree-sitter-bash.wasm'))
    return { language, Parser: runtime.Parser, Language: runtime.Language }
  }
}

/** Both modules compile on the engine's own threads while the runtime's script loads. */
async function loadFetched(wasm: WebAssemblyApi): Promise<BashRuntime> {
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
  const language = await runtime.Language.load(await grammarModule)
  const loaded = { language, Parser: runtime.Parser, Language: runtime.Language }
  return { load: () => loaded }
}

/**
 * Loads the runtime's script synchronously where `require` loads an ES module without a warning
 * (Node.js 24 and later), else undefined.
 */
function requiredScript(): (() => VendoredRuntime) | undefined {
  const process = hostProcess()
  const features: { readonly require_module?: boolean } | undefined = Reflect.get(
    process ?? {},
    'features',
  )
  if (features?.require_module !== true) return undefined
  if (!(Number(process?.versions?.node?.split('.')[0]) >= 24)) return undefined
  const url = new URL('tree-sitter.js', VENDOR_URL)
  const module = nodeBuiltin<{ createRequire(url: URL): (id: string) => VendoredRuntime }>(
    'node:module',
  )
  return module === undefined ? undefined : () => module.createRequire(url)('./tree-sitter.js')
}

/**
 * Local files (Node.js, Bun, Deno) are only looked for here, so that a package without them fails
 * as it loads, and loaded at the first command the grammar must read (the script too, where it
 * can be); others are fetched and compiled at once.
 */
async function load(): Promise<BashRuntime> {
  const wasm: WebAssemblyApi = Reflect.get(globalThis, 'WebAssembly')
  const fs = VENDOR_URL.protocol === 'file:' ? nodeBuiltin<FileSystem>('node:fs') : undefined
  if (fs === undefined) return loadFetched(wasm)
  for (const name of ['tree-sitter.js', 'tree-sitter.wasm', 'tree-sitter-bash.wasm']) {
    fs.accessSync(new URL(name, VENDOR_URL), fs.constants.R_OK)
  }
  const required = requiredScript()
  if (required !== undefined) return { load: localLanguage(wasm, required, fs) }
  const runtime: VendoredRuntime = await import(new URL('tree-sitter.js', VENDOR_URL).href)
  return { load: localLanguage(wasm, () => runtime, fs) }
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
  return (await loadBashRuntime()).load()
}
