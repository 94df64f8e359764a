import { beforeAll, describe, expect, it } from 'vitest'
import { checkerOf, verdictOf } from './__fixtures__/verdicts.js'
import type { CommandChecker } from './create-command-checker.js'

let checker: CommandChecker
beforeAll(async () => {
  checker = await checkerOf(['go'])
})

const verdict = (command: string) => verdictOf(checker, command)

describe('go tool', () => {
  it('should refuse the tools that run programs, start servers or are the module own', () => {
    for (const command of [
      'go tool link -extld ./x x.o',
      'go tool cgo x.go',
      'go tool compile x.go',
      'go tool asm x.s',
      'go tool trace trace.out',
      'go tool pprof -http=:8080 cpu.prof',
      'go tool pprof -web cpu.prof',
      'go tool pprof -tools=./bin -top cpu.prof',
      'go tool cover -html=coverage.out',
      'go tool mytool --flag',
      'go tool',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'command_inline_code' })
  })

  it('should allow the tools that only read and print', () => {
    for (const command of [
      'go tool pprof -top cpu.prof',
      'go tool pprof -list=main.run cpu.prof',
      'go tool cover -func=coverage.out',
      'go tool cover -html=coverage.out -o coverage.html',
      'go tool nm bin/server',
      'go tool objdump -s main.main bin/server',
      'go tool dist list',
      'go tool test2json -t',
      'go tool buildid bin/server',
    ])
      expect(verdict(command)).toEqual({ command, verdict: 'allow' })
  })
})
