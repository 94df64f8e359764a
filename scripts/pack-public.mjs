// `pnpm pack:public`: builds every public package, refuses one whose manifest names a file the
// build did not make (a missing dist/), packs them into .pack/ with pnpm-add.mjs beside the
// tarballs, and prints the two commands that install them before the registry has them.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const DESTINATION = join(ROOT, '.pack')

function run(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`pack: ${command} ${args.join(' ')} exited ${result.status}`)
    process.exit(1)
  }
}

/** Every file a manifest points at: exports (types and default), main, types and bin. */
function namedFiles(manifest) {
  const files = new Set()
  const visit = (value) => {
    if (typeof value === 'string') files.add(value)
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(visit)
  }
  visit(manifest.exports)
  visit(manifest.bin)
  for (const field of ['main', 'types']) visit(manifest[field])
  return [...files].filter((file) => !file.includes('*'))
}

function publicPackages() {
  return readdirSync(join(ROOT, 'packages'))
    .map((dir) => join(ROOT, 'packages', dir))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true)
}

run('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=./packages/*', '--output-logs=errors-only'])
const missing = publicPackages().flatMap(({ dir, manifest }) =>
  namedFiles(manifest)
    .filter((file) => !existsSync(join(dir, file)))
    .map((file) => `${manifest.name}: ${file}`),
)
if (missing.length > 0) {
  console.error(`pack: the build did not make files the manifests name:\n  ${missing.join('\n  ')}`)
  process.exit(1)
}
rmSync(DESTINATION, { recursive: true, force: true })
mkdirSync(DESTINATION)
run('pnpm', ['--filter', './packages/*', 'pack', '--pack-destination', DESTINATION])
copyFileSync(join(ROOT, 'scripts', 'pnpm-add-packed.mjs'), join(DESTINATION, 'pnpm-add.mjs'))
console.log(`\npack: the public packages are in ${DESTINATION}. In your project, install them with
  npm:   npm install ${DESTINATION}/*.tgz
  pnpm:  node ${DESTINATION}/pnpm-add.mjs`)
