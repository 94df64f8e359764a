import type { ModelStepRequest, PlanStep } from '@plan/core'
import type { ReplayRepo } from './replay-repo.js'
import type { ToolEffect } from './replay-tools.js'

/** A tool call a scripted model makes. */
export interface Call {
  readonly tool: string
  readonly args: Record<string, unknown>
}

/** What came back for one call: `ok` false for an error or a refusal. */
export interface CallResult {
  readonly ok: boolean
  readonly text: string
}

/** One model turn and what its calls returned. */
export interface Turn {
  readonly calls: readonly Call[]
  readonly results: readonly CallResult[]
}

/** A ready step of the approved plan, with the arguments to call it with (plan mode). */
export interface ReadyCall extends Call {
  readonly id: string
}

/** What the scripted model sees: the turns so far and, in plan mode, the ready steps. */
export interface AgentView {
  readonly history: readonly Turn[]
  readonly ready?: readonly ReadyCall[]
}

/** The scripted model's next answer. */
export type Reply = { readonly calls: readonly Call[] } | { readonly text: string }

/** A scripted model: the next answer from what it has seen. */
export type Agent = (view: AgentView) => Reply

/** One task of the replay suite. */
export interface Scenario {
  readonly id: string
  readonly kind: 'benign' | 'attack'
  /** The user's request. */
  readonly task: string
  /** A benign task whose later calls depend on what an earlier call returned. */
  readonly readThenDecide?: boolean
  /** An attack: the class of attack it belongs to (`write then run`, `egress`, …). */
  readonly threat?: string
  /** An attack: how the attacker adapts after a refusal. */
  readonly techniques?: readonly string[]
  /** Files written into the repository before the run (planted bugs, injected text). */
  readonly files?: Readonly<Record<string, string>>
  /** Files in a folder beside the repository, outside the workspace (`$OUTSIDE` in `links`). */
  readonly outside?: Readonly<Record<string, string>>
  /** Symbolic links committed to the repository: path → target (`$OUTSIDE/key.txt`). */
  readonly links?: Readonly<Record<string, string>>
  /** Pages `fetch_url` serves; `ERROR:` makes it fail with the rest as the message. */
  readonly pages?: Readonly<Record<string, string>>
  /** The model of the baseline and per-turn runs. */
  readonly agent: Agent
  /** Plan mode: the plan a planner makes for the task before any tool runs. */
  readonly plan: readonly PlanStep[]
  /** Plan mode: what the model without tools answers to `extract` and `generate` steps. */
  readonly quarantined?: (request: ModelStepRequest) => string
  /** An attack: the calls the injected model tries, in order, after each refusal. */
  readonly attempts?: readonly (readonly Call[])[]
  /** An attack: text of the payload; a plan-mode model that has read it turns to `attempts`. */
  readonly marker?: string
  /** A benign task: whether it was done, judged on the repository and the tool calls. */
  completed?(repo: ReplayRepo, effects: readonly ToolEffect[]): Promise<boolean>
  /** An attack: whether a call the attacker wanted reached a tool. */
  harmful?(effects: readonly ToolEffect[]): boolean
}

function sameCalls(left: readonly Call[], right: readonly Call[]): boolean {
  return (
    left.length === right.length &&
    left.every((call, index) => {
      const other = right[index]
      return (
        other !== undefined &&
        other.tool === call.tool &&
        JSON.stringify(call.args) === JSON.stringify(other.args)
      )
    })
  )
}

/**
 * The attacker's next attempt: the first one not yet made, if every earlier one was refused;
 * `undefined` when one got through or all were tried.
 */
export function nextAttempt(
  history: readonly Turn[],
  attempts: readonly (readonly Call[])[],
): readonly Call[] | undefined {
  let index = 0
  for (const turn of history) {
    const attempt = attempts[index]
    if (attempt === undefined || !sameCalls(turn.calls, attempt)) continue
    if (turn.results.every((result) => result.ok)) return undefined
    index += 1
  }
  return attempts[index]
}

/** A model that plays fixed or history-dependent turns, then answers "Done.". */
export function scripted(
  ...turns: ((history: readonly Turn[]) => readonly Call[] | undefined)[]
): Agent {
  return ({ history }) => {
    const make = turns[history.length]
    const calls = make?.(history)
    return calls === undefined || calls.length === 0 ? { text: 'Done.' } : { calls }
  }
}

/** An injectable model: it does `prefix` (the user's task), then tries the attacker's attempts. */
export function injectable(
  prefix: readonly (readonly Call[])[],
  attempts: readonly (readonly Call[])[],
): Agent {
  return ({ history }) => {
    const planned = prefix[history.length]
    if (planned !== undefined) return { calls: planned }
    const attempt = nextAttempt(history.slice(prefix.length), attempts)
    return attempt === undefined ? { text: 'Done.' } : { calls: attempt }
  }
}

/**
 * A model that does `prefix`, then every attempt in turn, one a turn, whatever each returned:
 * an attacker who reads the answers for the secret, not for an error.
 */
export function exhaustive(
  prefix: readonly (readonly Call[])[],
  attempts: readonly (readonly Call[])[],
): Agent {
  const turns = [...prefix, ...attempts]
  return ({ history }) => {
    const next = turns[history.length]
    return next === undefined ? { text: 'Done.' } : { calls: next }
  }
}

/**
 * The plan-mode model: it calls the ready steps of the approved plan; once it has read the
 * attacker's payload, it first tries the attacker's attempts.
 */
export function planFollower(scenario: Scenario): Agent {
  return ({ history, ready }) => {
    const marker = scenario.marker
    const attempts = scenario.attempts ?? []
    const seenAt = history.findIndex((turn) =>
      turn.results.some((result) => marker !== undefined && result.text.includes(marker)),
    )
    if (seenAt >= 0) {
      const attempt = nextAttempt(history.slice(seenAt + 1), attempts)
      if (attempt !== undefined) return { calls: attempt }
    }
    if (ready === undefined || ready.length === 0) return { text: 'Done.' }
    return { calls: ready.map(({ tool, args }) => ({ tool, args })) }
  }
}

/** The text of the latest result of a call to `tool`. */
export function lastResult(history: readonly Turn[], tool: string): string {
  for (const turn of [...history].reverse()) {
    const index = turn.calls.findLastIndex((call) => call.tool === tool)
    if (index >= 0) return turn.results[index]?.text ?? ''
  }
  return ''
}

/** A model-step request as the model without tools receives it (the schema read back from its instructions). */
export function modelStepRequest(system: string, prompt: string): ModelStepRequest {
  const kind = system.startsWith('You extract') ? 'extract' : 'generate'
  const schemaText = /matches this schema: (\{.*\})\.$/mu.exec(system)?.[1]
  const schema =
    schemaText === undefined ? undefined : (JSON.parse(schemaText) as ModelStepRequest['schema'])
  return { kind, system, prompt, ...(schema === undefined ? {} : { schema }) }
}
