// Runs before every pnpm command in this repository: stop at once, in one line, on an old Node.
// The error carries no stack (pnpm prints a hook's error as its message), and it is thrown
// rather than exiting, so pnpm reports it once instead of a worker that exited.
const major = Number(process.versions.node.split('.')[0])
if (major < 22) {
  const error = new Error(`@plan needs Node.js >= 22, not ${process.version}: nvm install (README)`)
  error.stack = error.message
  throw error
}

module.exports = {}
