import { type BuiltinFinding, exec, outsideWrite } from '../builtin-finding.js'
import { flagMatcher } from '../tree-sources.js'
import { findFlag, usesFlag } from '../uses-flag.js'
import type { OperandRoles, ProgramFamily, TreeReads } from './program-family.js'

const COMPRESS_VALUES = { '-S': 'inert', '--suffix': 'inert' } as const

// gzip, xz, zstd, bzip2 … replace their operands unless they write to stdout or only test/list.
const compressorOperands = (args: readonly string[]): OperandRoles =>
  args.some(
    (argument) =>
      /^-[A-Za-z0-9]*[ctl]/.test(argument) ||
      ['--stdout', '--to-stdout', '--test', '--list'].includes(argument),
  )
    ? 'read'
    : 'write'

function checkTar(args: readonly string[]): BuiltinFinding[] {
  const findings: BuiltinFinding[] = []
  const hint = 'Use plain tar options: no command hooks, compression programs or remote archives.'
  const longFlags = [
    '--checkpoint-action',
    '--to-command',
    '--use-compress-program',
    '--info-script',
    '--new-volume-script',
    '--rsh-command',
    '--rmt-command',
  ]
  const forceLocal = args.some((argument) => usesFlag(argument, '--force-local'))
  args.forEach((argument, index) => {
    const long = findFlag(argument, longFlags)
    if (long !== undefined) findings.push(exec(`tar ${long} runs a command.`, hint))
    // Old-style options: the first argument may be a cluster without a dash (tar cIf …).
    const cluster =
      argument.startsWith('-') && !argument.startsWith('--')
        ? argument.slice(1)
        : index === 0 && !argument.startsWith('-')
          ? argument
          : ''
    if (/[IF]/.test(cluster))
      findings.push(exec('tar -I/-F runs a compression program or a volume script.', hint))
    if (/P/.test(cluster) || usesFlag(argument, '--absolute-names'))
      findings.push(
        outsideWrite(
          'tar -P',
          '-P',
          'the members it extracts where their absolute and ../ names point',
          'Run tar without -P; members are then extracted below the target folder.',
        ),
      )
    if (/T/.test(cluster) || usesFlag(argument, '--files-from'))
      findings.push(
        exec(
          'tar -T/--files-from archives the files a list names, which the check cannot see (a config file).',
          'Name the files or folders to archive as operands.',
        ),
      )
    if (!forceLocal && /^[^/]*:/.test(argument.replace(/^-+[A-Za-z]*f/, ''))) {
      findings.push(
        exec(
          'tar treats host:file archives as remote and runs rsh/ssh.',
          'Use a local archive name, or add --force-local.',
        ),
      )
    }
  })
  return findings
}

// `unzip -:` keeps `../` in member names.
function checkUnzip(args: readonly string[]): BuiltinFinding[] {
  return args.some((argument) => usesFlag(argument, '-:'))
    ? [
        outsideWrite(
          'unzip -:',
          '-:',
          'the members it extracts where their ../ names point',
          'Run unzip without -:; members are then extracted below the target folder.',
        ),
      ]
    : []
}

function checkZip(args: readonly string[]): BuiltinFinding[] {
  const testCommand = args.some(
    (argument) =>
      usesFlag(argument, '--unzip-command') ||
      (argument.startsWith('-') &&
        !argument.startsWith('--') &&
        (argument.match(/T/g)?.length ?? 0) >= 2),
  )
  return testCommand
    ? [
        exec(
          'zip -TT/--unzip-command runs a command to test the archive.',
          'Use zip -T without a test command.',
        ),
      ]
    : []
}

const tarCreates = flagMatcher(['--create', '--append', '--update'], 'cru')
// tar reads the trees it archives; its first word may be a bare option cluster (tar czf).
const TAR_TREES: TreeReads = {
  recursive: (args) => /^[A-Za-z]*[cru]/.test(args[0] ?? '') || tarCreates(args),
  sources: (operands, args) => (/^[A-Za-z]+$/.test(args[0] ?? '') ? operands.slice(1) : operands),
}
const GZIP_TREES: TreeReads = {
  recursive: flagMatcher(['--recursive'], 'r'),
  sources: (operands) => operands,
}

/**
 * The compressors and archivers: gzip, xz, bzip2, zstd, lz4, tar, zip, unzip (and their
 * aliases: pigz, pbzip2, zstdmt, gtar, bsdtar).
 */
export const ARCHIVES_FAMILY: ProgramFamily = {
  aliases: { gtar: 'tar', bsdtar: 'tar', zstdmt: 'zstd', pigz: 'gzip', pbzip2: 'bzip2' },
  /**
   * Options of tar and zip that run a command or a compression program, and of tar and unzip
   * that extract outside the target folder.
   */
  builtins: {
    tar: { custom: checkTar },
    zip: { custom: checkZip },
    unzip: { custom: checkUnzip },
  },
  roles: {
    gzip: { operands: compressorOperands, values: COMPRESS_VALUES },
    gunzip: { operands: compressorOperands, values: COMPRESS_VALUES },
    xz: { operands: compressorOperands, values: COMPRESS_VALUES },
    unxz: { operands: compressorOperands, values: COMPRESS_VALUES },
    bzip2: { operands: compressorOperands, values: COMPRESS_VALUES },
    bunzip2: { operands: compressorOperands, values: COMPRESS_VALUES },
    zstd: {
      operands: compressorOperands,
      values: { '-o': 'write', '--output-dir-flat': 'write', '-D': 'read' },
    },
    lz4: { operands: 'second-write' },
    tar: {
      bareOptions: true,
      operands: (args) =>
        /^-?[A-Za-z]*[ct]/.test(args[0] ?? '') && !/^-?[A-Za-z]*x/.test(args[0] ?? '')
          ? 'read'
          : 'unknown',
      values: {
        '-f': 'write',
        '--file': 'write',
        '-C': 'write',
        '--directory': 'write',
        '-T': 'read',
        '--files-from': 'read',
        '-X': 'read',
        '--exclude-from': 'read',
        '--exclude': 'inert',
        '-b': 'inert',
      },
    },
    unzip: { operands: 'read', values: { '-d': 'write', '-x': 'inert', '-P': 'inert' } },
    zip: {
      operands: 'unknown',
      values: {
        '-b': 'write',
        '--temp-path': 'write',
        '-x': 'inert',
        '-i': 'inert',
        '-P': 'inert',
        '-O': 'write',
        '--output-file': 'write',
      },
    },
  },
  treeReads: {
    zip: {
      recursive: flagMatcher(['--recurse-paths'], 'rR'),
      sources: (operands) => operands.slice(1),
    },
    tar: TAR_TREES,
    gtar: TAR_TREES,
    bsdtar: TAR_TREES,
    gzip: GZIP_TREES,
    gunzip: GZIP_TREES,
  },
}
