import { type BuiltinFinding, exec, fileListFlags, type ProgramSpec } from '../builtin-finding.js'
import { type FlagStyle, usesFlag } from '../uses-flag.js'
import type { ProgramFamily } from './program-family.js'

// rpm modes that install or erase packages run the packages' scriptlets.
function checkRpm(args: readonly string[]): BuiltinFinding[] {
  const mode = args.find((argument) => argument.startsWith('-'))
  const installs =
    mode !== undefined &&
    (/^-[iUFe]/.test(mode) ||
      ['--install', '--upgrade', '--freshen', '--erase', '--reinstall'].some((flag) =>
        usesFlag(mode, flag),
      ))
  return installs
    ? [
        exec(
          'rpm installing or erasing a package runs its scriptlets.',
          'Query packages only (rpm -q).',
        ),
      ]
    : []
}

function checkSocat(args: readonly string[]): BuiltinFinding[] {
  const address = args.find((argument) => /(^|[!,])\s*(exec|system):/i.test(argument))
  return address === undefined
    ? []
    : [exec(`socat ${address} runs a program.`, 'Use socat only between sockets and files.')]
}

const execFlags = (flags: readonly string[], why: string, style?: FlagStyle): ProgramSpec => ({
  ...(style === undefined ? {} : { style }),
  flags: [{ flags, kind: 'exec', why }],
})

// Programs whose flags or subcommands run inline code, a command or a library.
/** Programs (most from GTFOBins) whose flags or subcommands run inline code, a command or a library. */
export const EXEC_RULES: Readonly<Record<string, ProgramSpec>> = {
  sort: {
    flags: [
      { flags: ['--compress-program'], kind: 'exec', why: 'runs a compression program' },
      fileListFlags(['--files0-from']),
    ],
  },
  split: execFlags(['--filter'], 'runs a shell command for every piece'),
  openssl: execFlags(
    ['-engine', '-keygen_engine', '-ssl_client_engine', '-provider', '-provider-path', '-config'],
    'loads an engine, a provider or a config file that can load one',
    'single',
  ),
  rpm: {
    ...execFlags(
      ['--eval', '-E', '--macros', '--rcfile', '--pipe', '--load'],
      'evaluates macros, which can run shell commands',
    ),
    custom: checkRpm,
  },
  pdflatex: execFlags(
    ['--shell-escape', '-shell-escape', '--enable-write18', '-enable-write18'],
    'lets the document run shell commands (\\write18)',
  ),
  fzf: execFlags(
    ['--bind', '--preview', '--with-shell', '--listen', '--listen-unsafe'],
    'runs commands on key presses or for the preview',
  ),
  kubectl: {
    flags: [
      {
        flags: ['--kubeconfig'],
        kind: 'exec',
        why: 'reads a kubeconfig whose exec plugins run commands',
      },
    ],
    execSubcommands: [
      'exec',
      'run',
      'debug',
      'attach',
      'plugin',
      'edit',
      'proxy',
      'port-forward',
      'cp',
      'apply',
      'create',
      'replace',
      'patch',
    ],
  },
  docker: {
    flags: [
      {
        flags: ['--config', '-H', '--host', '-c', '--context'],
        kind: 'exec',
        why: 'selects the daemon or a config with credential helpers',
      },
    ],
    execSubcommands: [
      'run',
      'exec',
      'create',
      'start',
      'attach',
      'compose',
      'build',
      'buildx',
      'container',
      'plugin',
      'cp',
      'commit',
      'load',
      'import',
      'context',
    ],
  },
  restic: execFlags(
    ['--password-command', '-o', '--option', '--repository-file', '--password-file'],
    'runs a password command or a backend command',
  ),
  cpio: execFlags(
    ['--rsh-command', '--rmt-command', '-F', '--file', '-O', '-I'],
    'runs a remote shell for host:archive names',
  ),
  code: { execSubcommands: ['tunnel', 'serve-web', 'server'] },
  'apt-get': {
    ...execFlags(
      ['-o', '--option', '-c', '--config-file'],
      'sets configuration that runs hooks (APT::Update::Pre-Invoke)',
    ),
    execSubcommands: [
      'install',
      'remove',
      'purge',
      'upgrade',
      'dist-upgrade',
      'full-upgrade',
      'reinstall',
      'build-dep',
      'source',
      'autoremove',
      'changelog',
    ],
  },
  busctl: execFlags(['--address'], 'connects through a unixexec: address, which runs a program'),
  cdist: { execSubcommands: ['shell'] },
  'ansible-test': { execSubcommands: ['shell'] },
  certbot: execFlags(
    [
      '--pre-hook',
      '--post-hook',
      '--deploy-hook',
      '--renew-hook',
      '--manual-auth-hook',
      '--manual-cleanup-hook',
      '--config-dir',
      '-c',
      '--config',
    ],
    'runs hook commands or reads a config that sets them',
  ),
  ctr: { execSubcommands: ['run', 'exec', 'tasks', 't', 'container', 'c'] },
  dhclient: execFlags(['-sf'], 'runs a script', 'single'),
  dnsmasq: execFlags(
    ['--conf-script', '--dhcp-script', '--dhcp-luascript', '--conf-file', '-C'],
    'runs a script or reads a config that sets one',
  ),
  dpkg: execFlags(
    [
      '-i',
      '--install',
      '--unpack',
      '--configure',
      '-r',
      '--remove',
      '-P',
      '--purge',
      '--triggers-only',
    ],
    'runs package maintainer scripts',
  ),
  dvips: execFlags(['-R'], 'changes the shell-escape restriction'),
  gem: { execSubcommands: ['open', 'install', 'update', 'build', 'exec', 'edit'] },
  genie: execFlags(
    ['-c', '--command', '-s', '--shell', '-l', '--login'],
    'runs a command or a shell',
  ),
  openvpn: execFlags(
    [
      '--up',
      '--down',
      '--script-security',
      '--config',
      '--route-up',
      '--route-pre-down',
      '--ipchange',
      '--client-connect',
      '--client-disconnect',
      '--tls-verify',
      '--auth-user-pass-verify',
      '--learn-address',
      '--plugin',
    ],
    'runs scripts or loads plugins',
  ),
  pidstat: execFlags(['-e'], 'runs a program'),
  pip: {
    ...execFlags(['--editor'], 'runs an editor'),
    execSubcommands: ['install', 'download', 'wheel', 'config'],
  },
  pkg: { execSubcommands: ['install', 'add', 'upgrade'] },
  plymouth: execFlags(['--command'], 'runs a command'),
  scrot: execFlags(['-e', '--exec'], 'runs a command on the screenshot'),
  snap: { execSubcommands: ['install', 'run', 'try'] },
  socket: execFlags(['-p'], 'connects a program to the socket'),
  task: { execSubcommands: ['execute'] },
  xdotool: { execSubcommands: ['exec'] },
  'yt-dlp': execFlags(
    [
      '--exec',
      '--exec-before-download',
      '--downloader',
      '--external-downloader',
      '--downloader-args',
      '--external-downloader-args',
      '--postprocessor-args',
      '--config-locations',
    ],
    'runs a command or a downloader',
  ),
  yum: {
    ...execFlags(['-c', '--config', '--setopt'], 'reads configuration that can run plugins'),
    execSubcommands: [
      'install',
      'localinstall',
      'update',
      'upgrade',
      'reinstall',
      'remove',
      'erase',
      'downgrade',
      'shell',
      'groupinstall',
    ],
  },
}

