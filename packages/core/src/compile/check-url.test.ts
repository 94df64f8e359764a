import { beforeAll, describe, expect, it } from 'vitest'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { checkUrl } from './check-url.js'
import { createPlanCompiler } from './create-plan-compiler.js'

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

describe('checkUrl', () => {
  const rules = { schemes: ['https', 'http'] }

  it.each([
    ['https://example.com\\@evil.example/', 'backslash'],
    ['https://evil.example\\.example.com/', 'backslash'],
    ['https://a@b@example.com/', 'credentials'],
    ['https://user:pass@example.com/', 'credentials'],
    ['https://example.com:443@evil.example/', 'credentials'],
    ['https://exa\tmple.com/', 'whitespace'],
    ['https://example.com/\n', 'whitespace'],
    [' https://example.com/', 'whitespace'],
    ['https://example.com\u0000.evil/', 'control'],
    ['https://example\u200b.com/', 'invisible'],
    ['https:example.com/', 'disagree'],
    ['https:/example.com/', 'disagree'],
    ['https:///example.com/', 'disagree'],
    ['http://0x7f.1/', 'disagree'],
    ['http://2130706433/', 'disagree'],
    ['http://127.1/', 'disagree'],
    ['http://0177.0.0.1/', 'disagree'],
    ['https://ex%61mple.com/', 'disagree'],
    ['https://ｅｘａｍｐｌｅ.com/', 'disagree'],
    ['https://ехаmple.com/', 'disagree'],
    ['https://example。com/', 'disagree'],
    ['http://[0:0::1]/', 'disagree'],
    ['https://example.com:0443/', 'disagree'],
  ])('should refuse %j, where parsers disagree (%s)', (url, reason) => {
    const result = checkUrl(url, rules)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message).toContain(reason)
  })

  it.each([
    ['https://Example.COM:443/a b'.replace(' ', '%20'), 'https://example.com/a%20b'],
    ['HTTPS://example.com', 'https://example.com/'],
    ['https://example.com/ünï?q=é#x', 'https://example.com/%C3%BCn%C3%AF?q=%C3%A9#x'],
    ['http://[::1]:8080/x', 'http://[::1]:8080/x'],
    ['https://example.com/a/../b', 'https://example.com/b'],
  ])('should accept %j and give the normalised %j', (url, normalised) => {
    expect(checkUrl(url, rules)).toEqual({ ok: true, url: normalised })
  })
})
