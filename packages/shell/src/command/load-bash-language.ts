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

async function readGrammar(): Promise<Uint8Array> {
  const url = new URL('tree-sitter-bash.wasm', VENDOR_URL)
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

async function load(): Promise<BashLanguage> {
  const grammar = readGrammar()
  // Its failure is reported by the Promise.all below, even when the import fails first.
  grammar.catch(() => undefined)
  const runtime: typeof import('web-tree-sitter') = await import(
    new URL('tree-sitter.js', VENDOR_URL).href
  )
  const [bytes] = await Promise.all([grammar, runtime.Parser.init()])
  return { language: await runtime.Language.load(bytes), Parser: runtime.Parser }
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
