import { describe, expect, it } from 'vitest'
import { awkCode, checkAwkProgram } from './check-awk-program.js'

const SYSTEM = 'system(), which runs a shell command'
const ENVIRONMENT =
  'ENVIRON, ARGV, ARGC or PROCINFO, which read the environment or change the files read'

describe('checkAwkProgram', () => {
  it('should allow programs that select and print', () => {
    expect(checkAwkProgram('{ print $1 }')).toBeUndefined()
    expect(checkAwkProgram('/error/ { n++ } END { print n / 2 }')).toBeUndefined()
    expect(checkAwkProgram('$3 ~ /a|b/ { print "x > y" }')).toBeUndefined()
  })

  it('should not let a quote inside a regex literal hide code', () => {
    expect(checkAwkProgram('/"/ { system("id") } #"')).toBe(SYSTEM)
    expect(checkAwkProgram('$0 ~ /"/ { print > "out" } #"')).toMatch(/^a > \(output redirection/)
    expect(awkCode('/"/ { x }')).toContain('{ x }')
  })

  it('should refuse indirect calls, ENVIRON and ARGV, and system named anywhere', () => {
    expect(checkAwkProgram('BEGIN { f = "system"; @f("id") }')).toBe(SYSTEM)
    expect(checkAwkProgram('BEGIN { print ENVIRON["TOKEN"] }')).toBe(ENVIRONMENT)
    expect(checkAwkProgram('BEGIN { ARGV[1] = "/etc/passwd"; ARGC = 2 } { print }')).toBe(
      ENVIRONMENT,
    )
    expect(checkAwkProgram('BEGIN { print "ok" } # system')).toBe(SYSTEM)
  })

  it('should read comments as comments', () => {
    expect(awkCode('{ print } # a | b > c')).not.toContain('|')
  })
})
