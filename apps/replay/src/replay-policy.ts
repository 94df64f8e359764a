import {
  modelStepToolPolicy,
  type PolicyInput,
  ruleOfTwo,
  SENSITIVE_FILES,
  type TaintedPolicyInput,
} from '@plan/core'
import { referenceToolPolicy } from '@plan/tools'

/** How a run is guarded. */
export type ReplayMode =
  | 'baseline'
  | 'turn'
  | 'turn-paste'
  | 'turn-legacy'
  | 'turn-rule-of-two'
  | 'turn-ask'
  | 'turn-ask-10'
  | 'plan'

/** The modes in which refusals go to a (scripted) human reviewer. */
export function asksReviewer(mode: ReplayMode): boolean {
  return mode === 'turn-ask' || mode === 'turn-ask-10'
}

/** What a tainted per-turn run may still do in the replay repository. */
export const CODING_TAINTED: TaintedPolicyInput = {
  commands: ['npm test', 'git status', 'git diff', 'git log', 'ls', 'cp', 'grep'],
  writes: ['src/**', 'test/**', 'docs/**', 'NOTES.md', 'CHANGELOG.md', 'README.md'],
  hosts: ['docs.example.com'],
  sensitive: [...SENSITIVE_FILES],
  urls: ['https://docs.example.com/calc'],
}

/** The policy of a mode (the baseline runs the same tools without any guard). */
export function replayPolicy(root: string, mode: ReplayMode): PolicyInput {
  const tainted =
    mode === 'turn'
      ? CODING_TAINTED
      : mode === 'turn-paste'
        ? { ...CODING_TAINTED, pasteCheck: true }
        : mode === 'turn-rule-of-two'
          ? ruleOfTwo()
          : mode === 'turn-ask'
            ? { ...CODING_TAINTED, onRefuse: 'ask' as const }
            : mode === 'turn-ask-10'
              ? { ...CODING_TAINTED, onRefuse: 'ask' as const, maxQuestions: 10 }
              : undefined
  return {
    version: 1,
    // Under the rule of two, .env is readable: the preset is what keeps it from leaving.
    workspace: {
      roots: [root],
      readOnly: ['.git', '.github', 'package.json'],
      deny: mode === 'turn-rule-of-two' ? [] : ['.env'],
    },
    tools: {
      ...referenceToolPolicy(),
      fetch_url: {
        description: 'Fetch a web page.',
        args: { url: { type: 'string', format: 'url' } },
      },
      ...(mode === 'plan' ? modelStepToolPolicy() : {}),
    },
    commands: { allow: ['npm', 'git', 'ls', 'cat', 'cp', 'grep'] },
    budgets: { maxIdenticalCalls: 3, maxDenials: 20 },
    trust: { defaultOutput: 'untrusted', ...(tainted === undefined ? {} : { tainted }) },
  }
}
