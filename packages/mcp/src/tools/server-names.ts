import { PlanError } from '@plan/core'

/** Between a server's name and its tool's or prompt's name in the policy and in listings. */
export const SERVER_SEPARATOR = '__'

const SERVER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?$/

/**
 * Names of one server's tools and prompts as the policy and the client know them. Without a
 * server name, a server's names are used as they are; with one (`fs`), each is qualified
 * (`fs__read_text_file`), so two servers behind one policy never share an entry, and a name a
 * client sends is the server's only when it carries this server's prefix.
 */
export interface ServerNames {
  readonly server: string | undefined
  /** The policy's and the client's name of the server's `name`. */
  qualify(name: string): string
  /** The server's own name of a qualified name, or undefined when it is not this server's. */
  unqualify(qualified: string): string | undefined
}

/** The names of the server called `server` (none: names as they are); throws for a bad name. */
export function serverNames(server: string | undefined): ServerNames {
  if (server === undefined)
    return { server, qualify: (name) => name, unqualify: (qualified) => qualified }
  if (typeof server !== 'string' || !SERVER_NAME.test(server))
    throw new PlanError(
      `The server name ${JSON.stringify(server)} must be 1 to 64 letters, digits and inner "-" (no "_", which separates it from tool names).`,
      { code: 'invalid_configuration' },
    )
  const prefix = `${server}${SERVER_SEPARATOR}`
  return {
    server,
    qualify: (name) => `${prefix}${name}`,
    unqualify: (qualified) =>
      qualified.startsWith(prefix) && qualified.length > prefix.length
        ? qualified.slice(prefix.length)
        : undefined,
  }
}
