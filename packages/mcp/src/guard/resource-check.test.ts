import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createPlanCompiler, type PlanCompiler } from '@plan/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createMcpWorkspace,
  filesystemPolicy,
  type McpTestWorkspace,
} from '../test-utils/workspace.js'
import { createResourceCheck, type ResourceCheck } from './resource-check.js'

describe('createResourceCheck', () => {
  let workspace: McpTestWorkspace
  let compiler: PlanCompiler
  let check: ResourceCheck

  beforeAll(async () => {
    workspace = await createMcpWorkspace()
    compiler = await createPlanCompiler(filesystemPolicy(workspace.root))
    check = createResourceCheck(compiler, {
      mode: 'workspace',
      schemes: ['NOTE'],
      onDisk: true,
    }) as ResourceCheck
  })

  afterAll(async () => {
    await workspace?.remove()
  })

  it('should pass every request unchecked in pass mode', () => {
    expect(createResourceCheck(compiler, { mode: 'pass', schemes: undefined, onDisk: true })).toBe(
      undefined,
    )
  })

  it('should allow file: URIs of readable workspace paths and the schemes listed', async () => {
    const root = workspace.root
    for (const uri of [
      pathToFileURL(join(root, 'README.md')).href,
      `FILE://${root}/README.md`,
      `file://${root}/src/`,
      `file://${root}/.git/config`,
      `file://${root}/not%20yet.txt`,
      'note://today',
      'Note://today',
    ])
      expect(await check(uri), uri).toBeUndefined()
  })

  it.each([
    ['file:///etc/passwd', 'path_outside_workspace'],
    ['FILE:///etc/passwd', 'path_outside_workspace'],
    ['file://{root}/../outside/secret.txt', 'path_invalid'],
    ['file://{root}/%2e%2e/outside/secret.txt', 'path_invalid'],
    ['file://{root}/%2E%2E/%2e%2e/etc/passwd', 'path_invalid'],
    ['file://{root}/%252e%252e/outside/secret.txt', 'path_invalid'],
    ['file://localhost/etc/passwd', 'path_invalid'],
    ['file://localhost{root}/README.md', 'path_invalid'],
    ['file://{root}/link-out.txt', 'path_outside_workspace'],
    ['file://{root}-evil/secret.txt', 'path_outside_workspace'],
    ['file://{root}/.env', 'path_not_allowed'],
    ['file://{root}/README.md%00.txt', 'path_invalid'],
    ['file://{root}/README.md\u0000.txt', 'path_invalid'],
    ['file://{root}/README.md#/../../outside/secret.txt', 'path_invalid'],
    ['https://example.com/secret', 'path_not_allowed'],
    ['data:text/plain,hello', 'path_not_allowed'],
  ])('should refuse %j with %s', async (template, code) => {
    const uri = template.replaceAll('{root}', workspace.root)
    const refusal = await check(uri)
    expect(refusal?.issues).toEqual([expect.objectContaining({ code, path: ['uri'] })])
    expect(refusal?.message).toMatch(/^@plan denied the resource "/)
    expect(refusal?.message).toContain(`- ${code} at uri: `)
    expect(refusal?.message).toContain(
      `Allowed: file: URIs of paths inside ${workspace.root}; note: URIs.`,
    )
  })

  it('should refuse a very long URI without quoting all of it', async () => {
    const uri = `file://${workspace.root}/${'a/'.repeat(10_000)}x`
    const refusal = await check(uri)
    expect(refusal?.issues[0]?.code).toBe('path_invalid')
    expect(refusal?.message.length).toBeLessThan(1000)
  })

  it('should check paths lexically only when told not to look on disk', async () => {
    const lexical = createResourceCheck(compiler, {
      mode: 'workspace',
      schemes: undefined,
      onDisk: false,
    }) as ResourceCheck
    // The link lies inside the workspace by name; only the disk shows where it leads.
    expect(await lexical(`file://${workspace.root}/link-out.txt`)).toBeUndefined()
    expect((await lexical('file:///etc/passwd'))?.issues[0]?.code).toBe('path_outside_workspace')
  })

  it.each([
    [
      { mode: 'everything', schemes: undefined },
      "resources must be 'policy', 'pass' or 'workspace'",
    ],
    [{ mode: 'pass', schemes: ['https'] }, "resourceSchemes applies to resources: 'workspace'"],
    [{ mode: 'workspace', schemes: ['https:'] }, 'not a URI scheme'],
    [{ mode: 'workspace', schemes: [''] }, 'not a URI scheme'],
    [{ mode: 'workspace', schemes: ['FILE'] }, 'always checked'],
  ])('should refuse the configuration %j', (options, message) => {
    expect(() => createResourceCheck(compiler, { ...options, onDisk: true } as never)).toThrow(
      expect.objectContaining({
        code: 'invalid_configuration',
        message: expect.stringContaining(message),
      }),
    )
  })
})
