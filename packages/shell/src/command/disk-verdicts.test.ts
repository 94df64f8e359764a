import { describe, expect, it } from 'vitest'
import {
  diskConsultations,
  factsHold,
  noteDiskConsulted,
  recordDiskFacts,
} from './disk-verdicts.js'

describe('recordDiskFacts', () => {
  it('should record the answers a check was given, in order, and ask them again', () => {
    const disk = new Map([
      ['/a', true],
      ['/b', false],
    ])
    const exists = (path: string) => {
      const ask = () => disk.get(path) === true
      const answer = ask()
      noteDiskConsulted(ask, answer)
      return answer
    }
    const before = diskConsultations()
    const { value, facts } = recordDiskFacts(() => [exists('/a'), exists('/b')])
    expect(value).toEqual([true, false])
    expect(facts.map((fact) => fact.answer)).toEqual([true, false])
    expect(diskConsultations()).toBe(before + 2)
    expect(factsHold(facts)).toBe(true)
    // Asking again records nothing, and counts nothing for the facts of an outer check.
    const outer = recordDiskFacts(() => factsHold(facts))
    expect(outer.facts).toEqual([])
    disk.set('/b', true)
    expect(factsHold(facts)).toBe(false)
  })

  it('should record nothing for a check that did not look at the disk, nor outside one', () => {
    noteDiskConsulted(() => true, true)
    expect(recordDiskFacts(() => 1)).toEqual({ value: 1, facts: [] })
  })

  it('should keep the facts of nested recordings apart', () => {
    const inner: unknown[] = []
    const { facts } = recordDiskFacts(() => {
      noteDiskConsulted(() => true, true)
      inner.push(...recordDiskFacts(() => noteDiskConsulted(() => false, false)).facts)
      noteDiskConsulted(() => false, false)
    })
    expect(facts.map((fact) => fact.answer)).toEqual([true, false])
    expect(inner).toHaveLength(1)
  })
})
