import { closeSync, openSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { closesOnExec, openDescriptors } from './inherited-descriptors.js'

describe('openDescriptors', () => {
  it('should list the descriptors of this process from the lowest number asked for', () => {
    const fd = openSync('/dev/null', 'r')
    try {
      expect(openDescriptors(0)).toEqual(expect.arrayContaining([0, 1, 2, fd]))
      expect(openDescriptors(fd)).toContain(fd)
      expect(openDescriptors(fd + 1)).not.toContain(fd)
    } finally {
      closeSync(fd)
    }
  })
})

describe('closesOnExec', () => {
  it('should be true for a descriptor Node opened, which it marks close-on-exec', () => {
    const fd = openSync('/dev/null', 'r')
    try {
      expect(closesOnExec(fd)).toBe(true)
    } finally {
      closeSync(fd)
    }
  })

  it('should be true for a closed descriptor, which no program can inherit', () => {
    const fd = openSync('/dev/null', 'r')
    closeSync(fd)
    expect(closesOnExec(fd)).toBe(true)
  })
})
