import { PolicyError } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import type { PolicyInput } from '../schema/policy-schema.js'

function policyWith(
  fileExamples: NonNullable<PolicyInput['tools'][string]['examples']>,
  gitExamples: { allow?: string[]; deny?: string[] } = {},
): PolicyInput {
  return {
    version: 1,
    workspace: { roots: ['/srv/repo'], deny: ['.env'] },
    tools: {
      write_file: {
        args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } },
        examples: fileExamples,
      },
      run_command: { args: { command: { type: 'command' } } },
    },
    commands: {
      allow: ['git', 'ls'],
      rules: { git: { subcommands: ['status', 'commit', 'diff'], examples: gitExamples } },
    },
  }
}

async function loadFailure(policy: PolicyInput): Promise<PolicyError> {
  try {
    await createPlanCompiler(policy)
  } catch (error) {
    if (PolicyError.isInstance(error)) return error
    throw error
  }
  throw new Error('the policy loaded')
}

const rightFileExamples = {
  allow: [{ file: 'src/index.ts', content: 'x' }],
  deny: [
    { file: '../outside.txt', content: 'x' },
    { file: '.env', content: 'x' },
  ],
}

describe('policy examples at load', () => {
  it('should load a policy whose examples all agree with it', async () => {
    const compiler = await createPlanCompiler(
      policyWith(rightFileExamples, {
        allow: ['git status', 'git diff -- "a | b"'],
        deny: ['git push --force', 'git status; rm -rf /'],
      }),
    )
    expect(compiler.checkCommand('git diff').allowed).toBe(true)
  })

  it('should fail naming an allowed example the policy denies, with its issue', async () => {
    const error = await loadFailure(
      policyWith({ ...rightFileExamples, allow: [{ file: '/etc/passwd', content: 'x' }] }),
    )
    expect(error.issues).toHaveLength(1)
    const [issue] = error.issues
    expect(issue).toMatchObject({
      code: 'policy_example_failed',
      path: ['tools', 'write_file', 'examples', 'allow', 0],
    })
    expect(issue?.message).toContain('{"file":"/etc/passwd","content":"x"}')
    expect(issue?.message).toContain('listed as allowed, but the policy denies it')
    expect(issue?.message).toContain('path_outside_workspace')
    expect(error.message).toContain('/etc/passwd')
  })

  it('should fail naming a denied example the policy allows', async () => {
    const error = await loadFailure(
      policyWith({ ...rightFileExamples, deny: [{ file: 'README.md', content: 'x' }] }),
    )
    expect(error.issues.map((issue) => [issue.code, issue.path.join('.')])).toEqual([
      ['policy_example_failed', 'tools.write_file.examples.deny.0'],
    ])
    expect(error.issues[0]?.message).toContain('listed as denied, but the policy allows it')
  })

  it('should report every wrong program example, and only those', async () => {
    const error = await loadFailure(
      policyWith(rightFileExamples, {
        allow: ['git status', 'git push origin main', 'ls -la'],
        deny: ['git push --force', 'git diff'],
      }),
    )
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual([
      'commands.rules.git.examples.allow.1',
      'commands.rules.git.examples.allow.2',
      'commands.rules.git.examples.deny.1',
    ])
    expect(error.issues[0]?.message).toContain('command_subcommand_not_allowed')
    expect(error.issues[1]?.message).toContain('does not run "git"')
    expect(error.issues[2]?.message).toContain('"git diff"')
  })

  it('should refuse an example that is not a call or a command in the schema', async () => {
    const wrongShape = { tools: { t: { examples: { allow: ['not an object'] } } } }
    const error = await loadFailure({
      ...policyWith(rightFileExamples),
      ...(wrongShape as unknown as Partial<PolicyInput>),
    })
    expect(error.issues[0]).toMatchObject({
      code: 'invalid_policy',
      path: ['tools', 't', 'examples', 'allow', 0],
    })
  })

  it('should refuse an example naming __proto__ instead of deciding what is left of it', async () => {
    const policy = JSON.parse(
      '{"version":1,"workspace":{"roots":["/srv/repo"]},"tools":{"view_file":{"args":{"file":{"type":"path"}},"examples":{"allow":[{"file":"README.md","__proto__":{"x":1}}]}}}}',
    )
    const error = await loadFailure(policy)
    expect(error.issues.map((issue) => [issue.code, issue.path.join('.')])).toEqual([
      ['invalid_policy', 'tools.view_file.examples.allow.0'],
    ])
  })
})
