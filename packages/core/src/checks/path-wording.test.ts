import { checkPathLexical, type PathScope } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'

const scope: PathScope = {
  roots: ['/srv/app'],
  readOnly: ['/srv/app/.git'],
  deny: ['/srv/app/.env', '/srv/app/secrets'],
}

function issueOf(value: string, access: 'read' | 'write' = 'read') {
  const result = checkPathLexical(value, scope, access)
  if (result.allowed) throw new Error(`${value} was allowed`)
  return result.issue
}

describe('path issue wording', () => {
  it('should name a denied entry once, not say it is under itself', () => {
    const issue = issueOf('.env')
    expect(issue.code).toBe('path_not_allowed')
    expect(issue.message).toBe(
      'The path /srv/app/.env, which is in workspace.deny: it may be neither read nor written.',
    )
    expect(issue.message).not.toContain('is under')
    expect(issue.hint).toContain('workspace.deny')
  })

  it('should name the entry that holds a path inside a denied folder', () => {
    const issue = issueOf('secrets/key.pem')
    expect(issue.message).toBe(
      'The path /srv/app/secrets/key.pem, under /srv/app/secrets, which is in workspace.deny: it may be neither read nor written.',
    )
  })

  it('should say a read-only entry may be read and which policy line stops the write', () => {
    const issue = issueOf('.git/config', 'write')
    expect(issue.message).toContain('under /srv/app/.git, which is in workspace.readOnly')
    expect(issue.hint).toContain('workspace.readOnly')
    expect(checkPathLexical('.git/config', scope, 'read')).toEqual({
      allowed: true,
      resolved: '/srv/app/.git/config',
    })
  })

  it('should offer the same name inside the root and the line that would allow the path', () => {
    const issue = issueOf('../../etc/passwd')
    expect(issue.code).toBe('path_outside_workspace')
    expect(issue.hint).toBe(
      'Use a path inside /srv/app, such as "passwd" (/srv/app/passwd); /etc/passwd would need a folder holding it in workspace.roots.',
    )
  })

  it('should offer the root itself for a path that resolves to /', () => {
    expect(issueOf('/').hint).toContain('such as "." (/srv/app)')
  })
})
