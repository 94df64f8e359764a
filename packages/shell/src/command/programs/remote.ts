import { stringAt } from '../../util/item-at.js'
import { type BuiltinFinding, exec } from '../builtin-finding.js'
import { allButLast, flagMatcher } from '../tree-sources.js'
import type { ProgramFamily } from './program-family.js'

const SSH_DANGEROUS_OPTIONS = new Set([
  'proxycommand',
  'localcommand',
  'permitlocalcommand',
  'knownhostscommand',
  'match',
  'include',
  'pkcs11provider',
  'securitykeyprovider',
  'remotecommand',
  'controlpath',
  'controlmaster',
])

function checkSsh(args: readonly string[], name: string): BuiltinFinding[] {
  const findings: BuiltinFinding[] = []
  const hint =
    'Connect without options that run local programs (ProxyCommand, LocalCommand, -F, -S).'
  const withValue =
    name === 'ssh' ? 'BbcDEeFIiJLlmOoPpQRSWw' : name === 'scp' ? 'cDFiJlOoPSX' : 'BbcDFiJlOoPRSs'
  const denied = name === 'ssh' ? 'FI' : name === 'scp' ? 'FS' : 'FSDbs'
  const operands: string[] = []
  for (let index = 0; index < args.length; index += 1) {
    const argument = stringAt(args, index)
    if (argument === '--') {
      operands.push(...args.slice(index + 1))
      break
    }
    // OpenSSH reads options after the host too (ssh host -oProxyCommand=…), so scan every word.
    if (!argument.startsWith('-') || argument.length < 2) {
      operands.push(argument)
      continue
    }
    for (let position = 1; position < argument.length; position += 1) {
      const letter = argument.charAt(position)
      if (!withValue.includes(letter)) continue
      const rest = argument.slice(position + 1)
      const value = rest.length > 0 ? rest : (args[index + 1] ?? '')
      if (rest.length === 0) index += 1
      if (letter === 'o') {
        // ssh removes quotes and compares keywords case-insensitively: -o '"ProxyCommand" id'.
        const key = value.replace(/["']/g, '').trim().split(/[\s=]/)[0]?.toLowerCase() ?? ''
        if (SSH_DANGEROUS_OPTIONS.has(key))
          findings.push(exec(`${name} -o ${key} runs a local command or loads code.`, hint))
      } else if (denied.includes(letter)) {
        findings.push(
          exec(
            `${name} -${letter} runs a program, loads a library or reads a config file that can run one.`,
            hint,
          ),
        )
      }
      break
    }
  }
  const noCommand = args.some((argument) => /^-[A-Za-z]*N/.test(argument))
  if (name === 'ssh' && operands.length > 0 && !noCommand) {
    findings.push(
      exec(
        operands.length > 1
          ? 'ssh HOST COMMAND runs a command on the host (localhost included).'
          : 'ssh HOST opens a shell on the host (localhost included).',
        'Use a tool made for the remote task; ssh needs allowExec in the policy.',
      ),
    )
  }
  return findings
}

/**
 * The remote shells and transfers: ssh, scp, sftp and rsync (which runs ssh, or the remote
 * shell `-e` names). Their options can make them run local programs; scp and rsync copy
 * their operands to the last one.
 */
export const REMOTE_FAMILY: ProgramFamily = {
  builtins: {
    ssh: { custom: checkSsh },
    scp: { custom: checkSsh },
    sftp: { custom: checkSsh },
    rsync: {
      flags: [
        {
          flags: ['-e', '--rsh', '--rsync-path', '--daemon', '--config'],
          kind: 'exec',
          why: 'runs a remote shell or helper program',
        },
        {
          flags: ['--files-from'],
          kind: 'exec',
          why: 'copies the files a list names, which the check cannot see (a config file)',
        },
      ],
    },
  },
  roles: {
    rsync: {
      operands: 'last-write',
      values: {
        '--exclude': 'inert',
        '--include': 'inert',
        '--files-from': 'read',
        '--log-file': 'write',
        '--temp-dir': 'write',
        '-T': 'write',
        '--backup-dir': 'write',
        '--partial-dir': 'write',
      },
    },
    scp: {
      operands: 'last-write',
      values: { '-P': 'inert', '-l': 'inert', '-i': 'read', '-o': 'inert', '-c': 'inert' },
    },
  },
  treeReads: {
    rsync: { recursive: flagMatcher(['--recursive', '--archive'], 'ra'), sources: allButLast },
    scp: { recursive: flagMatcher([], 'r'), sources: allButLast },
  },
}
