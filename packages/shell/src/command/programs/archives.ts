import type { OperandRoles, ProgramFamily } from './program-family.js'

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

/**
 * The compressors and archivers: gzip, xz, bzip2, zstd, lz4, tar, zip, unzip (and the aliases
 * that take their roles: pigz, pbzip2, zstdmt, gtar, bsdtar).
 */
export const ARCHIVES_FAMILY: ProgramFamily = {
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
}
