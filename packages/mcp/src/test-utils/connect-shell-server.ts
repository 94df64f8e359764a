import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { createShellServer, type ShellServerLog } from './shell-server.js'

/** A shell server started in this process, and the client-side transport to it. */
export async function connectShellServer(): Promise<{
  transport: InMemoryTransport
  log: ShellServerLog
}> {
  const { server, log } = createShellServer()
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  return { transport: clientSide, log }
}

/**
 * The client-side transport to a new shell server, at once: its server connects in the
 * background, as a per-session server factory needs.
 */
export function shellServerTransport(): InMemoryTransport {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  void createShellServer().server.connect(serverSide)
  return clientSide
}
