import { stringAt } from '../util/item-at.js'
import {
  type BuiltinFinding,
  exec,
  FILE_LIST_WHY,
  outsideWrite,
  unknownGlobal,
} from './builtin-finding.js'
import { findSubcommand } from './global-options.js'
import {
  GIT_CONFIG_READS,
  GIT_CONFIG_WRITES,
  GIT_DENIED_SUBCOMMANDS,
  GIT_EXEC_FLAGS,
  SAFE_GIT_CONFIG,
} from './programs/git.js'
import { findFlag, usesFlag } from './uses-flag.js'

const HINT = 'Run plain git subcommands without options that run programs or change configuration.'

/**
 * The built-in rules of git: `-c` and `--config-env` before the subcommand, flags that run
 * programs anywhere, `ext::`/`fd::` transports, `--output`, and subcommands or subcommand
 * flags that run commands (`submodule foreach`, `rebase -x`, `bisect run`, `config` writes, …).
 */
export function checkGit(args: readonly string[]): BuiltinFinding[] {
  const position = findSubcommand('git', args)
  if ('unknownOption' in position) return [unknownGlobal('git', position.unknownOption)]
  const { index } = position
  const findings = globalOptionFindings(args, index)
  for (const argument of args) anywhereFindings(argument, findings)
  findings.push(...subcommandFindings(args[index], args.slice(index + 1)))
  return findings
}

// The options before the subcommand.
function globalOptionFindings(args: readonly string[], index: number): BuiltinFinding[] {
  const findings: BuiltinFinding[] = []
  for (let at = 0; at < index; at += 1) {
    const argument = stringAt(args, at)
    if (argument === '-c' || (argument.startsWith('-c') && !argument.startsWith('--'))) {
      const value = argument === '-c' ? (args[at + 1] ?? '') : argument.slice(2)
      const key = value.split('=')[0]?.toLowerCase() ?? ''
      if (!SAFE_GIT_CONFIG.test(key) && !SAFE_GIT_CONFIG.test(value.toLowerCase())) {
        findings.push(
          exec(
            `git -c ${JSON.stringify(key)} overrides configuration, which can make git run commands (core.pager, core.sshCommand, core.fsmonitor, alias.*, …).`,
            'Do not pass -c to git; only user.*, color.* and advice.* may be overridden.',
          ),
        )
      }
      if (argument === '-c') at += 1
      continue
    }
    if (usesFlag(argument, '--config-env')) {
      findings.push(
        exec(
          'git --config-env sets configuration from the environment, which can make git run commands.',
          HINT,
        ),
      )
    } else if (argument.startsWith('--exec-path')) {
      findings.push(exec('git --exec-path makes git run its helpers from another folder.', HINT))
    }
  }
  return findings
}

// One word anywhere on the line: flags that run programs, --output, command transports; added
// to `findings`.
function anywhereFindings(argument: string, findings: BuiltinFinding[]): void {
  const flag = findFlag(argument, GIT_EXEC_FLAGS)
  if (flag !== undefined) findings.push(exec(`git ${flag} runs a program or installs hooks.`, HINT))
  if (usesFlag(argument, '--pathspec-from-file'))
    findings.push(
      exec(`git --pathspec-from-file ${FILE_LIST_WHY}.`, 'Name the paths as operands after --.'),
    )
  if (usesFlag(argument, '--output')) {
    findings.push({
      code: 'command_flag_denied',
      kind: 'write',
      flag: '--output',
      message:
        'git --output writes a file (it can truncate .git/config and lead to code execution).',
      hint: 'Let git print to stdout; the tool returns the output.',
    })
  }
  // Lower-casing neither adds nor removes a colon: a word without `::` names no transport.
  const lower = argument.includes('::') ? argument.toLowerCase() : ''
  if (lower.includes('ext::') || lower.startsWith('fd::') || lower.includes('=fd::')) {
    findings.push(
      exec(
        'The git remote uses the ext:: or fd:: transport, which runs a command.',
        'Use an https:// or ssh:// remote URL.',
      ),
    )
  }
}