/**
 * Programs of no other family whose flags or subcommands run code or write files: the
 * {@link EXEC_RULES}, version control, network tools, browsers (and their aliases), and the
 * file options of openssl.
 */
export const EXEC_FAMILY: ProgramFamily = {
  aliases: {
    chromium: 'chrome',
    'chromium-browser': 'chrome',
    'google-chrome': 'chrome',
    'google-chrome-stable': 'chrome',
    electron: 'chrome',
    ncat: 'nc',
    netcat: 'nc',
    latex: 'pdflatex',
    xelatex: 'pdflatex',
    lualatex: 'pdflatex',
    pdftex: 'pdflatex',
    tex: 'pdflatex',
    etex: 'pdflatex',
    luatex: 'pdflatex',
    xetex: 'pdflatex',
    rpmbuild: 'rpm',
    rpmdb: 'rpm',
    rpmverify: 'rpm',
    rpmquery: 'rpm',
    apt: 'apt-get',
    dnf: 'yum',
    pip3: 'pip',
  },
  builtins: {
    ...EXEC_RULES,
    socat: { custom: checkSocat },
    bundle: { execSubcommands: ['exec'] },
    bundler: { execSubcommands: ['exec'] },
    composer: { execSubcommands: ['exec'] },
    tcpdump: {
      flags: [{ flags: ['-z'], kind: 'exec', why: 'runs a command on every saved file' }],
    },
    hg: {
      flags: [
        {
          flags: ['--config', '--debugger'],
          kind: 'exec',
          why: 'can alias a command to a shell snippet',
        },
      ],
    },
    svn: {
      flags: [
        {
          flags: ['--config-option', '--editor-cmd', '--diff-cmd', '--diff3-cmd', '--config-dir'],
          kind: 'exec',
          why: 'runs a configured program',
        },
      ],
    },
    wget: {
      flags: [
        {
          flags: ['--use-askpass', '--execute', '-e'],
          kind: 'exec',
          why: 'runs a program or wgetrc commands',
        },
      ],
    },
    chrome: {
      flags: [
        {
          flags: [
            '--gpu-launcher',
            '--renderer-cmd-prefix',
            '--utility-cmd-prefix',
            '--browser-subprocess-path',
            '--plugin-launcher',
            '--ppapi-plugin-launcher',
          ],
          kind: 'exec',
          why: 'runs a launcher command',
        },
      ],
    },
    nc: {
      flags: [
        {
          flags: ['-e', '-c', '--exec', '--sh-exec', '--lua-exec'],
          kind: 'exec',
          why: 'connects a program to the network',
        },
      ],
    },
    'ssh-keygen': { flags: [{ flags: ['-D'], kind: 'exec', why: 'loads a PKCS#11 library' }] },
    aria2c: {
      flags: [
        {
          flags: [
            '--on-download-complete',
            '--on-download-error',
            '--on-download-start',
            '--on-download-pause',
            '--on-download-stop',
            '--on-bt-download-complete',
          ],
          kind: 'exec',
          why: 'runs a hook command',
        },
      ],
    },
    nmap: {
      flags: [{ flags: ['--script', '--interactive', '-sC'], kind: 'exec', why: 'runs scripts' }],
    },
  },
  roles: {
    openssl: {
      operands: 'unknown',
      values: {
        '-in': 'read',
        '-out': 'write',
        '-inkey': 'read',
        '-key': 'read',
        '-keyout': 'write',
        '-CAfile': 'read',
        '-CApath': 'read',
        '-cert': 'read',
        '-config': 'command',
        '-engine': 'command',
        '-passin': 'read',
        '-passout': 'read',
        '-rand': 'read',
        '-writerand': 'write',
      },
    },
  },
}
