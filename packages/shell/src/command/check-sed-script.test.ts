import { describe, expect, it } from 'vitest'
import { checkSedScript } from './check-sed-script.js'

describe('checkSedScript', () => {
  it('should end GNU labels at whitespace, so a command after a label is read', () => {
    expect(checkSedScript(':a e id')).toBe('the e command, which runs a shell command')
    expect(checkSedScript('b end e id')).toBe('the e command, which runs a shell command')
    expect(checkSedScript(':a;N;$!ba;s/\\n/ /g')).toBeUndefined()
  })

  it('should refuse e, s///e, w, r and v-style surprises', () => {
    const refused = ['1e id', 's/x/id/e', '1w out', '1r /etc/passwd', 's/a/b/w out', 'W out']
    expect(refused.map((script) => checkSedScript(script))).toEqual([
      'the e command, which runs a shell command',
      'the s///e flag, which runs the pattern space as a shell command',
      'the w command, which writes a file',
      'the r command, which reads a file the path check cannot see',
      'the s///w flag, which writes a file',
      'the w command, which writes a file',
    ])
  })
})
