import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { type CommandPolicy, commandPolicySchema } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import type { IssueCode } from '../types/plan-issue.js'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'
import { policyWord } from './program-path.js'

const scope: PathScope = {
  roots: ['/srv/repo'],
  readOnly: ['/srv/repo/vendor'],
  deny: ['/srv/repo/.env'],
}
const policy: CommandPolicy = commandPolicySchema.parse({
  allow: [
    'git',
    'npm',
    'ls',
    'cat',
    'grep',
    'find',
    'sed',
    'awk',
    'rg',
    'tar',
    'rm',
    'cp',
    'echo',
    'python3',
    'bash',
    'env',
    'sudo',
    'make',
  ],
  rules: {
    git: { denyFlags: ['--force'] },
    npm: { subcommands: ['test', 'run', 'install'] },
    python3: { allowExec: true },
    find: { allowFlags: ['-delete'] },
    cat: { skipPathCheck: true },
  },
})

let checker: CommandChecker
beforeAll(async () => {
  checker = await createCommandChecker({ policy, scope })
})

function codeOf(command: unknown): IssueCode | 'allowed' {
  const result = checker.check(command)
  return result.allowed ? 'allowed' : result.issue.code
}

describe('createCommandChecker', () => {
  it('should let a program read /dev/null, and refuse to write or delete it', () => {
    expect(codeOf('grep -c x /dev/null')).toBe('allowed')
    expect(codeOf('git diff --no-index /dev/null src/index.ts')).toBe('allowed')
    expect(codeOf('rm /dev/null')).toBe('path_outside_workspace')
    expect(codeOf('cp src/index.ts /dev/null')).toBe('path_outside_workspace')
    expect(codeOf('grep -c x /dev/zero')).toBe('path_outside_workspace')
  })

  it('should allow one simple command and return its argv after quote removal', () => {
    expect(checker.check('git commit -m "fix: a | b"')).toEqual({
      allowed: true,
      argv: ['git', 'commit', '-m', 'fix: a | b'],
    })
    expect(checker.check(`echo 'it''s' "a\\"b" c\\ d`)).toEqual({
      allowed: true,
      argv: ['echo', 'its', 'a"b', 'c d'],
    })
  })

  it('should compare the program after quote and backslash removal', () => {
    expect(checker.check(`"g"i't' status`)).toEqual({ allowed: true, argv: ['git', 'status'] })
    expect(codeOf(`'ba''sh' -c id`)).toBe('command_inline_code')
    expect(codeOf('b\\ash -c id')).toBe('command_inline_code')
  })

  it('should take an allowed program in a system program folder as that program', () => {
    expect(checker.check('/usr/bin/git status')).toEqual({ allowed: true, argv: ['git', 'status'] })
    expect(checker.check('/usr/local/bin/git status').allowed).toBe(true)
    expect(codeOf('/usr/bin/git -c core.pager=sh log')).toBe('command_inline_code')
  })

  it('should deny a program given as any other path even when its name is allowed', () => {
    for (const command of [
      './git status',
      '/tmp/evil/git status',
      '/usr/bin/../../tmp/git status',
      '/usr/bin/./git status',
      '//usr/bin/git status',
      '/usr/bin/sub/git status',
      'node_modules/.bin/git status',
      '/usr/bin/curl http://example.com',
    ])
      expect({ command, code: codeOf(command) }).toEqual({ command, code: 'command_not_allowed' })
  })

  it('should refuse or allow, never throw, for words named like Object.prototype keys', async () => {
    const keys = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']
    const shapes = ['K', 'K x', 'git K', 'git K x', 'npm K', 'npm exec K', 'git --K', 'git -K']
    const more = ['find . -K', 'sed -K x', 'tar -K', 'grep --K x', 'python3 -K', 'make K', 'rg K']
    const keyed = await createCommandChecker({ policy: { ...policy, allow: keys }, scope })
    for (const key of keys) {
      for (const shape of [...shapes, ...more]) {
        const command = shape.replaceAll('K', key)
        expect(codeOf(command), command).toMatch(/^(allowed|command_\w+)$/)
        const result = keyed.check(command)
        expect(result.allowed || result.issue.code.startsWith('command_'), command).toBe(true)
      }
    }
    const words = [...keys, 'git', 'npm', 'exec', 'python3', '-m', 'node', '--test', 'make', '-C']
    const command = fc
      .array(fc.constantFrom(...words, 'find', 'sed', 'tar', 'cargo', 'go', 'pytest', '--', '-c'), {
        minLength: 1,
        maxLength: 6,
      })
      .map((parts) => parts.join(' '))
    fc.assert(
      fc.property(command, (text) => {
        const result = keyed.check(text)
        return result.allowed || result.issue.code.startsWith('command_')
      }),
      { numRuns: 3000 },
    )
  })

  it('should deny programs that are not in the allow list, with the allowed ones in the hint', () => {
    const result = checker.check('curl http://example.com')
    expect(result.allowed).toBe(false)
    if (!result.allowed) {
      expect(result.issue.code).toBe('command_not_allowed')
      expect(result.issue.hint).toContain('git')
      expect(result.issue.path).toEqual([])
    }
  })

  it('should deny input that is not a non-empty, short, printable string', () => {
    expect(codeOf(42)).toBe('command_invalid')
    expect(codeOf(['git', 'status'])).toBe('command_invalid')
    expect(codeOf('')).toBe('command_invalid')
    expect(codeOf('  \t ')).toBe('command_invalid')
    expect(codeOf(`echo ${'a'.repeat(9000)}`)).toBe('command_invalid')
    expect(codeOf('ls\u0000')).toBe('command_invalid')
    expect(codeOf('ls \u202e-la')).toBe('command_invalid')
  })

  it.each([
    ['git status && rm -rf /', 'command_list'],
    ['git status; id', 'command_list'],
    ['git status || id', 'command_list'],
    ['git status &', 'command_list'],
    ['git status\nid', 'command_list'],
    ['git log | sh', 'command_pipeline'],
    ['git log |& sh', 'command_pipeline'],
    ['git log > out', 'command_redirection'],
    ['git log &> out', 'command_redirection'],
    ['git log >| out', 'command_redirection'],
    ['cat <<< x', 'command_redirection'],
    ['git log 2>&1', 'command_redirection'],
    ['cat <<EOF\nx\nEOF', 'command_heredoc'],
    ['echo $(id)', 'command_substitution'],
    ['echo "$(id)"', 'command_substitution'],
    ['echo `id`', 'command_substitution'],
    ['cat <(id)', 'command_substitution'],
    ['echo $((1+2))', 'command_substitution'],
    ['echo $HOME', 'command_expansion'],
    [`echo "\${x@P}"`, 'command_expansion'],
    [`cat\${IFS}x`, 'command_expansion'],
    ["echo $'\\x41'", 'command_expansion'],
    ['echo $"x"', 'command_expansion'],
    ['echo {a,b}', 'command_brace_expansion'],
    ['echo {1..3}', 'command_brace_expansion'],
    ['ls ~/x', 'command_tilde'],
    ['ls *.ts', 'command_glob'],
    ['l? -la', 'command_glob'],
    ['(ls)', 'command_subshell'],
    ['{ ls; }', 'command_subshell'],
    ['f() { ls; }', 'command_function'],
    ['FOO=1 git status', 'command_assignment'],
    ['export FOO=1', 'command_assignment'],
    ['if true; then ls; fi', 'command_control_flow'],
    ['[[ -f x ]]', 'command_control_flow'],
    ['((x=1))', 'command_control_flow'],
    ['ls "a', 'command_parse_error'],
    ['ls # note', 'command_invalid'],
  ])('should deny shell syntax: %j → %s', (command, code) => {
    expect(codeOf(command)).toBe(code)
  })

  it.each([
    ['git commit -m "a && b; c | d > e"', ['git', 'commit', '-m', 'a && b; c | d > e']],
    ["echo '$HOME `id` $(id)'", ['echo', '$HOME `id` $(id)']],
    ["find . -name '*.ts'", ['find', '.', '-name', '*.ts']],
    ["git log '@{u}..HEAD'", ['git', 'log', '@{u}..HEAD']],
    ['git diff HEAD~1', ['git', 'diff', 'HEAD~1']],
    ['ls \\\n  -la', ['ls', '-la']],
    ['echo \\$HOME', ['echo', '$HOME']],
  ])('should allow quoted or escaped shell characters as literals: %j', (command, argv) => {
    expect(checker.check(command)).toEqual({ allowed: true, argv })
  })

  it('should report every problem, first issue first', () => {
    const result = checker.check('FOO=1 sudo ls | sh > out')
    expect(result.allowed).toBe(false)
    if (!result.allowed) {
      const codes = result.issues.map((issue) => issue.code)
      expect(codes).toEqual(
        expect.arrayContaining([
          'command_pipeline',
          'command_redirection',
          'command_assignment',
          'command_dangerous_program',
        ]),
      )
      expect(result.issue).toBe(result.issues[0])
      for (const issue of result.issues) expect(issue.hint?.length).toBeGreaterThan(0)
    }
  })

  it('should deny always-dangerous programs even when the policy allows them', () => {
    expect(codeOf('sudo ls')).toBe('command_dangerous_program')
    expect(codeOf('eval ls')).toBe('command_dangerous_program')
    expect(codeOf('. ./x.sh')).toBe('command_dangerous_program')
  })

  it('should deny wrappers even when the policy allows them', () => {
    expect(codeOf('env ls')).toBe('command_wrapper')
    expect(codeOf('xargs rm')).toBe('command_wrapper')
    expect(codeOf('timeout 5 ls')).toBe('command_wrapper')
  })

  it('should deny shells without allowExec and allow interpreters whose rule sets allowExec', () => {
    expect(codeOf('bash -c id')).toBe('command_inline_code')
    expect(codeOf('bash script.sh')).toBe('command_inline_code')
    expect(codeOf('/bin/sh -c id')).toBe('command_inline_code')
    expect(checker.check('python3 -c "print(1)"')).toEqual({
      allowed: true,
      argv: ['python3', '-c', 'print(1)'],
    })
  })

  it('should apply the subcommands of a program rule', () => {
    expect(codeOf('npm test')).toBe('allowed')
    expect(codeOf('npm run build')).toBe('allowed')
    expect(codeOf('npm publish')).toBe('command_subcommand_not_allowed')
    expect(codeOf('npm')).toBe('command_subcommand_not_allowed')
  })

  it('should apply denyFlags, also as --flag=value and abbreviations', () => {
    expect(codeOf('git push origin main')).toBe('allowed')
    expect(codeOf('git push --force origin main')).toBe('command_flag_denied')
    expect(codeOf('git push --force=true origin main')).toBe('command_flag_denied')
    expect(codeOf('git push --forc origin main')).toBe('command_flag_denied')
  })

  it('should apply the built-in rules of programs that run commands through their flags', () => {
    expect(codeOf("find . -name '*.ts' -type f")).toBe('allowed')
    expect(codeOf('find . -exec id {} ;')).not.toBe('allowed')
    expect(codeOf('find . -execdir id {} +')).toBe('command_inline_code')
    expect(codeOf("git -c core.pager='sh -c id' log")).toBe('command_inline_code')
    expect(codeOf('git -c user.name=bot commit -m x')).toBe('allowed')
    expect(codeOf('git fetch --upload-pack=id origin')).toBe('command_inline_code')
    expect(codeOf('git clone ext::sh x')).toBe('command_inline_code')
    expect(codeOf('git submodule foreach id')).toBe('command_inline_code')
    expect(codeOf('git rebase -x id main')).toBe('command_inline_code')
    expect(codeOf('git bisect run ./x')).toBe('command_inline_code')
    expect(codeOf('git log --output=x')).toBe('command_flag_denied')
    expect(codeOf('rg --pre cat x')).toBe('command_inline_code')
    expect(codeOf('rg -n TODO src')).toBe('allowed')
    expect(codeOf("sed -n '1,5p' a.txt")).toBe('allowed')
    expect(codeOf("sed 's/a/b/e' a.txt")).toBe('command_inline_code')
    expect(codeOf("sed 's/a/b/w out' a.txt")).toBe('command_inline_code')
    expect(codeOf("awk '{print $2}' a.txt")).toBe('allowed')
    expect(codeOf(`awk 'BEGIN{system("id")}'`)).toBe('command_inline_code')
    expect(codeOf('tar -czf out.tgz src')).toBe('allowed')
    expect(codeOf('tar --checkpoint=1 --checkpoint-action=exec=id -cf a.tar src')).toBe(
      'command_inline_code',
    )
    expect(codeOf('npm exec cowsay')).toBe('command_wrapper')
    expect(codeOf('make CC=id')).toBe('command_inline_code')
  })

  it('should lift a write built-in through allowFlags only', () => {
    expect(codeOf('find build -delete')).toBe('allowed')
    expect(codeOf('find . -delete')).toBe('path_not_allowed')
    expect(codeOf('find vendor -delete')).toBe('path_not_allowed')
    expect(codeOf('find build -fprint out')).toBe('command_flag_denied')
  })

  it('should check path-like arguments against the workspace', () => {
    expect(codeOf('ls src/app')).toBe('allowed')
    expect(codeOf('ls /srv/repo/src')).toBe('allowed')
    expect(codeOf('ls /etc')).toBe('path_outside_workspace')
    expect(codeOf('ls ../..')).toBe('path_outside_workspace')
    expect(codeOf('ls /srv/repo-evil')).toBe('path_outside_workspace')
    expect(codeOf('grep -r x .env')).toBe('path_not_allowed')
    expect(codeOf('grep -r x --exclude-dir=/etc src')).toBe('path_outside_workspace')
    expect(codeOf('tar -xvf/etc/x')).toBe('path_outside_workspace')
    expect(codeOf("ls '~/x'")).toBe('path_invalid')
  })

  it('should check writes against read-only folders', () => {
    expect(codeOf('ls vendor')).toBe('allowed')
    expect(codeOf('rm vendor/lib.js')).toBe('path_not_allowed')
    expect(codeOf('cp vendor/lib.js src/lib.js')).toBe('allowed')
    expect(codeOf('cp src/lib.js vendor/lib.js')).toBe('path_not_allowed')
    expect(codeOf("sed -i 's/a/b/' vendor/lib.js")).toBe('path_not_allowed')
    expect(codeOf("sed 's/a/b/' vendor/lib.js")).toBe('allowed')
  })

  it('should not mistake commit messages, patterns and URLs for paths', () => {
    expect(codeOf('git commit -m "see /etc and ../x for details"')).toBe('allowed')
    expect(codeOf("grep -rn '/api/v1' src")).toBe('allowed')
    expect(codeOf('git clone https://github.com/acme/widgets.git')).toBe('allowed')
    expect(codeOf("sed -n '/start/,/end/p' notes.md")).toBe('allowed')
  })

  it('should skip the path check for a program whose rule sets skipPathCheck', () => {
    expect(codeOf('cat /etc/hostname')).toBe('allowed')
  })

  it('should return the same frozen result for a repeated command', () => {
    const first = checker.check('git status')
    expect(checker.check('git status')).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
  })

  it('should deny every command joined to an allowed one by unquoted shell syntax', () => {
    const operators = [
      ';',
      '|',
      '&',
      '&&',
      '||',
      '>',
      '<',
      '$(',
      '`',
      '\n',
      '|&',
      '>>',
      '<(',
      '${',
      '$',
    ]
    const word = fc.stringMatching(/^[a-z0-9./-]{1,8}$/)
    fc.assert(
      fc.property(
        fc.constantFrom('git status', 'ls -la', 'npm test', 'echo hi'),
        fc.constantFrom(...operators),
        fc.array(word, { maxLength: 3 }),
        fc.boolean(),
        (allowedCommand, operator, words, spaced) => {
          const gap = spaced ? ' ' : ''
          const command = `${allowedCommand}${gap}${operator}${gap}${words.join(' ')}`
          expect(checker.check(command).allowed).toBe(false)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('should only ever allow argv whose program is allowed, by name or in a system folder', () => {
    const allow = new Set(policy.allow)
    const alphabet = fc.constantFrom(...'ab gitlsnpmech-./\'"\\$`;|&<>(){}[]*?~#=\n\t'.split(''))
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 24 }),
        fc.constantFrom('git ', 'ls ', 'echo ', 'sudo ', ''),
        (characters, prefix) => {
          const result = checker.check(prefix + characters.join(''))
          if (result.allowed) {
            expect(allow.has(policyWord(result.argv[0] as string, allow) ?? '')).toBe(true)
            expect(result.argv.length).toBeGreaterThan(0)
          } else {
            expect(result.issues.length).toBeGreaterThan(0)
            expect(result.issue).toBe(result.issues[0])
          }
        },
      ),
      { numRuns: 2000 },
    )
  })
})
