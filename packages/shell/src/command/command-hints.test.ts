import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import type { IssueCode, PlanIssue } from '../types/plan-issue.js'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'

const scope: PathScope = {
  roots: ['/srv/repo'],
  readOnly: ['/srv/repo/vendor', '/srv/repo/scripts'],
  deny: ['/srv/repo/.env'],
}

/** The policy every refusal below is checked against, as a policy file would hold it. */
const RAW_POLICY = {
  allow: [
    'git',
    'npm',
    'ls',
    'cat',
    'grep',
    'find',
    'awk',
    'tar',
    'python3',
    'python',
    'node',
    'nodejs',
    'perl',
    'bash',
    'npx',
    'cargo',
    'go',
    'pytest',
    'curl',
    'wget',
    'gcc',
    'rsync',
    'sed',
    'uvx',
    'pnpx',
    'timeout',
    'env',
    'sudo',
    'mytool',
  ],
  rules: {
    git: { denyFlags: ['--force'] },
    npm: { subcommands: ['test', 'run'] },
    python3: { modules: ['pytest'] },
    nodejs: { scripts: ['scripts/*.mjs'] },
    npx: { packages: ['prettier'] },
  },
}

type RawPolicy = typeof RAW_POLICY & { rules: Record<string, Record<string, unknown>> }

async function checkerFor(raw: unknown): Promise<CommandChecker> {
  return createCommandChecker({ policy: commandPolicySchema.parse(raw), scope })
}

let checker: CommandChecker
beforeAll(async () => {
  checker = await checkerFor(RAW_POLICY)
})

function refusal(command: string): readonly PlanIssue[] {
  const result = checker.check(command)
  if (result.allowed) throw new Error(`expected a refusal of ${command}`)
  return result.issues
}

/** A change of the policy a hint names: a list entry added or removed, or a switch set. */
type PolicyChange =
  | { readonly kind: 'add' | 'remove'; readonly key: string; readonly value: string }
  | { readonly kind: 'set'; readonly key: string; readonly value?: number }

/** Every policy line a hint names, in the forms the hints use. */
function policyChanges(hint: string): PolicyChange[] {
  const changes: PolicyChange[] = []
  for (const match of hint.matchAll(/(commands(?:\.[\w-]+)+): (true|\d+|\[.*?\])/g)) {
    const [, key, value] = match as unknown as [string, string, string]
    if (value === 'true') changes.push({ kind: 'set', key })
    else if (/^\d+$/.test(value)) changes.push({ kind: 'set', key, value: Number(value) })
    else
      for (const entry of JSON.parse(value) as string[])
        changes.push({ kind: 'add', key, value: entry })
  }
  for (const match of hint.matchAll(
    /(add|remove) ("(?:[^"\\]|\\.)*") (?:to|from) (commands(?:\.[\w-]+)+)/g,
  )) {
    const [, verb, value, key] = match as unknown as [string, string, string, string]
    changes.push({ kind: verb === 'add' ? 'add' : 'remove', key, value: JSON.parse(value) })
  }
  return changes
}

function applyChange(
  raw: { rules?: Record<string, Record<string, unknown>> },
  change: PolicyChange,
): void {
  const parts = change.key.split('.')
  if (parts[0] !== 'commands') throw new Error(`not a command policy line: ${change.key}`)
  let target: Record<string, unknown> = raw
  if (parts[1] === 'rules') {
    // A program name may hold dots (powershell.exe): the field is the last part.
    const program = parts.slice(2, -1).join('.')
    raw.rules ??= {}
    raw.rules[program] ??= {}
    target = raw.rules[program] as Record<string, unknown>
  }
  const field = parts.at(-1) as string
  if (change.kind === 'set') target[field] = change.value ?? true
  else {
    const list = (target[field] as string[] | undefined) ?? []
    target[field] =
      change.kind === 'add' ? [...list, change.value] : list.filter((item) => item !== change.value)
  }
}

