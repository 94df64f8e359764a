#!/usr/bin/env node
// Checked before anything else loads: older Node versions fail later with obscure errors.
const major = Number(process.versions.node.split('.')[0])
if (major < 22) {
  console.error(
    `plan needs Node.js >= 22 (this is ${process.version}); install Node 24 with \`nvm install 24\` or from https://nodejs.org/ and put it first on PATH.`,
  )
  process.exit(1)
}

const { nodeIo } = await import('./node-io.js')
const { runCli } = await import('./run-cli.js')
process.exitCode = await runCli(process.argv.slice(2), nodeIo())
