import { type BuiltinFinding, exec } from '../builtin-finding.js'
import { checkAwkProgram } from '../check-awk-program.js'
import { checkSedScript } from '../check-sed-script.js'
import { parseAwkArguments } from '../parse-awk-arguments.js'
import { parseSedArguments } from '../parse-sed-arguments.js'
import { afterPattern, flagMatcher } from '../tree-sources.js'
import type { OptionValueRoles, ProgramFamily, ProgramRoles, TreeReads } from './program-family.js'

// sed's script options: -e gives a script, -f a script file (its built-in rule refuses -f).
const SED_VALUES: OptionValueRoles = {
  '-e': 'command',
  '--expression': 'command',
  '-f': 'command',
  '--file': 'command',
  '-l': 'inert',
  '--line-length': 'inert',
}

// grep-like programs: the first operand is a pattern unless -e/-f gives it.
const GREP_ROLES: ProgramRoles = {
  operands: 'read',
  patternFirst: true,
  values: {
    '-e': 'inert',
    '--regexp': 'inert',
    '-f': 'read',
    '--file': 'read',
    '-A': 'inert',
    '-B': 'inert',
    '-C': 'inert',
    '-m': 'inert',
    '-g': 'inert',
    '--glob': 'inert',
    '-t': 'inert',
    '--type': 'inert',
    '--pre': 'command',
    '--pre-glob': 'inert',
  },
}
const GREP_PROGRAMS = ['grep', 'egrep', 'fgrep', 'zgrep', 'rg', 'ag', 'ack']

const grepRecursive = flagMatcher(['--recursive', '--dereference-recursive', '--directories'], 'rR')
// grep reads trees with -r (or --directories=recurse).
const GREP_TREES: TreeReads = {
  recursive: (args) => grepRecursive(args) || args.includes('recurse'),
  sources: afterPattern,
}
const showsHidden = flagMatcher(
  ['--hidden', '--no-ignore', '--unrestricted', '--no-ignore-dot'],
  'u.',
)
// ripgrep and its kin always search trees, skipping hidden files unless told otherwise.
const RIPGREP_TREES: TreeReads = {
  recursive: (args) => !args.includes('--files'),
  sources: afterPattern,
  skipsHidden: (args) => !showsHidden(args),
}

function checkSed(args: readonly string[]): BuiltinFinding[] {
  const parsed = parseSedArguments(args)
  const findings: BuiltinFinding[] = []
  if (parsed.scriptFile)
    findings.push(
      exec(
        'sed -f runs a script file the check cannot read.',
        'Pass the sed script inline with -e.',
      ),
    )
  for (const script of parsed.scripts) {
    const problem = checkSedScript(script)
    if (problem !== undefined) {
      findings.push(
        exec(
          `The sed script uses ${problem}.`,
          'Use sed only to print or substitute (s/a/b/g, -n 1,5p); no e, w, r commands or s///e, s///w flags.',
        ),
      )
    }
  }
  return findings
}

function checkAwk(args: readonly string[]): BuiltinFinding[] {
  const parsed = parseAwkArguments(args)
  const findings: BuiltinFinding[] = []
  for (const option of parsed.unsafeOptions) {
    findings.push(
      exec(
        `awk ${option} loads, writes or debugs code outside the checked program.`,
        'Pass the awk program inline, without -f, -E, -i, -l, -o, -p, -d or -D.',
      ),
    )
  }
  for (const program of parsed.programs) {
    const problem = checkAwkProgram(program)
    if (problem !== undefined) {
      findings.push(
        exec(
          `The awk program uses ${problem}.`,
          'Use awk only to select and print fields; no system(), pipes, getline or output redirection.',
        ),
      )
    }
  }
  return findings
}

/**
 * The text tools that read a script or a pattern before their files: sed (and `sed -i`, the
 * roles of sed when it edits in place), awk, and the grep-like searchers (grep, rg, ag, ack …).
 * The built-in rules of sed and awk check the script or program itself.
 */
export const TEXT_TOOLS_FAMILY: ProgramFamily = {
  aliases: { gsed: 'sed', gawk: 'awk', mawk: 'awk', nawk: 'awk' },
  builtins: {
    sed: { custom: checkSed },
    awk: { custom: checkAwk },
    rg: {
      flags: [
        {
          flags: ['--pre', '--pre-glob', '--hostname-bin', '--search-zip', '-z'],
          kind: 'exec',
          why: 'runs a preprocessor or decompression program',
        },
      ],
    },
  },
  roles: {
    sed: { operands: 'read', values: SED_VALUES },
    'sed -i': { operands: 'write', values: SED_VALUES },
    awk: {
      operands: 'read',
      values: {
        '-f': 'command',
        '--file': 'command',
        '-e': 'command',
        '--source': 'command',
        '-v': 'inert',
        '--assign': 'inert',
        '-F': 'inert',
        '--field-separator': 'inert',
        '-W': 'command',
        '-i': 'command',
        '--include': 'command',
        '-l': 'command',
        '--load': 'command',
        '-E': 'command',
        '--exec': 'command',
      },
    },
    ...Object.fromEntries(GREP_PROGRAMS.map((name) => [name, GREP_ROLES])),
  },
  treeReads: {
    grep: GREP_TREES,
    egrep: GREP_TREES,
    fgrep: GREP_TREES,
    rg: RIPGREP_TREES,
    ag: RIPGREP_TREES,
    ack: RIPGREP_TREES,
  },
}
