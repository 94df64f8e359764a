// An agent's host process for the descriptor tests, started with descriptors of its own: it
// runs the commands of the request (JSON, first argument) in a sandbox and prints on stdout, as
// JSON, which descriptors it holds without close-on-exec and what each command returned.
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
  /** The environment of the host process (it may start with none). */
  readonly env: Readonly<Record<string, string>>
  readonly root: string
  readonly home: string
  /** PATH of the host process, where bwrap, prlimit and bash are looked up. */
  readonly hostPath: string
  /** PATH of the commands inside the sandbox. */
  readonly path: string
  readonly commands: readonly (readonly string[])[]
}

const request = JSON.parse(process.argv[2] ?? '{}') as Request
Object.assign(process.env, request.env, { PATH: request.hostPath })
const { createSandbox } = await import('../create-sandbox.js')
const { closesOnExec, openDescriptors } = await import('../inherited-descriptors.js')
const { SandboxError } = await import('../sandbox-error.js')

const inherited = openDescriptors(3)?.filter((fd) => !closesOnExec(fd))
const sandbox = createSandbox(
  { version: 1, workspace: { roots: [request.root] }, tools: {} },
  { hostHome: request.home, path: request.path },
)
const results: unknown[] = []
for (const argv of request.commands) {
  try {
    results.push(await sandbox.run(argv))
  } catch (error) {
    if (!SandboxError.isInstance(error)) throw error
    results.push({ issue: error.issues[0] })
  }
}
process.stdout.write(JSON.stringify({ inherited, results }))
