import { describe, expect, it } from 'vitest'
import { runDemo } from './run-demo.js'

// The whole demo runs six agent scenarios: seconds on an idle machine, far more on a busy one.
const WHOLE_DEMO_TIMEOUT_MS = 300_000

describe('runDemo', () => {
  it(
    'should run every scenario offline, exit 0 and print one JSON summary',
    async () => {
      let printed = ''
      const code = await runDemo({
        json: true,
        clean: true,
        out: { write: (text: string) => (printed += text) },
        env: {},
      })
      expect(code).toBe(0)
      const summary = JSON.parse(printed)
      expect(summary.passed).toBe(true)
      expect(summary.scenarios.map((scenario: { name: string }) => scenario.name)).toEqual([
        'clean-plan',
        'cycle-plan',
        'injection-langchain',
        'loop-langchain',
        'injection-ai-sdk',
        'loop-ai-sdk',
      ])
      for (const scenario of summary.scenarios) expect(scenario.model).not.toContain('real')
    },
    WHOLE_DEMO_TIMEOUT_MS,
  )
})
