import { readFileSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runDemo } from './run-demo.js'

// The whole demo runs six agent scenarios: seconds on an idle machine, far more on a busy one.
const WHOLE_DEMO_TIMEOUT_MS = 300_000

interface SummaryIssue {
  readonly code: string
  readonly stepId: string | null
}

/** `step id → issue codes`, each code once per step, sorted. */
type CodesByStep = Record<string, string[]>

function addCode(map: CodesByStep, step: string, code: string): void {
  const codes = map[step] ?? []
  if (!codes.includes(code)) codes.push(code)
  map[step] = codes.sort()
}

/** The codes the JSON summary reports for each step. */
function reportedCodes(issues: readonly SummaryIssue[]): CodesByStep {
  const map: CodesByStep = {}
  for (const issue of issues) if (issue.stepId !== null) addCode(map, issue.stepId, issue.code)
  return map
}

/** The codes the text report draws under each step: `  ✗ id  tool …` then `      code at …`. */
function codesInText(text: string): CodesByStep {
  const map: CodesByStep = {}
  let step: string | undefined
  for (const line of text.split('\n')) {
    const stepLine = /^ {2}\S+ (\S+) {2}/.exec(line)
    if (stepLine !== null) step = stepLine[1]
    const issueLine = /^ {6}([a-z_]+) at /.exec(line)
    if (issueLine !== null && step !== undefined) addCode(map, step, issueLine[1] as string)
  }
  return map
}

/** The codes each Mermaid node lists on its last label line: `s1["id: tool<br/>…<br/>a, b"]`. */
function codesInMermaid(mermaid: string, known: ReadonlySet<string>): CodesByStep {
  const map: CodesByStep = {}
  for (const [, label] of mermaid.matchAll(/^ {2}s\d+\["([^"]*)"\]/gm)) {
    const lines = (label as string).split('<br/>')
    const step = (lines[0] as string).split(': ')[0] as string
    for (const code of (lines.at(-1) as string).split(', '))
      if (known.has(code)) addCode(map, step, code)
  }
  return map
}

describe('runDemo', () => {
  it(
    'should run every scenario offline, exit 0, print one JSON summary and draw every issue under the step it names',
    async () => {
      let printed = ''
      const code = await runDemo({
        json: true,
        clean: false,
        out: { write: (text: string) => (printed += text) },
        env: {},
      })
      const summary = JSON.parse(printed)
      try {
        expect(code).toBe(0)
        expect(summary.passed).toBe(true)
        expect(summary.scenarios.map((scenario: { name: string }) => scenario.name)).toEqual([
          'clean-plan',
          'cycle-plan',
          'injection-langchain',
          'loop-langchain',
          'injection-ai-sdk',
          'loop-ai-sdk',
        ])
        for (const scenario of summary.scenarios) {
          expect(scenario.model).not.toContain('real')
          const expected = reportedCodes(scenario.issues)
          const known = new Set<string>(scenario.issues.map((issue: SummaryIssue) => issue.code))
          const text = readFileSync(scenario.report, 'utf8')
          const mermaid = readFileSync(scenario.mermaid, 'utf8')
          expect({ scenario: scenario.name, steps: codesInText(text) }).toEqual({
            scenario: scenario.name,
            steps: expected,
          })
          expect({ scenario: scenario.name, steps: codesInMermaid(mermaid, known) }).toEqual({
            scenario: scenario.name,
            steps: expected,
          })
        }
        const injection = summary.scenarios.find(
          (scenario: { name: string }) => scenario.name === 'injection-ai-sdk',
        )
        expect(reportedCodes(injection.issues)).toEqual({
          run_update: ['command_inline_code', 'command_not_allowed', 'command_pipeline'],
          read_passwd: ['path_outside_workspace'],
        })
      } finally {
        rmSync(dirname(summary.workspace), { recursive: true, force: true })
      }
    },
    WHOLE_DEMO_TIMEOUT_MS,
  )
})
