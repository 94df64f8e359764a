import { resolvePolicy } from '@plan/core/schemas'
import { describe, expect, it } from 'vitest'
import { shownAnnotations } from './shown-annotations.js'

function entry(args: Record<string, unknown>) {
  const policy = resolvePolicy({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: { tool: { args } },
  } as never)
  const tool = policy.tools.get('tool')
  if (tool === undefined) throw new Error('no tool')
  return tool
}

const claims = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, title: 'T' }

describe('shownAnnotations', () => {
  it.each([
    ['a write path', { file: { type: 'path', access: 'write' } }],
    ['a command', { command: { type: 'command' } }],
    [
      'an array of write paths',
      { files: { type: 'array', items: { type: 'path', access: 'write' } } },
    ],
  ])('should not show a tool with %s as read-only or harmless', (_, args) => {
    expect(shownAnnotations(entry(args), claims)).toEqual({
      ...claims,
      readOnlyHint: false,
      destructiveHint: true,
    })
  })

  it('should show a tool that reaches a URL as open-world', () => {
    const url = { url: { type: 'string', format: 'url' } }
    expect(shownAnnotations(entry(url), claims)).toEqual({ ...claims, openWorldHint: true })
  })

  it('should keep what the server says of a tool that only reads', () => {
    expect(shownAnnotations(entry({ file: { type: 'path' } }), claims)).toBe(claims)
    expect(shownAnnotations(entry({ n: { type: 'number' } }), undefined)).toBeUndefined()
  })

  it('should never mark a tool read-only the server did not', () => {
    const shown = shownAnnotations(entry({ file: { type: 'path', access: 'write' } }), undefined)
    expect(shown).toEqual({ readOnlyHint: false, destructiveHint: true })
  })
})
