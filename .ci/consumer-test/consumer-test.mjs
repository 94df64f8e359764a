// End-to-end consumer test: packs every public package with `pnpm pack:public`, installs the
// tarballs into fresh projects with the root README's npm and pnpm commands, verbatim (CI=true;
// everything else from the npm registry), type-checks the README snippets there (strict;
// nodenext and bundler resolution), runs them, and prints install sizes. Any problem fails the
// run. Usage: node .ci/consumer-test/consumer-test.mjs
import { spawnSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '../..')
const MAX_CORE_BYTES = 8 * 1024 * 1024

// Third-party versions: the ones the monorepo is tested with.
const rootManifest = readJson(join(ROOT, 'package.json'))
const langchainManifest = readJson(join(ROOT, 'packages/langchain/package.json'))
const aiSdkManifest = readJson(join(ROOT, 'packages/ai-sdk/package.json'))
const mcpManifest = readJson(join(ROOT, 'packages/mcp/package.json'))
const pin = (manifest, name) => `${name}@${manifest.devDependencies[name]}`
const FRAMEWORKS = {
  aiSdk: [pin(aiSdkManifest, 'ai'), pin(aiSdkManifest, 'zod')],
  langchain: ['langchain', '@langchain/core', '@langchain/langgraph'].map((name) =>
    pin(langchainManifest, name),
  ),
  mcp: [
    pin(mcpManifest, '@modelcontextprotocol/server-filesystem'),
    `@modelcontextprotocol/sdk@${mcpManifest.dependencies['@modelcontextprotocol/sdk']}`,
  ],
  tools: [pin(rootManifest, 'typescript'), pin(rootManifest, '@types/node')],
}

// README snippets: every ```ts block of the root README and of each public package's README.
// Each must be complete (its imports, a scripted model, real tools): it is type-checked and run
// as it is. The @plan/postgres one needs a database: DATABASE_URL is PLAN_TEST_PG_URL.
const README_FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'packages'))
    .filter((dir) => readJson(join(ROOT, 'packages', dir, 'package.json')).private !== true)
    .map((dir) => `packages/${dir}/README.md`),
]

const TSCONFIGS = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'preserve', moduleResolution: 'bundler' },
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'))
}

function fail(message) {
  throw new Error(message)
}

/** Runs a command; throws with its output when it fails. Returns stdout and stderr together. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, CI: 'true', ...options.env },
    encoding: 'utf8',
    input: options.input,
  })
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
  const expected = options.status ?? 0
  if (result.status !== expected)
    fail(`${command} ${args.join(' ')} exited ${result.status} (expected ${expected}):\n${output}`)
  return { output, stdout: result.stdout ?? '' }
}

// Installs must be silent about problems: any warning fails the test.
function assertNoWarnings(what, output) {
  const warnings = output
    .split('\n')
    .filter((line) => /\bwarn(ing)?\b|ERR_PNPM|ignored build/i.test(line))
  if (warnings.length > 0) fail(`${what} printed warnings:\n${warnings.join('\n')}`)
}

/** Every ```ts block of the READMEs, named `<package>-<n>`. */
function readmeSnippets() {
  const snippets = {}
  for (const readme of README_FILES) {
    const text = readFileSync(join(ROOT, readme), 'utf8')
    const owner = readme === 'README.md' ? 'root' : readme.split('/')[1]
    let index = 0
    for (const [, source] of text.matchAll(/^```ts\n([\s\S]*?)\n```$/gm))
      snippets[`${owner}-${index++}`] = `${source}\nexport {}\n`
  }
  if (Object.keys(snippets).length === 0) fail('no ts snippets found in the READMEs')
  return snippets
}

function sizeOf(path) {
  const stat = lstatSync(path)
  if (!stat.isDirectory()) return stat.size
  return readdirSync(path).reduce((total, entry) => total + sizeOf(join(path, entry)), 0)
}

