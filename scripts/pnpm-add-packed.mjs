// `node <folder>/pnpm-add.mjs [more packages…]`, run in a project: adds every @plan tarball of
// <folder> (the one this file is in, written by `pnpm pack:public`) with pnpm. The tarballs
// depend on each other by version, which the registry does not have yet, so the project's
// pnpm-workspace.yaml gets one override per tarball pointing at it; then `pnpm add` runs.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const MARK = '# @plan tarballs (written by pnpm-add.mjs)'

/** `@plan/<name>` → the tarball's absolute path, from file names `plan-<name>-<version>.tgz`. */
function tarballs() {
  const found = new Map()
  for (const file of readdirSync(HERE)) {
    const match = /^plan-(.+)-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/.exec(file)
    if (match !== null) found.set(`@plan/${match[1]}`, join(HERE, file))
  }
  if (found.size === 0) {
    console.error(`pnpm-add: no @plan tarballs in ${HERE}; run pnpm pack:public in the repository`)
    process.exit(1)
  }
  return found
}

/** The project's pnpm-workspace.yaml with this script's overrides block in place of an old one. */
function withOverrides(found) {
  const file = join(process.cwd(), 'pnpm-workspace.yaml')
  const old = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const start = old.indexOf(MARK)
  const kept = start < 0 ? old : old.slice(0, start)
  if (start < 0 && /^overrides:/m.test(old)) {
    console.error(`pnpm-add: ${file} already has overrides; add these under them:`)
    for (const [name, path] of found) console.error(`  "${name}": "file:${path}"`)
    process.exit(1)
  }
  const lines = [...found].map(
    ([name, path]) => `  ${JSON.stringify(name)}: ${JSON.stringify(`file:${path}`)}`,
  )
  const separator = kept === '' || kept.endsWith('\n') ? '' : '\n'
  writeFileSync(file, `${kept}${separator}${MARK}\noverrides:\n${lines.join('\n')}\n`)
}

const found = tarballs()
withOverrides(found)
const result = spawnSync('pnpm', ['add', ...found.values(), ...process.argv.slice(2)], {
  stdio: 'inherit',
})
process.exit(result.status ?? 1)
