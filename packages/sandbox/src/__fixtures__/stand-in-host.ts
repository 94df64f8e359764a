// An agent's host process for the stand-in tests, run as another user: it runs the commands
// of the request (JSON, first argument) in one sandbox after another and prints, as JSON, what
// each returned.
import { registerHooks } from 'node:module'

// The package's sources import each other as `.js`; run the `.ts` files beside them.
registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context)
    } catch (error) {
      if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw error
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context)
    }
  },
})

interface Request {
  readonly root: string
  readonly home: string
  readonly path: string
  readonly readOnly: string[]
  readonly commands: readonly (readonly string[])[]
}

const request = JSON.parse(process.argv[2] ?? '{}') as Request
const { createSandbox } = await import('../create-sandbox.js')

const sandbox = createSandbox(
  { version: 1, workspace: { roots: [request.root], readOnly: request.readOnly }, tools: {} },
  { hostHome: request.home, path: request.path },
)
const results: unknown[] = []
for (const argv of request.commands) {
  const { exitCode, stdout, stderr } = await sandbox.run(argv, { cwd: request.root })
  results.push({ exitCode, stdout, stderr })
}
process.stdout.write(JSON.stringify({ uid: process.getuid?.(), results }))