/** Refusals of every command code whose cause a policy change could lift or not. */
const REFUSALS: readonly (readonly [command: string, code: IssueCode])[] = [
  ['make build', 'command_not_allowed'],
  ['npm install left-pad', 'command_subcommand_not_allowed'],
  ['npm ci', 'command_subcommand_not_allowed'],
  ['git push --force origin main', 'command_flag_denied'],
  ['git log --output=log.txt', 'command_flag_denied'],
  ['find build -delete', 'command_flag_denied'],
  ['find src -name x -exec ls "{}" +', 'command_inline_code'],
  ['python3 -m http.server', 'command_inline_code'],
  ['python3 -c "print(1)"', 'command_inline_code'],
  ['python3 scripts/gen.py', 'command_inline_code'],
  ['python -m http.server', 'command_inline_code'],
  ['python -c "print(1)"', 'command_inline_code'],
  ['node -e 1', 'command_inline_code'],
  ['node --require ./hook.js app.js', 'command_inline_code'],
  ['nodejs --test', 'command_inline_code'],
  ['nodejs scripts/tools.js', 'command_inline_code'],
  ['nodejs tools/gen.js', 'command_inline_code'],
  ['npx cowsay hello', 'command_inline_code'],
  ['uvx ruff check', 'command_wrapper'],
  ['pnpx cowsay hello', 'command_wrapper'],
  ['perl -e "print 1"', 'command_inline_code'],
  ['bash -c ls', 'command_inline_code'],
  ['bash build.sh', 'command_inline_code'],
  ['mytool sh -c x', 'command_inline_code'],
  ['awk \'BEGIN { system("id") }\'', 'command_inline_code'],
  ['tar -cf out.tar --to-command=sh src', 'command_inline_code'],
  ['cargo --config build.rustc-wrapper=./w build', 'command_inline_code'],
  ['go build -toolexec=./x ./...', 'command_inline_code'],
  ['pytest -p myplugin', 'command_inline_code'],
  ['git clean -fdx', 'command_flag_denied'],
  ['git -c core.pager=less log', 'command_inline_code'],
  ['curl -K curlrc https://example.com', 'command_inline_code'],
  ['wget --config=wgetrc https://example.com', 'command_inline_code'],
  ['pytest -c other.ini', 'command_inline_code'],
  ['gcc @args main.c', 'command_inline_code'],
  ['rsync -e ssh src host:dst', 'command_inline_code'],
  ['find src -fprint list.txt', 'command_flag_denied'],
  ['go env -w CC=clang', 'command_inline_code'],
  ['go test -exec ./wrap ./...', 'command_inline_code'],
  ['sed -e w/out.txt notes.txt', 'command_inline_code'],
  ['cargo build -Zunstable-options', 'command_inline_code'],
  ['sudo ls', 'command_dangerous_program'],
  ['timeout 5 ls', 'command_wrapper'],
  ['npm --foo test', 'command_flag_denied'],
  ['npm', 'command_subcommand_not_allowed'],
  ['FOO=1 ls', 'command_assignment'],
  ['ls > out.txt', 'command_redirection'],
  ['ls $(cat list)', 'command_substitution'],
  ['ls $HOME', 'command_expansion'],
  ['ls *.ts', 'command_glob'],
  ['ls; cat a', 'command_list'],
  ['ls | grep x', 'command_pipeline'],
  ['if ls; then cat a; fi', 'command_control_flow'],
  ['cat <<EOF\nx\nEOF', 'command_heredoc'],
  ['ls ~/x', 'command_tilde'],
  ['ls {a,b}', 'command_brace_expansion'],
  ['(ls)', 'command_subshell'],
  ['f() { ls; }', 'command_function'],
  ['', 'command_invalid'],
  [`ls ${'a'.repeat(9000)}`, 'command_invalid'],
  ['env FOO=1 ls', 'command_wrapper'],
  ['ls "unclosed', 'command_parse_error'],
]