function subcommandFindings(
  subcommand: string | undefined,
  rest: readonly string[],
): BuiltinFinding[] {
  const uses = (flag: string) => rest.some((argument) => usesFlag(argument, flag))
  switch (subcommand) {
    case undefined:
      return []
    case 'clone':
    case 'fetch':
    case 'pull':
    case 'ls-remote':
      return transferFindings(subcommand, rest)
    case 'clean':
      return cleanFindings(rest)
    case 'apply':
      return rest.some((argument) => usesFlag(argument, '--unsafe-paths'))
        ? [
            outsideWrite(
              'git apply --unsafe-paths',
              '--unsafe-paths',
              'the files a patch names wherever they lie',
              'Apply patches to paths inside the work tree, without --unsafe-paths.',
            ),
          ]
        : []
    case 'submodule':
      return rest.includes('foreach')
        ? [exec('git submodule foreach runs a shell command in every submodule.', HINT)]
        : []
    case 'rebase':
      return uses('-x') ? [exec('git rebase -x runs a shell command after each commit.', HINT)] : []
    case 'bisect':
      return rest.includes('run')
        ? [exec('git bisect run runs a command on every step.', HINT)]
        : []
    case 'grep':
      return uses('-O')
        ? [exec('git grep -O runs a pager command on the matching files.', HINT)]
        : []
    case 'config':
      return configFindings(rest)
    case 'help':
      return rest.some((argument) => argument === '-w' || usesFlag(argument, '--web'))
        ? [exec('git help --web starts a browser.', HINT)]
        : []
    default: {
      // An own entry only: `git constructor` is no denied subcommand of the table's prototype.
      if (!Object.hasOwn(GIT_DENIED_SUBCOMMANDS, subcommand)) return []
      return [exec(`git ${subcommand} ${GIT_DENIED_SUBCOMMANDS[subcommand]}.`, HINT)]
    }
  }
}

function transferFindings(subcommand: string, rest: readonly string[]): BuiltinFinding[] {
  const findings: BuiltinFinding[] = []
  if (rest.some((argument) => usesFlag(argument, '-u')))
    findings.push(exec(`git ${subcommand} -u sets the upload-pack program to run.`, HINT))
  if (
    subcommand === 'clone' &&
    rest.some((argument) => usesFlag(argument, '-c') || usesFlag(argument, '--config'))
  ) {
    findings.push(
      exec(
        'git clone -c/--config writes configuration into the new repository, which can make git run commands.',
        HINT,
      ),
    )
  }
  return findings
}

function cleanFindings(rest: readonly string[]): BuiltinFinding[] {
  if (rest.some((argument) => /^-[A-Za-z]*n/.test(argument) || argument === '--dry-run')) return []
  const findings: BuiltinFinding[] = []
  if (rest.some((argument) => /^-[A-Za-z]*[xX]/.test(argument)))
    findings.push({
      code: 'command_flag_denied',
      kind: 'write',
      flag: '-x',
      message: 'git clean -x/-X also deletes ignored files, such as .env and build secrets.',
      hint: 'Name the paths to clean, without -x.',
    })
  if (!rest.some((argument) => !argument.startsWith('-')))
    findings.push({
      code: 'command_flag_denied',
      kind: 'write',
      flag: 'clean',
      message: 'git clean without a pathspec deletes untracked files in the whole work tree.',
      hint: 'Name the folders to clean: git clean -fd build/.',
    })
  return findings
}

/** Flags of `git config` that take no value and neither write nor run anything. */
const CONFIG_VIEW_FLAGS = new Set([
  '--global',
  '--local',
  '--system',
  '--worktree',
  '--show-origin',
  '--show-scope',
  '-z',
  '--null',
  '--name-only',
  '--bool',
  '--int',
  '--bool-or-int',
  '--path',
  '--expiry-date',
  '--includes',
  '--no-includes',
])

/**
 * `git config user.name`: one key (a key always holds a dot, so no subcommand word is one) and
 * only flags that choose where to look or how to print — the read form that takes no action word.
 */
function isKeyRead(rest: readonly string[]): boolean {
  const operands = rest.filter((argument) => !argument.startsWith('-'))
  return (
    operands.length === 1 &&
    operands[0]?.includes('.') === true &&
    rest.every((argument) => !argument.startsWith('-') || CONFIG_VIEW_FLAGS.has(argument))
  )
}

function configFindings(rest: readonly string[]): BuiltinFinding[] {
  const writes = rest.some((argument) => GIT_CONFIG_WRITES.includes(argument))
  const reads =
    !writes && (rest.some((argument) => GIT_CONFIG_READS.includes(argument)) || isKeyRead(rest))
  const firstWord = rest.find((argument) => !argument.startsWith('-'))
  if (writes || (!reads && firstWord !== 'get' && firstWord !== 'list')) {
    return [
      exec(
        'git config that writes settings can make git run commands later (core.pager, alias.*, core.fsmonitor).',
        'Only read configuration: git config --get KEY or git config --list.',
      ),
    ]
  }
  return []
}
