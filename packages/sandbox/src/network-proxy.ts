import { mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { posix } from 'node:path'
import { hostAllowed } from '@plan/core/adapter'
import type { CommandViolation } from '@plan/tools'

/** A filtering HTTP proxy on a Unix socket, for one sandboxed command. */
export interface NetworkProxy {
  /** The host path of the proxy's socket. */
  readonly socket: string
  /** Hosts refused so far. */
  readonly violations: CommandViolation[]
  close(): void
}

const MAX_HEAD = 64 * 1024

/** Parses `host:port` or an absolute `http://` URL from a request line. */
function target(method: string, uri: string): { host: string; port: number; path?: string } {
  if (method === 'CONNECT') {
    const url = new URL(`http://${uri}`)
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 443) }
  }
  const url = new URL(uri)
  if (url.protocol !== 'http:') throw new Error('only http:// URLs go through a plain request')
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 80),
    path: `${url.pathname}${url.search}`,
  }
}

function handle(
  client: Socket,
  allow: readonly string[],
  violations: CommandViolation[],
  sockets: Set<Socket>,
): void {
  let head = Buffer.alloc(0)
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk])
    const end = head.indexOf('\r\n\r\n')
    if (end === -1) {
      if (head.length > MAX_HEAD) client.destroy()
      return
    }
    client.off('data', onData)
    const lines = head.subarray(0, end).toString('latin1').split('\r\n')
    const [method = '', uri = '', version = 'HTTP/1.1'] = (lines[0] ?? '').split(' ')
    let where: ReturnType<typeof target>
    try {
      where = target(method, uri)
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
      return
    }
    if (!hostAllowed(where.host, allow)) {
      violations.push({
        kind: 'network',
        message: `connection to ${where.host}:${where.port} refused: host not in sandbox.network.allow`,
        target: where.host,
      })
      client.end(
        'HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\nhost not allowed by the policy\n',
      )
      return
    }
    const upstream = connect({ host: where.host, port: where.port })
    sockets.add(upstream)
    upstream.on('close', () => sockets.delete(upstream))
    client.on('close', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
    upstream.on('connect', () => {
      const rest = head.subarray(end + 4)
      if (method === 'CONNECT') client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      else
        upstream.write(
          `${method} ${where.path} ${version}\r\n${lines.slice(1).join('\r\n')}\r\n\r\n`,
        )
      if (rest.length > 0) upstream.write(rest)
      client.pipe(upstream).pipe(client)
    })
  }
  client.on('data', onData)
  client.on('error', () => client.destroy())
}

/**
 * Starts a proxy that lets a sandboxed command reach only the allowed hosts (HTTP `CONNECT`
 * for TLS and other TCP, absolute `http://` requests for plain HTTP). Every refused host is
 * recorded as a violation. The socket is ready when this returns.
 */
export function startNetworkProxy(allow: readonly string[]): NetworkProxy {
  const folder = mkdtempSync(posix.join(tmpdir(), 'plan-sandbox-net-'))
  const socket = posix.join(folder, 'proxy.sock')
  const violations: CommandViolation[] = []
  const clients = new Set<Socket>()
  const server: Server = createServer((client) => {
    clients.add(client)
    client.on('close', () => clients.delete(client))
    handle(client, allow, violations, clients)
  })
  server.listen(socket)
  server.unref()
  return {
    socket,
    violations,
    close() {
      server.close()
      for (const client of clients) client.destroy()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}