describe('command hints', () => {
  it('should refuse each example with its code, saying what and why', () => {
    for (const [command, code] of REFUSALS) {
      const issues = refusal(command)
      expect(
        issues.map((issue) => issue.code),
        command,
      ).toContain(code)
      for (const issue of issues) {
        expect(issue.message.length, command).toBeGreaterThan(10)
        expect(issue.hint?.length ?? 0, command).toBeGreaterThan(10)
      }
    }
  })

  it('should name the program, flag, subcommand or module of the command in the policy line', () => {
    const hintOf = (command: string, code: IssueCode) =>
      refusal(command).find((issue) => issue.code === code)?.hint ?? ''
    expect(hintOf('make build', 'command_not_allowed')).toContain('add "make" to commands.allow')
    expect(hintOf('npm ci', 'command_subcommand_not_allowed')).toContain(
      'add "ci" to commands.rules.npm.subcommands',
    )
    expect(hintOf('git push --force origin main', 'command_flag_denied')).toContain(
      'remove "--force" from commands.rules.git.denyFlags',
    )
    expect(hintOf('git log --output=log.txt', 'command_flag_denied')).toContain(
      'The policy line commands.rules.git.allowFlags: ["--output"] would allow it.',
    )
    expect(hintOf('python3 -m http.server', 'command_inline_code')).toContain(
      'The policy line commands.rules.python3.modules: ["http.server"] would allow it.',
    )
    expect(hintOf('python -m http.server', 'command_inline_code')).toContain(
      'The policy line commands.rules.python.modules: ["http.server"] would allow it.',
    )
    expect(hintOf('python3 scripts/gen.py', 'command_inline_code')).toContain(
      'The policy line commands.rules.python3.scripts: ["scripts/gen.py"] would allow it.',
    )
    expect(hintOf('nodejs --test', 'command_inline_code')).toContain(
      'The policy line commands.rules.nodejs.test: true would allow it.',
    )
    expect(hintOf('npx cowsay hello', 'command_inline_code')).toContain(
      'The policy line commands.rules.npx.packages: ["cowsay"] would allow it.',
    )
    expect(hintOf('uvx ruff check', 'command_wrapper')).toContain(
      'The policy line commands.rules.uvx.packages: ["ruff"] would allow it.',
    )
    expect(hintOf('pnpx cowsay hello', 'command_wrapper')).toContain(
      'The policy line commands.rules.pnpx.packages: ["cowsay"] would allow it.',
    )
    expect(hintOf('cargo --config build.rustc-wrapper=./w build', 'command_inline_code')).toContain(
      'commands.rules.cargo.allowExec: true',
    )
  })

  it('should give the nearest allowed form, and say that allowExec lets the program run any code', () => {
    const hintOf = (command: string) => refusal(command)[0]?.hint ?? ''
    expect(hintOf('python3 -c "print(1)"')).toBe(
      'Run only the modules, scripts or packages commands.rules.python3 lists. Only the policy line commands.rules.python3.allowExec: true would allow it, and it lets python3 run any code.',
    )
    expect(hintOf('node -e 1')).toBe(
      'Run a script file of the workspace (node scripts/build.mjs). Only the policy line commands.rules.node.allowExec: true would allow it, and it lets node run any code.',
    )
    expect(hintOf('perl -e "print 1"')).toBe(
      'Run the program you need directly, not through perl. Only the policy line commands.rules.perl.allowExec: true would allow it, and it lets perl run any code.',
    )
    expect(hintOf('mytool sh -c x')).toContain('commands.rules.mytool.allowExec: true')
    expect(hintOf('nodejs tools/gen.js')).toContain(
      'Run a script under a workspace.readOnly folder and list it in commands.rules.nodejs.scripts',
    )
  })

  it('should name no policy line where none can allow the command safely', () => {
    const unliftable = REFUSALS.filter(([, code]) =>
      [
        'command_assignment',
        'command_redirection',
        'command_substitution',
        'command_expansion',
        'command_glob',
        'command_list',
        'command_pipeline',
        'command_control_flow',
        'command_heredoc',
        'command_tilde',
        'command_brace_expansion',
        'command_subshell',
        'command_function',
        'command_parse_error',
      ].includes(code),
    )
    for (const [command, code] of unliftable) {
      const issue = refusal(command).find((found) => found.code === code) as PlanIssue
      expect(issue.hint, command).toContain(
        'Commands run without a shell, so shell syntax is refused and no policy line allows it.',
      )
      expect(policyChanges(issue.hint ?? ''), command).toEqual([])
    }
    const hintOf = (command: string) => refusal(command)[0]?.hint ?? ''
    expect(hintOf('sudo ls')).toBe(
      'Run the program you need directly, as the current user, in its own step; no policy line allows "sudo".',
    )
    expect(hintOf('timeout 5 ls')).toBe(
      'Run the inner program directly (without timeout) in its own step; set limits in the tool, not the command.',
    )
    expect(hintOf('env FOO=1 ls')).toBe(
      'Run the inner program directly (without env) in its own step: environment variables cannot be set from a command.',
    )
    expect(hintOf(`ls ${'a'.repeat(9000)}`)).toBe(
      'Run a shorter command; pass long text through a file tool. The policy line commands.maxLength: 9003 would allow it.',
    )
    expect(hintOf('npm --foo test')).toBe(
      'Put options after the subcommand (npm SUBCOMMAND --foo …), or use a known global option.',
    )
    expect(hintOf('ls > out.txt')).toContain('use a file-writing tool')
    expect(hintOf('ls $(cat list)')).toContain('Run the inner command in its own step')
    expect(refusal('ls $HOME').map((issue) => issue.message)).toEqual([
      'The command contains a variable expansion ($NAME).',
    ])
  })

  it('should allow the command once every policy line its hints name is applied', async () => {
    let named = 0
    let allowedAfter = 0
    const lying: string[] = []
    for (const [command] of REFUSALS) {
      const changes = refusal(command).flatMap((issue) => policyChanges(issue.hint ?? ''))
      if (changes.length === 0) continue
      named += 1
      const raw = structuredClone(RAW_POLICY) as RawPolicy
      for (const change of changes) applyChange(raw, change)
      const result = (await checkerFor(raw)).check(command)
      if (result.allowed) allowedAfter += 1
      else lying.push(`${command}: ${result.issue.code} ${result.issue.hint}`)
    }
    expect(lying).toEqual([])
    expect([named, REFUSALS.length]).toEqual([41, 62])
    expect(allowedAfter).toBe(named)
  })
})

