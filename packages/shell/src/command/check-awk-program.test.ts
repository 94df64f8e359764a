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
    expect(checkAwkProgram('$0 ~ /"/ { print > "out" } #"')).toMatch(/^a > in a print statement/)
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

  it('should refuse a > anywhere in a print or printf statement', () => {
    for (const program of [
      '{ print > "out" }',
      '{ print $1 >> "log" }',
      '{ printf "%s", $1 > "/dev/stderr" }',
      '{ print $1, $2 > $3 }',
      '{ print ($1 > 2) }',
      'NR > 1 { print $1 > "x" }',
      '{ if ($1) print $2 > "f"; else print $3 }',
      '{ print $1,\n $2 > "out" }',
      'BEGIN { printf("%d\\n", 1) > "f" }',
    ])
      expect(checkAwkProgram(program), program).toMatch(/^a > in a print statement/)
  })

  it('should read a > in a pattern or a condition as a comparison', () => {
    for (const program of [
      'NR>1 {sum+=$3} END {print sum}',
      '$3 > 100 { print $1 }',
      '{ if ($2 > max) max = $2 } END { print max }',
      'length($0) > 80 { n++ } END { print n }',
      '$1 >= 10 && $1 > $2 { print }',
      '{ x = ($1 > 0) ? "pos" : "neg"; print x }',
      '{ sprintf("%d", $1 > 2) }',
    ])
      expect(checkAwkProgram(program), program).toBeUndefined()
  })
})
