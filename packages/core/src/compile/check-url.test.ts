import { beforeAll, describe, expect, it } from 'vitest'
import { createPlanCompiler } from './create-plan-compiler.js'
import type { PlanCompiler } from './plan-compiler.js'

let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: {
      fetch_page: {
        args: {
          url: { type: 'string', format: 'url', hosts: ['docs.example.com', '*.npmjs.org'] },
        },
      },
      post: { args: { url: { type: 'string', format: 'url', schemes: ['https', 'http'] } } },
    },
  })
})

const codes = (tool: string, url: unknown) =>
  compiler.checkArguments(tool, { url }).map((issue) => issue.code)

describe('createPlanCompiler (format: "url")', () => {
  it.each([
    ['fetch_page', 'https://docs.example.com/guide'],
    ['fetch_page', 'https://DOCS.example.com:443/a?b#c'],
    ['fetch_page', 'https://registry.npmjs.org/zod'],
    ['post', 'http://localhost:8080/hook'],
  ])('should accept %s %s', (tool, url) => {
    expect(codes(tool, url)).toEqual([])
  })

  it.each([
    ['fetch_page', 'docs.example.com/guide', 'not an absolute URL'],
    ['fetch_page', 'http://docs.example.com/', 'scheme'],
    ['fetch_page', 'file:///etc/passwd', 'scheme'],
    ['fetch_page', 'javascript:alert(1)', 'scheme'],
    ['fetch_page', 'https://docs.example.com@evil.example/', 'credentials'],
    ['fetch_page', 'https://evil.example/#@docs.example.com', 'Host'],
    ['fetch_page', 'https://docs.example.com.evil.example/', 'Host'],
    ['fetch_page', 'https://npmjs.org/', 'Host'],
    ['fetch_page', 'https://evilnpmjs.org/', 'Host'],
    ['post', 'ftp://example.com/', 'scheme'],
  ])('should refuse %s %s (%s)', (tool, url, reason) => {
    const issues = compiler.checkArguments(tool, { url })
    expect(issues.map((issue) => issue.code)).toEqual(['invalid_arguments'])
    expect(issues[0]?.message).toContain(reason)
  })
})
