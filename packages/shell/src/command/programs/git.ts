import type { OptionValueRoles, ProgramFamily } from './program-family.js'

// The value-taking options of git log and the commands that show commits like it.
const LOG_VALUES: OptionValueRoles = {
  '-n': 'inert',
  '--format': 'inert',
  '--pretty': 'inert',
  '--since': 'inert',
  '--until': 'inert',
  '--author': 'inert',
  '--grep': 'inert',
  '-L': 'inert',
}
// The options that give a commit, tag or note its message.
const MESSAGE_VALUES: OptionValueRoles = {
  '-m': 'inert',
  '--message': 'inert',
  '-F': 'read',
  '--file': 'read',
}

/**
 * git: the options before its subcommand, and the roles of its arguments by subcommand (the
 * same letter is a flag elsewhere: checkout -m merges, blame -C detects copies).
 */
export const GIT_FAMILY: ProgramFamily = {
  globalOptions: {
    git: {
      withValue: [
        '-C',
        '-c',
        '--git-dir',
        '--work-tree',
        '--namespace',
        '--config-env',
        '--super-prefix',
        '--attr-source',
        '--shallow-file',
        '--exec-path',
        '--list-cmds',
      ],
      flags: [
        '-v',
        '--version',
        '-h',
        '--help',
        '--html-path',
        '--man-path',
        '--info-path',
        '-p',
        '--paginate',
        '-P',
        '--no-pager',
        '--no-replace-objects',
        '--no-lazy-fetch',
        '--no-optional-locks',
        '--no-advice',
        '--bare',
        '--literal-pathspecs',
        '--glob-pathspecs',
        '--noglob-pathspecs',
        '--icase-pathspecs',
      ],
    },
  },
  roles: {
    git: {
      operandsBySubcommand: {
        // subcommands whose operands are only read (paths, revisions, patterns)
        read: [
          'status',
          'diff',
          'log',
          'show',
          'blame',
          'grep',
          'ls-files',
          'add',
          'commit',
          'rev-parse',
          'branch',
          'tag',
          'describe',
          'shortlog',
          'cat-file',
          'ls-tree',
          'fetch',
          'push',
          'remote',
          'reflog',
          'whatchanged',
          'annotate',
          'check-ignore',
          'range-diff',
        ],
        // subcommands that rewrite or delete the files their operands name
        write: [
          'checkout',
          'restore',
          'reset',
          'clean',
          'rm',
          'mv',
          'stash',
          'apply',
          'am',
          'switch',
          'worktree',
          'clone',
          'init',
          'archive',
          'format-patch',
          'bundle',
          'read-tree',
          'checkout-index',
          'update-index',
          'sparse-checkout',
        ],
      },
      otherOperands: 'unknown',
      globalValues: {
        '-C': 'read',
        '--git-dir': 'read',
        '--work-tree': 'read',
        '--shallow-file': 'write',
        '--exec-path': 'command',
        '--config-env': 'command',
        '-c': 'inert',
        '--namespace': 'inert',
        '--attr-source': 'inert',
        '--output': 'write',
      },
      valuesBySubcommand: {
        commit: {
          ...MESSAGE_VALUES,
          '-C': 'inert',
          '-c': 'inert',
          '--author': 'inert',
          '--date': 'inert',
        },
        tag: { ...MESSAGE_VALUES, '-u': 'inert' },
        merge: { ...MESSAGE_VALUES, '-s': 'inert', '-X': 'inert' },
        stash: { '-m': 'inert', '--message': 'inert' },
        notes: MESSAGE_VALUES,
        checkout: { '-b': 'inert', '-B': 'inert', '--orphan': 'inert' },
        switch: { '-c': 'inert', '-C': 'inert', '--orphan': 'inert' },
        log: LOG_VALUES,
        show: LOG_VALUES,
        shortlog: LOG_VALUES,
        diff: { '--output': 'write' },
        'format-patch': { '-o': 'write', '--output-directory': 'write' },
        archive: { '-o': 'write', '--output': 'write', '--prefix': 'inert', '--format': 'inert' },
        clone: {
          '-o': 'inert',
          '--origin': 'inert',
          '-b': 'inert',
          '--branch': 'inert',
          '--depth': 'inert',
          '--reference': 'read',
          '--separate-git-dir': 'write',
          '--template': 'command',
          '-c': 'inert',
          '--config': 'inert',
        },
        worktree: { '-b': 'inert', '-B': 'inert' },
        grep: {
          '-e': 'inert',
          '-f': 'read',
          '-A': 'inert',
          '-B': 'inert',
          '-C': 'inert',
          '-m': 'inert',
        },
        blame: { '-L': 'inert' },
      },
    },
  },
}

// The built-in rules of git (check-git-rules.ts), as data.

/** `git -c` settings that change nothing git runs (names, colours, advice, log and diff display). */
export const SAFE_GIT_CONFIG =
  /^(user\.(name|email)|color\..*|advice\..*|core\.quotepath|init\.defaultbranch|i18n\..*|log\.(date|decorate|abbrevcommit)|diff\.(noprefix|mnemonicprefix|renames|algorithm)|column\.ui|pager\.[a-z-]+=false)$/

/** Subcommands git refuses whatever their options, with why. */
export const GIT_DENIED_SUBCOMMANDS: Readonly<Record<string, string>> = {
  'filter-branch': 'runs shell snippets from its arguments',
  daemon: 'starts a server',
  instaweb: 'starts a web server and a browser',
  'web--browse': 'starts a browser',
  'upload-pack': 'is a transport helper',
  'receive-pack': 'is a transport helper and runs hooks',
  'upload-archive': 'is a transport helper',
  shell: 'is a login shell',
  'remote-ext': 'runs a command as a transport',
  'remote-fd': 'is a transport helper',
  'send-email': 'runs a mailer command (--sendmail-cmd, --smtp-server)',
  hook: 'runs hooks',
  maintenance: 'registers or runs scheduled jobs outside the command (cron, systemd timers)',
  'credential-cache': 'starts a credential daemon',
  'credential-store': 'reads and writes stored credentials',
  credential: 'runs credential helpers and prints credentials',
  p4: 'runs Perforce commands',
  svn: 'runs Subversion commands',
  cvsserver: 'is a server',
  cvsimport: 'runs cvs commands',
  archimport: 'runs arch commands',
  'imap-send': 'runs a tunnel command and sends mail',
  difftool: 'runs the diff tool its options or the configuration name, one program per file',
  mergetool: 'runs the merge tool its options or the configuration name, one program per file',
}

/** Flags that run a program or install hooks, wherever they appear. */
export const GIT_EXEC_FLAGS = [
  '--upload-pack',
  '--receive-pack',
  '--exec',
  '--extcmd',
  '--open-files-in-pager',
  '--template',
  '--config-env',
]

/** Words that make `git config` write settings. */
export const GIT_CONFIG_WRITES = [
  '--add',
  '--replace-all',
  '--unset',
  '--unset-all',
  '--rename-section',
  '--remove-section',
  '--edit',
  '-e',
  'set',
  'unset',
  'edit',
  'rename-section',
  'remove-section',
]
/** Words that make `git config` only read settings. */
export const GIT_CONFIG_READS = [
  '--get',
  '--get-all',
  '--get-regexp',
  '--get-urlmatch',
  '--list',
  '-l',
]
