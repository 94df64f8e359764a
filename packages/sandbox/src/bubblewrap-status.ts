import type { Readable } from 'node:stream'

/**
 * Whether bubblewrap's status (`--json-status-fd`, one JSON document a line) reports the exit
 * code of the command. bubblewrap writes it only when the command was executed; it writes none
 * when the sandbox failed to set up or the program could not be started.
 */
export function reportsCommandExit(status: string): boolean {
  for (const line of status.split('\n')) {
    if (line.trim().length === 0) continue
    try {
      const document: unknown = JSON.parse(line)
      if (
        typeof document === 'object' &&
        document !== null &&
        typeof (document as Record<string, unknown>)['exit-code'] === 'number'
      )
        return true
    } catch {
      // A line that is not JSON reports nothing.
    }
  }
  return false
}

/**
 * Reads bubblewrap's status from `stream` (the read end of the descriptor it writes to; the
 * command cannot reach it) and answers, once the process has closed, whether the command ran.
 */
export function watchStatus(stream: Readable): () => boolean {
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  stream.on('error', () => {})
  return () => reportsCommandExit(Buffer.concat(chunks).toString('utf8'))
}
