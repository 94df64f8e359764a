import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { isJSONRPCNotification, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** A server transport whose answers wait in `held` (while holding) until `release()`. */
export interface HeldServer extends Transport {
  readonly held: JSONRPCMessage[]
  /** Holds the answers that come from now on. */
  hold(): void
  /** Delivers the answers held so far; later ones are held still, if holding. */
  release(): void
}

/**
 * A server transport that holds its answers (from the start, unless `holding` is false) and
 * keeps `notifications/cancelled` from the server: a server that answers a cancelled request
 * anyway, late.
 */
export function holdingAnswers(inner: Transport, holding = true): HeldServer {
  const held: JSONRPCMessage[] = []
  let holds = holding
  const server: HeldServer = {
    held,
    hold: () => {
      holds = true
    },
    release: () => {
      for (const message of held.splice(0)) server.onmessage?.(message)
    },
    start: () => inner.start(),
    close: () => inner.close(),
    send: async (message, options) => {
      if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') return
      await inner.send(message, options)
    },
  }
  inner.onmessage = (message) => {
    if (holds && 'id' in message && !('method' in message)) held.push(message)
    else server.onmessage?.(message)
  }
  inner.onclose = () => server.onclose?.()
  inner.onerror = (error) => server.onerror?.(error)
  return server
}
