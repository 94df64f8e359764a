import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { reportsCommandExit, watchStatus } from './bubblewrap-status.js'

const CHILD = '{ "child-pid": 17605, "mnt-namespace": 4026532178, "pid-namespace": 4026532179 }\n'

describe('reportsCommandExit', () => {
  it('should take an exit code after the child pid for a command that ran', () => {
    expect(reportsCommandExit(`${CHILD}{ "exit-code": 1 }\n`)).toBe(true)
    expect(reportsCommandExit(`${CHILD}{ "exit-code": 0 }`)).toBe(true)
  })

  it('should not take a child pid alone, nothing, or a line that is not a number', () => {
    expect(reportsCommandExit(CHILD)).toBe(false)
    expect(reportsCommandExit('')).toBe(false)
    expect(reportsCommandExit(`${CHILD}{ "exit-code": "1" }\n`)).toBe(false)
    expect(reportsCommandExit(`${CHILD}{ "exit-code": 1 `)).toBe(false)
    expect(reportsCommandExit('exit-code 1\nnull\n[1]\n')).toBe(false)
  })
})

describe('watchStatus', () => {
  it('should read the status written in pieces', () => {
    const stream = new PassThrough()
    const ran = watchStatus(stream)
    stream.write(CHILD)
    stream.write('{ "exit-')
    expect(ran()).toBe(false)
    stream.end('code": 3 }\n')
    expect(ran()).toBe(true)
  })
})
