import { isWithin } from '../util/is-within.js'
import { posix } from '../util/posix-path.js'

/** What a build tool reads instead of, or beside, one of its build files. */
interface Alternatives {
  readonly tool: string
  /** Read from the build file's folder in its place (make reads `GNUmakefile` first). */
  readonly instead: readonly string[]
  /** Read from its folder and every folder above it, and able to change what the build runs. */
  readonly beside: readonly string[]
}

const PACKAGE_FILES = ['.npmrc', '.yarnrc.yml', '.yarnrc', '.pnpmfile.cjs', 'pnpm-workspace.yaml']

const ALTERNATIVES: Readonly<Record<string, Alternatives>> = {
  Makefile: { tool: 'make', instead: ['GNUmakefile', 'makefile'], beside: [] },
  makefile: { tool: 'make', instead: ['GNUmakefile'], beside: [] },
  'Cargo.toml': {
    tool: 'cargo',
    instead: [],
    beside: ['.cargo/config.toml', '.cargo/config', 'rust-toolchain.toml', 'rust-toolchain'],
  },
  'go.mod': { tool: 'go', instead: [], beside: ['go.work'] },
  'package.json': { tool: 'npm, pnpm and yarn', instead: [], beside: PACKAGE_FILES },
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

/** The files that stand in for the build file `entry`, inside the root that holds it. */
function alternativesOf(entry: string, roots: readonly string[]): string[] {
  const name = basename(entry)
  const found = Object.hasOwn(ALTERNATIVES, name) ? ALTERNATIVES[name] : undefined
  const root = roots.find((candidate) => isWithin(candidate, entry))
  if (found === undefined || root === undefined) return []
  let folder = posix.dirname(entry)
  const files = found.instead.map((file) => posix.join(folder, file))
  for (;;) {
    files.push(...found.beside.map((file) => posix.join(folder, file)))
    if (folder === root || !isWithin(root, folder)) return files
    folder = posix.dirname(folder)
  }
}

/**
 * A build file is any file the build tool reads in its place: `readOnly` with the files that
 * stand in for each read-only build file (with `Makefile`, the `GNUmakefile` and `makefile`
 * make reads first; with `Cargo.toml`, the `.cargo/config.toml` and `rust-toolchain.toml` of its
 * folder and those above it; with `go.mod`, `go.work`; with `package.json`, `.npmrc`,
 * `.yarnrc.yml`, `.pnpmfile.cjs` and the like). The listed entries come first, in their order.
 */
export function withBuildFileAlternatives(
  readOnly: readonly string[],
  roots: readonly string[],
): string[] {
  return [...new Set([...readOnly, ...readOnly.flatMap((entry) => alternativesOf(entry, roots))])]
}

/**
 * For a read-only path that is there only as a stand-in: the build file it stands in for, and
 * the tool that reads it; undefined for a path `readOnly` lists for itself.
 */
export function standsFor(
  path: string,
  readOnly: readonly string[],
  roots: readonly string[],
): { readonly file: string; readonly tool: string } | undefined {
  for (const entry of readOnly) {
    const name = basename(entry)
    if (entry === path || !Object.hasOwn(ALTERNATIVES, name)) continue
    if (!alternativesOf(entry, roots).includes(path)) continue
    return { file: entry, tool: ALTERNATIVES[name]?.tool ?? name }
  }
  return undefined
}