function megabytes(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`
}

/** The size of a package and of its dependencies (zod aside), as installed in a project. */
function installedSize(project, name) {
  const dir = realpathSync(join(project, 'node_modules', name))
  const manifest = readJson(join(dir, 'package.json'))
  const modules = resolve(dir, ...name.split('/').map(() => '..'))
  let bytes = sizeOf(dir)
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    if (dependency === 'zod' || dependency.startsWith('@plan/')) continue
    bytes += sizeOf(realpathSync(join(modules, dependency)))
  }
  return bytes
}

/**
 * The root README's install commands for packed packages, as written there: `pnpm pack:public`
 * here, then the npm and the pnpm command, with `/path/to/plan` standing for this clone.
 */
function installCommands() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('## Install in your project')
  if (start < 0) fail('README.md: no "## Install in your project" section')
  const block = /```sh\n([\s\S]*?)\n```/.exec(readme.slice(start))
  if (block === null) fail('README.md: no sh block under "## Install in your project"')
  const commands = block[1].split('\n').map((line) => line.replace(/\s+#.*$/, '').trim())
  const find = (prefix) =>
    commands.find((command) => command.startsWith(prefix)) ??
    fail(`README.md: no "${prefix}…" command under "## Install in your project"`)
  const here = (command) => command.replaceAll('/path/to/plan', ROOT)
  return {
    pack: find('pnpm pack:public'),
    npm: here(find('npm install ')),
    pnpm: here(find('node ')),
  }
}

/** Runs `pnpm pack:public` as the README says; returns the tarballs it wrote, by package. */
function packPublicPackages(command) {
  run('bash', ['-c', command])
  const packs = join(ROOT, '.pack')
  const tarballs = {}
  for (const dir of readdirSync(join(ROOT, 'packages'))) {
    const manifest = readJson(join(ROOT, 'packages', dir, 'package.json'))
    if (manifest.private === true) continue
    const file = join(
      packs,
      `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`,
    )
    if (!existsSync(file)) fail(`no tarball for ${manifest.name} (${file})`)
    tarballs[manifest.name] = file
  }
  return tarballs
}

function writeProject(project, manager) {
  mkdirSync(project, { recursive: true })
  const manifest = { name: `consumer-${manager}`, private: true, type: 'module' }
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
}

/**
 * The frameworks the snippets use, as the agent a user adds @plan to already has them, then the
 * README's command for this manager, verbatim. (The other order lets pnpm install the peers at
 * their newest first: `langchain` then keeps a second `@langchain/langgraph`, whose types and
 * classes are not those the guard's copy makes.)
 */
function install(project, commands, manager) {
  const frameworks = [
    ...FRAMEWORKS.aiSdk,
    ...FRAMEWORKS.langchain,
    ...FRAMEWORKS.mcp,
    ...FRAMEWORKS.tools,
  ]
  const add =
    manager === 'npm'
      ? ['npm', ['install', '--no-audit', '--no-fund', ...frameworks]]
      : ['pnpm', ['add', ...frameworks]]
  assertNoWarnings(`${manager}: the frameworks`, run(add[0], add[1], { cwd: project }).output)
  assertNoWarnings(
    `${manager}: ${commands[manager]}`,
    run('bash', ['-c', commands[manager]], { cwd: project }).output,
  )
}

function typecheckAndRun(project, snippets) {
  const dir = join(project, 'snippets')
  mkdirSync(dir, { recursive: true })
  for (const [name, source] of Object.entries(snippets))
    writeFileSync(join(dir, `${name}.ts`), source)
  for (const [mode, options] of Object.entries(TSCONFIGS)) {
    const tsconfig = {
      compilerOptions: {
        target: 'es2023',
        lib: ['es2023', 'dom'],
        types: ['node'],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        ...options,
      },
      include: ['snippets'],
    }
    writeFileSync(join(project, `tsconfig.${mode}.json`), JSON.stringify(tsconfig, null, 2))
    run(join(project, 'node_modules/.bin/tsc'), ['-p', `tsconfig.${mode}.json`], { cwd: project })
  }
  const database = process.env.PLAN_TEST_PG_URL
  const ran = []
  for (const name of Object.keys(snippets)) {
    if (name.startsWith('postgres-') && database === undefined) {
      console.log(`consumer-test: ${name} type-checked, not run: PLAN_TEST_PG_URL is not set`)
      continue
    }
    const env = database === undefined ? {} : { DATABASE_URL: database }
    const output = run('node', [join(dir, `${name}.ts`)], { cwd: project, env }).stdout
    ran.push(name)
    if (name === 'core-0' && !output.includes("[ 'read', 'fix', 'test' ]"))
      fail(`core-0 printed:\n${output}`)
  }
  return ran
}

function checkCli(project) {
  const bin = join(project, 'node_modules/.bin/plan')
  run(bin, ['init', '--output', 'plan.policy.json'], { cwd: project })
  const good = JSON.stringify([{ id: 'ls', tool: 'run_command', args: { command: 'ls -la' } }])
  const approved = run(bin, ['check', '-', '-p', 'plan.policy.json', '-f', 'json'], {
    cwd: project,
    input: good,
  })
  if (JSON.parse(approved.stdout).approved !== true) fail(`plan check:\n${approved.output}`)
  const bad = JSON.stringify([{ id: 'x', tool: 'run_command', args: { command: 'ls | sh' } }])
  run(bin, ['check', '-', '-p', 'plan.policy.json'], { cwd: project, input: bad, status: 1 })
  run(bin, ['schema', 'plan', '--policy', 'plan.policy.json'], { cwd: project })
}

const BUILTINS = new Set(builtinModules)

/**
 * The entries that must load on runtimes without Node.js built-ins (edge functions): no module
 * they import statically, directly or not, may import one; and, except where zod is the point
 * (`@plan/audit` reads lines with a zod schema), none may import zod.
 */
const NEUTRAL_ENTRIES = [
  { pkg: '@plan/core', subpath: '.', zod: false },
  { pkg: '@plan/core', subpath: './adapter', zod: false },
  { pkg: '@plan/core', subpath: './internal', zod: false },
  { pkg: '@plan/render', subpath: '.', zod: false },
  { pkg: '@plan/audit', subpath: '.', zod: true },
]

/**
 * The file an `@plan` specifier loads, by that package's exports, from the package beside
 * `from` in node_modules (hoisted by npm, in the same store folder under pnpm) or `project`'s.
 */
function planEntryFile(project, from, specifier) {
  const [scope, name, ...rest] = specifier.split('/')
  const subpath = rest.length === 0 ? '.' : `./${rest.join('/')}`
  const beside = from === undefined ? undefined : besidePackage(from, `${scope}/${name}`)
  const dir = beside ?? realpathSync(join(project, 'node_modules', scope, name))
  const target = readJson(join(dir, 'package.json')).exports?.[subpath]?.default
  if (typeof target !== 'string') fail(`${scope}/${name} exports no ${subpath}`)
  return join(dir, target)
}

/** The folder of package `name` next to the package that holds `file`, if there is one. */
function besidePackage(file, name) {
  let dir = dirname(file)
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir)
  const candidate = join(dir, '..', '..', name)
  return existsSync(join(candidate, 'package.json')) ? realpathSync(candidate) : undefined
}

function checkEntryIsNeutral(project, { pkg, subpath, zod }) {
  const name = subpath === '.' ? pkg : `${pkg}/${subpath.slice(2)}`
  const entry = planEntryFile(project, undefined, name)
  const seen = new Set()
  const pending = [entry]
  while (pending.length > 0) {
    const file = pending.pop()
    if (seen.has(file)) continue
    seen.add(file)
    const source = readFileSync(file, 'utf8')
    for (const [, specifier] of source.matchAll(
      /^(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']/gm,
    )) {
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier))
      else if (specifier.startsWith('@plan/')) pending.push(planEntryFile(project, file, specifier))
      else if (
        specifier.startsWith('node:') ||
        BUILTINS.has(specifier) ||
        (!zod && specifier.startsWith('zod'))
      )
        fail(`${name} imports ${specifier} (in ${file})`)
    }
  }
  if (seen.size < 2) fail(`${name}: only ${seen.size} module found, the scan is broken`)
}

function main() {
  const started = Date.now()
  const work = mkdtempSync(join(tmpdir(), 'plan-consumer-'))
  try {
    const commands = installCommands()
    const tarballs = packPublicPackages(commands.pack)
    const snippets = readmeSnippets()
    const sizes = []
    for (const manager of ['npm', 'pnpm']) {
      const project = join(work, manager)
      writeProject(project, manager)
      install(project, commands, manager)
      for (const name of Object.keys(tarballs))
        sizes.push(
          `${manager.padEnd(4)}  ${name.padEnd(16)}  ${megabytes(installedSize(project, name))}`,
        )
      const core = installedSize(project, '@plan/core')
      if (core > MAX_CORE_BYTES)
        fail(`${manager}: @plan/core with its dependencies takes ${megabytes(core)} (> 8 MB)`)
      for (const entry of NEUTRAL_ENTRIES) checkEntryIsNeutral(project, entry)
      const ran = typecheckAndRun(project, snippets)
      checkCli(project)
      console.log(
        `consumer-test: ${manager}: installed; main entry free of node: and zod imports; ${Object.keys(snippets).length} README snippets type-checked (nodenext, bundler), ${ran.length} run; plan command works`,
      )
    }
    console.log(
      'consumer-test: install sizes (package and its dependencies, zod and @plan/* aside)',
    )
    for (const line of sizes) console.log(`  ${line}`)
    console.log(`consumer-test: passed in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

try {
  main()
} catch (error) {
  console.error(`consumer-test: FAILED\n${error.message}`)
  process.exitCode = 1
}
