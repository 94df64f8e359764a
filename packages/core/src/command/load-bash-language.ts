import { createRequire } from 'node:module'
import { Language, Parser } from 'web-tree-sitter'

let loading: Promise<Language> | undefined

/**
 * Loads the tree-sitter Bash grammar (WASM) once per process; every later call gets the same
 * promise. A failed load is forgotten so that the next call can retry.
 */
export function loadBashLanguage(): Promise<Language> {
  if (loading === undefined) {
    loading = (async () => {
      await Parser.init()
      const require = createRequire(import.meta.url)
      return Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'))
    })()
    loading.catch(() => {
      loading = undefined
    })
  }
  return loading
}
