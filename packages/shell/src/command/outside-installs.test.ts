import { beforeAll, describe, expect, it } from 'vitest'
import { checkerOf, verdictOf } from './__fixtures__/verdicts.js'
import type { CommandChecker } from './create-command-checker.js'

let checker: CommandChecker
beforeAll(async () => {
  checker = await checkerOf(['npm', 'pnpm', 'yarn', 'cargo', 'go'])
})

const verdict = (command: string) => verdictOf(checker, command)

describe('installs and settings outside the workspace', () => {
  it('should refuse global installs, global links and writes of the user configuration', () => {
    for (const command of [
      'npm install -g x',
      'npm i --global x',
      'npm install --location=global x',
      'npm install --location global x',
      'npm uninstall -g x',
      'npm update --global',
      'npm link',
      'npm ln ../lib',
      'pnpm add -g x',
      'pnpm link --global',
      'pnpm setup',
      'yarn global add x',
      'yarn link',
      'cargo install x',
      'cargo install --path .',
      'cargo +nightly install x',
      'cargo --color always install ripgrep',
      'cargo uninstall x',
      'go install ./...',
      'go install golang.org/x/tools/cmd/goimports@latest',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_flag_denied' })
  })

  it('should allow installs into the workspace and reads of the global prefix', () => {
    for (const command of [
      'npm install',
      'npm install -D vitest',
      'npm ls -g --depth=0',
      'npm root -g',
      'npm run build -- -g',
      'npm test -- --global',
      'pnpm add zod',
      'pnpm ls -g',
      'yarn add zod',
      'cargo install --root tools ripgrep',
      'cargo build --release',
      'go build -o bin/ ./cmd/server',
      'go env GOPATH',
      'go env -json',
      'go env -w CGO_ENABLED=0',
      'go get example.com/x@v1.2.3',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
  })

  it('should name the policy line that lifts the refusal', () => {
    const result = checker.check('npm install -g x')
    expect(result.allowed).toBe(false)
    if (!result.allowed)
      expect(result.issue.hint).toContain('commands.rules.npm.allowFlags: ["-g"]')
  })

  it('should refuse go env -w of the module proxy and checksum settings, and allow plain ones', () => {
    for (const command of [
      'go env -w GOPROXY=https://proxy.example',
      "go env -w 'GONOSUMDB=*'",
      'go env -w GOSUMDB=off',
      'go env -w GOINSECURE=example.com',
      'go env -w CGO_ENABLED=0 GOPROXY=direct',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_inline_code' })
    for (const command of [
      'go env -w CGO_ENABLED=0',
      "go env -w 'GOPRIVATE=github.com/acme/*'",
      'go env -w GOOS=linux',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
  })
})
