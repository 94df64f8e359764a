import type { CliIo } from '../io.js'
import { runCli } from '../run-cli.js'

/** Where an in-memory run of the CLI starts, and what it reads. */
export interface MemoryRunOptions {
  readonly cwd: string
  readonly stdin?: string
  readonly tty?: boolean
}

/** A CLI's I/O held in memory: what it wrote to stdout and stderr, read back after the run. */
function memoryIo(options: MemoryRunOptions) {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text), isTTY: options.tty ?? false },
    stderr: { write: (text: string) => (stderr += text) },
    readStdin: async () => options.stdin ?? '',
    cwd: options.cwd,
    env: {},
  }
  return { io, out: () => stdout, err: () => stderr }
}

/** Runs `plan` with `argv` in memory: its exit code and what it printed. */
export async function runInMemory(argv: readonly string[], options: MemoryRunOptions) {
  const memory = memoryIo(options)
  const code = await runCli(argv, memory.io)
  return { code, stdout: memory.out(), stderr: memory.err() }
}
