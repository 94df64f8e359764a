const major = Number(process.versions.node.split('.')[0])
if (major < 22) {
  console.error(
    `The demo needs Node.js >= 22 (this is ${process.version}); install Node 24 with \`nvm install\` (see .nvmrc) or from https://nodejs.org/ and put it first on PATH.`,
  )
  process.exit(1)
}

const { runDemo } = await import('./run-demo.js')
const { removeDemoWorkspacesSync } = await import('./workspace.js')

// A run stopped by a signal must not leave its temporary copy of the fixture behind.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    removeDemoWorkspacesSync()
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1))
  })
}

const args = new Set(process.argv.slice(2))
const json = args.has('--json')
process.exitCode = await runDemo({
  json,
  clean: args.has('--clean'),
  color: !json && process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
  out: process.stdout,
  env: process.env,
})
