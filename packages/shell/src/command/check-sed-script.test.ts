import { describe, expect, it } from 'vitest'
import { checkSedScript } from './check-sed-script.js'

describe('checkSedScript', () => {
  it('should end GNU labels at whitespace, so a command after a label is read', () => {
    expect(checkSedScript(':a e id')).toBeDefined()
    expect(checkSedScript('b end e id')).toBeDefined()
    expect(checkSedScript(':a;N;$!ba;s/\\n/ /g')).toBeUndefined()
  })

  it('should refuse e, s///e, w, r and v-style surprises', () => {
    for (const script of ['1e id', 's/x/id/e', '1w out', '1r /etc/passwd', 's/a/b/w out', 'W out'])
      expect(checkSedScript(script)).toBeDefined()
  })
})
