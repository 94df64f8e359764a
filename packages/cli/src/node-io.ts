import { invocationDir } from './invocation-dir.js'
import type { CliIo } from './io.js'

/**
 * The real process's streams, folder and environment; relative paths resolve against the folder
 * the user ran the command from (`INIT_CWD` under `pnpm plan` or `npm run`).
 */
export function nodeIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: invocationDir(process.cwd(), process.env),
    env: process.env,
    readStdin: async () => {
      const chunks: Buffer[] = []
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks).toString('utf8')
    },
  }
}
