import { stringAt } from '../util/item-at.js'
import { familyTable } from './programs/program-families.js'
import type { GlobalOptions } from './programs/program-family.js'

const TABLE: Readonly<Record<string, GlobalOptions>> = {
  ...familyTable((family) => family.globalOptions),
  docker: {
    withValue: [
      '--config',
      '-c',
      '--context',
      '-H',
      '--host',
      '-l',
      '--log-level',
      '--tlscacert',
      '--tlscert',
      '--tlskey',
    ],
    flags: ['-D', '--debug', '--tls', '--tlsverify', '-v', '--version', '-h', '--help'],
  },
  kubectl: {
    withValue: [
      '-n',
      '--namespace',
      '--kubeconfig',
      '--context',
      '--cluster',
      '--user',
      '-s',
      '--server',
      '--token',
      '--as',
      '--as-group',
      '--as-uid',
      '--certificate-authority',
      '--client-certificate',
      '--client-key',
      '--request-timeout',
      '-v',
      '--v',
      '--cache-dir',
      '--profile',
      '--profile-output',
      '--tls-server-name',
      '--username',
      '--password',
    ],
    flags: [
      '--insecure-skip-tls-verify',
      '--match-server-version',
      '--warnings-as-errors',
      '-h',
      '--help',
    ],
  },
}

/** Where a program's subcommand is, or the option before it that the checker cannot place. */
export type SubcommandPosition =
  | { readonly index: number; readonly subcommand: string | undefined }
  | { readonly unknownOption: string }

/**
 * Finds a program's subcommand after its global options. The options each program accepts
 * before the subcommand, and which of them take the next word as a value, are listed, so the
 * value of `git -C dir` or `npm --prefix dir` is never read as the subcommand; an option the
 * table does not list (or any option of a program without a table, unless it is `--opt=value`)
 * fails closed, because its value could be the word that looks like the subcommand.
 */
export function findSubcommand(name: string, args: readonly string[]): SubcommandPosition {
  const table = Object.hasOwn(TABLE, name) ? TABLE[name] : undefined
  let index = 0
  while (index < args.length) {
    const argument = stringAt(args, index)
    if (argument === '--') return { index: index + 1, subcommand: args[index + 1] }
    const prefixed = table?.extraPrefix !== undefined && argument.startsWith(table.extraPrefix)
    if (!argument.startsWith('-') && !prefixed) return { index, subcommand: argument }
    if (prefixed || (table === undefined && argument.startsWith('--') && argument.includes('='))) {
      index += 1
      continue
    }
    if (table === undefined) return { unknownOption: argument }
    const equals = argument.indexOf('=')
    const option = equals === -1 ? argument : argument.slice(0, equals)
    if (table.flags.includes(option) && equals === -1) index += 1
    else if (table.withValue.includes(option)) index += equals === -1 ? 2 : 1
    else if (
      option.length > 2 &&
      !option.startsWith('--') &&
      table.withValue.includes(option.slice(0, 2))
    )
      index += 1 // an attached value: git -Cdir, npm -Cdir
    else return { unknownOption: argument }
  }
  // A last option that takes a value but has none (`git -c`) stepped past the end.
  return { index: Math.min(index, args.length), subcommand: undefined }
}

/** True when the checker lists the global options of this program. */
export function hasGlobalOptions(name: string): boolean {
  return Object.hasOwn(TABLE, name)
}
