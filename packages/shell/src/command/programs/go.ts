import { type BuiltinFinding, exec, outsideWrite } from '../builtin-finding.js'
import { findFlag } from '../uses-flag.js'
import { wordsRole } from '../value-roles.js'
import type { ProgramFamily } from './program-family.js'

// go build flags: words of -ldflags and -gcflags that only tune the output.
const GO_LDFLAGS = /^(-s|-w|-X=.*|-buildid=.*|-linkmode=internal|-v|-strictdups=\d)$|^[^-]/
const GO_GCFLAGS = /^(-N|-l|-m|-m=\d|-S|-B|-live|-d=checkptr(=\d)?|-race)$/
// The `go env -w` settings that name no program or flags.
const GO_ENV_SAFE_SETTING =
  /^(GOPRIVATE|GONOPROXY|GO111MODULE|GOOS|GOARCH|GOAMD64|GOARM|GOARM64|CGO_ENABLED|GOTELEMETRY|GOWORK|GODEBUG)=[A-Za-z0-9_.,:/@*=+-]*$/

// The `go env -w` settings that pick the module proxy or turn off checksum verification.
const GO_ENV_MODULE_SOURCE = /^(GOPROXY|GOSUMDB|GONOSUMDB|GOINSECURE)=/

// `go tool NAME`: the toolchain programs that run nothing else. cgo and link (-extld) run
// programs, trace starts a server; any other name is a tool the module declares (its code).
const GO_TOOLS_SAFE = new Set([
  'addr2line',
  'buildid',
  'cover',
  'dist',
  'doc',
  'fix',
  'nm',
  'objdump',
  'pprof',
  'test2json',
  'vet',
])
// pprof options that start a server, open a browser or run programs from a folder it is given.
const PPROF_RUNS = /^--?(http|web|weblist|tools|svg|pdf|png|gif|evince|gv|disasm)(=|$)/

function goToolFindings(rest: readonly string[]): BuiltinFinding[] {
  const [tool = '', ...args] = rest
  const refuse = (why: string) => [
    exec(
      `go tool ${tool} ${why}.`,
      'Use go build, go test and go vet, or go tool nm, objdump, cover -func.',
    ),
  ]
  if (!GO_TOOLS_SAFE.has(tool))
    return refuse(
      'is not a tool known to run nothing else (link and cgo run programs, trace starts a server, another name is a tool the module declares)',
    )
  if (tool === 'pprof' && args.some((argument) => PPROF_RUNS.test(argument)))
    return refuse('with this option starts a server, opens a browser or runs programs it finds')
  if (
    tool === 'cover' &&
    args.some((argument) => argument.startsWith('-html')) &&
    !args.some((argument) => argument === '-o' || argument.startsWith('-o='))
  )
    return refuse('-html without -o opens a browser')
  return []
}

function checkGo(args: readonly string[]): BuiltinFinding[] {
  const findings: BuiltinFinding[] = []
  // `go -C dir SUBCOMMAND`: the subcommand follows the folder.
  const rest = args[0] === '-C' ? args.slice(2) : args
  if (rest[0] === 'tool') findings.push(...goToolFindings(rest.slice(1)))
  for (const argument of args) {
    const normalised = argument.startsWith('--') ? argument.slice(1) : argument
    const flag = findFlag(normalised, ['-exec', '-toolexec', '-overlay'], 'single')
    if (flag !== undefined)
      findings.push(exec(`go ${flag} runs another program.`, 'Run go without -exec or -toolexec.'))
  }
  if (rest[0] === 'install')
    findings.push(
      outsideWrite(
        'go install',
        'install',
        'the programs it builds into GOBIN (~/go/bin), a folder on the PATH',
        'Build into the workspace: go build -o bin/ ./cmd/NAME.',
      ),
    )
  if (rest[0] === 'run' && rest.some((argument) => argument.includes('@'))) {
    findings.push(
      exec(
        'go run MODULE@VERSION downloads and runs code.',
        'Run code from the workspace only.',
        'command_wrapper',
      ),
    )
  }
  return findings
}

// `go env -w KEY=VALUE` persists settings for every later go command.
function goEnvFindings(args: readonly string[]): BuiltinFinding[] {
  if (args[0] !== 'env') return []
  const writes = args.indexOf('-w')
  if (writes === -1 && !args.some((argument) => argument.startsWith('-w='))) return []
  const settings = args.slice(1).filter((argument) => !argument.startsWith('-'))
  const source = settings.find((setting) => GO_ENV_MODULE_SOURCE.test(setting))
  if (source !== undefined)
    return [
      exec(
        `go env -w ${source} persists where modules are downloaded from, or which of them are checked against the checksum database, for every later go command.`,
        'Pass GOPROXY and GOSUMDB settings to the one command that needs them, not into the user configuration.',
      ),
    ]
  const refused = settings.find((setting) => !GO_ENV_SAFE_SETTING.test(setting))
  if (refused === undefined && settings.length > 0) return []
  return [
    exec(
      `go env -w ${refused ?? ''} persists a setting that can name programs or flags (GOFLAGS, CC, CXX, GOTOOLCHAIN, …) for every later go command.`,
      'Persist only plain settings (GOPRIVATE, CGO_ENABLED, GOOS); pass build flags on the command line.',
    ),
  ]
}

/** go, the Go toolchain. */
export const GO_FAMILY: ProgramFamily = {
  /** Flags that run another program, and `go run` of a module from elsewhere. */
  builtins: { go: { custom: checkGo } },
  globalOptions: {
    go: { withValue: [], flags: [] },
  },
  roles: {
    go: {
      operands: 'unknown',
      values: {
        '-o': 'write',
        '-C': 'write',
        '-modfile': 'read',
        '-run': 'inert',
        '-bench': 'inert',
        '-tags': 'inert',
        '-ldflags': 'inert',
        '-gcflags': 'inert',
        '-exec': 'command',
        '-toolexec': 'command',
        '-overlay': 'command',
      },
    },
  },
  valueChecks: { go: goEnvFindings },
  valueOptions: {
    go: [
      {
        spellings: ['-ldflags', '--ldflags'],
        role: wordsRole(GO_LDFLAGS),
        why: 'linker flags can name an external linker or its flags (-extld, -extldflags, -I)',
      },
      {
        spellings: ['-gcflags', '--gcflags'],
        role: wordsRole(GO_GCFLAGS),
        why: 'compiler flags other than the debugging ones can load files or plugins',
      },
      {
        spellings: ['-asmflags', '--asmflags'],
        role: wordsRole(/^-S$/),
        why: 'assembler flags can load files',
      },
      {
        spellings: ['-gccgoflags', '--gccgoflags'],
        role: 'program',
        why: 'gccgo flags can name a wrapper program',
      },
      { spellings: ['-vettool', '--vettool'], role: 'program', why: 'go vet runs the named tool' },
      {
        spellings: ['-modfile', '--modfile'],
        role: 'config-file',
        why: 'another go.mod can replace modules with other code and name tools',
      },
    ],
  },
}
