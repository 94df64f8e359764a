// Runs before every pnpm command in this repository: stop at once, in one line, on an old Node.
const major = Number(process.versions.node.split('.')[0])
if (major < 22) {
  console.error(
    `@plan needs Node.js >= 22 (this is ${process.version}); install Node 24 with \`nvm install\` (see .nvmrc) or from https://nodejs.org/ and put it first on PATH.`,
  )
  process.exit(1)
}

module.exports = {}