describe('bounded echo', () => {
  const long = `x${'A'.repeat(5000)}`
  const commands = [
    long,
    `ls ${long} > out`,
    `npm ${long}`,
    `npm --${long} test`,
    `git push --force=${long}`,
    `python3 -m ${long}`,
    `python3 -c ${long}`,
    `python -m ${long}`,
    `node ${long}`,
    `npx ${long}`,
    `perl -e${long}`,
    `perl ${long}`,
    `bash -c${long}`,
    `/opt/${long}/bin/tool`,
    `ls $${long}`,
    `cargo --config ${long}`,
  ]

  it('should quote at most a bounded part of a long word in any message or hint', () => {
    for (const command of commands) {
      const result = checker.check(command)
      expect(result.allowed, command.slice(0, 40)).toBe(false)
      if (result.allowed) continue
      for (const issue of result.issues) {
        expect(issue.message.length, issue.code).toBeLessThanOrEqual(400)
        expect(issue.hint?.length ?? 0, issue.code).toBeLessThanOrEqual(800)
        expect(`${issue.message} ${issue.hint}`, issue.code).not.toContain('A'.repeat(200))
      }
    }
  })
})

describe('command hints over the corpus', () => {
  const corpus = JSON.parse(
    readFileSync(new URL('./__fixtures__/command-corpus.json', import.meta.url), 'utf8'),
  ) as {
    readonly policy: { rules?: Record<string, Record<string, unknown>> }
    readonly scope: PathScope
    readonly cases: readonly { readonly command: string }[]
  }

  it('should lift every issue whose hint names a policy line once that line is applied', async () => {
    const base = await createCommandChecker({
      policy: commandPolicySchema.parse(corpus.policy),
      scope: corpus.scope,
    })
    let refused = 0
    let named = 0
    let allowedAfter = 0
    const lying: string[] = []
    for (const { command } of corpus.cases) {
      const result = base.check(command)
      if (result.allowed) continue
      refused += 1
      const naming = result.issues.filter((issue) => policyChanges(issue.hint ?? '').length > 0)
      if (naming.length === 0) continue
      named += 1
      const raw = structuredClone(corpus.policy)
      for (const issue of naming)
        for (const change of policyChanges(issue.hint ?? '')) applyChange(raw, change)
      const again = (
        await createCommandChecker({ policy: commandPolicySchema.parse(raw), scope: corpus.scope })
      ).check(command)
      if (again.allowed) {
        allowedAfter += 1
        continue
      }
      const kept = again.issues.filter((issue) =>
        naming.some((named) => named.code === issue.code && named.message === issue.message),
      )
      if (kept.length > 0) lying.push(`${command}: ${kept[0]?.hint}`)
      else if (naming.length === result.issues.length)
        lying.push(`${command}: allowed lines, still ${again.issue.code}: ${again.issue.message}`)
    }
    expect(lying).toEqual([])
    // Measured on the corpus as it is: 594 refusals, 337 with a hint naming a line, 232 of them
    // allowed once it is applied (the rest are refused by an issue that names no line). Floors,
    // as the corpus grows.
    expect(refused).toBeGreaterThanOrEqual(594)
    expect(named).toBeGreaterThanOrEqual(337)
    expect(allowedAfter).toBeGreaterThanOrEqual(232)
  })
})
