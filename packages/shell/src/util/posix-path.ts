import { stringAt } from './item-at.js'

// POSIX path functions with the results of Node's `path.posix`, for the runtime-neutral main
// entry (no `node:` import). The tests compare them with `node:path` on generated paths.

function normalizeSegments(path: string, absolute: boolean): string {
  const out: string[] = []
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop()
      else if (!absolute) out.push('..')
      continue
    }
    out.push(segment)
  }
  return out.join('/')
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/')
}

function normalize(path: string): string {
  if (path === '') return '.'
  const absolute = isAbsolute(path)
  const trailing = path.endsWith('/')
  let body = normalizeSegments(path, absolute)
  if (body === '' && !absolute) body = '.'
  if (body !== '' && trailing) body += '/'
  return absolute ? `/${body}` : body
}

function join(...paths: string[]): string {
  const joined = paths.filter((path) => path.length > 0).join('/')
  return joined === '' ? '.' : normalize(joined)
}

function currentDir(): string {
  const process = (globalThis as { process?: { cwd?: () => string } }).process
  return typeof process?.cwd === 'function' ? process.cwd() : '/'
}

function resolve(...paths: string[]): string {
  let resolved = ''
  let absolute = false
  for (let index = paths.length - 1; index >= -1 && !absolute; index -= 1) {
    const path = index >= 0 ? stringAt(paths, index) : currentDir()
    if (path.length === 0) continue
    resolved = `${path}/${resolved}`
    absolute = isAbsolute(path)
  }
  const body = normalizeSegments(resolved, absolute)
  return absolute ? `/${body}` : body.length > 0 ? body : '.'
}

function dirname(path: string): string {
  if (path.length === 0) return '.'
  const root = path[0] === '/'
  let end = -1
  let sawName = false
  for (let index = path.length - 1; index >= 1; index -= 1) {
    if (path[index] !== '/') sawName = true
    else if (sawName) {
      end = index
      break
    }
  }
  if (end === -1) return root ? '/' : '.'
  return root && end === 1 ? '//' : path.slice(0, end)
}

/** `isAbsolute`, `normalize`, `join`, `resolve` and `dirname` of `node:path`'s `posix`. */
export const posix = { isAbsolute, normalize, join, resolve, dirname }
