import { GraphInterrupt, interrupt } from '@langchain/langgraph'
import type { PlanIssue } from '@plan/core'
import { reviewText } from '@plan/core/adapter'
import type { HITLRequest, HITLResponse } from 'langchain'

/** A call as it is put to a human. */
export interface AskedCall {
  readonly id: string | undefined
  readonly name: string
  readonly args: Record<string, unknown>
}

/** What the human said about one call. */
export interface HumanAnswer {
  readonly approved: boolean
  readonly message: string | undefined
}

interface Question {
  readonly call: AskedCall
  readonly issues: readonly PlanIssue[]
}

/** Yields to the event loop once: calls of the same batch started together get to arrive. */
const nextTurnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * The refusals of one model turn that a human may overrule, put to the human together: every
 * call of the turn that reaches the guard says when its decision is known (`arrive`); a refused
 * one waits (`ask`) until every call that has started has arrived, and then one interrupt asks
 * about all of them, each with the guard's reason and the untrusted sources it names. LangGraph
 * runs the paused node again on resume: the same calls arrive again and the one interrupt
 * returns the answers, one per refused call in the order of the turn.
 */
export class AskBatch {
  readonly #order: readonly string[]
  readonly #started = new Set<string>()
  readonly #arrived = new Set<string>()
  readonly #questions = new Map<string, Question>()
  // The leader's answers, once it asked: the other calls of the turn wait for them.
  readonly #answers: Promise<ReadonlyMap<string, HumanAnswer> | 'paused'>
  #publish: (answers: ReadonlyMap<string, HumanAnswer> | 'paused') => void = () => undefined
  #waiting: (() => void)[] = []

  /** `order` is the turn's call ids, in the order the model made them. */
  constructor(order: readonly string[]) {
    this.#order = order
    this.#answers = new Promise((resolve) => {
      this.#publish = resolve
    })
  }

  /** A call of the turn entered the middleware. */
  start(callId: string): void {
    this.#started.add(callId)
  }

  /** A call's decision is known (or it left without one): it will not ask. */
  arrive(callId: string): void {
    this.#arrived.add(callId)
    this.#wake()
  }

  #wake(): void {
    for (const id of this.#started) if (!this.#arrived.has(id)) return
    const waiting = this.#waiting
    this.#waiting = []
    for (const resolve of waiting) resolve()
  }

  async #everyoneArrived(): Promise<void> {
    // Calls started in the same batch enter one after another: let them all begin first.
    await nextTurnOfTheLoop()
    for (;;) {
      let pending = false
      for (const id of this.#started) if (!this.#arrived.has(id)) pending = true
      if (!pending) return
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
      await nextTurnOfTheLoop()
    }
  }

  /**
   * Puts a refused call to the human with the others of its turn; resolves to its answer. The
   * first refused call of the turn (in the model's order) asks, with LangGraph's `interrupt`
   * inside its own task; the others wait for its answers, and pause with it (an interrupt of
   * no question of their own, so they run again on resume).
   */
  async ask(call: AskedCall & { readonly id: string }, issues: readonly PlanIssue[]) {
    this.#questions.set(call.id, { call, issues })
    this.arrive(call.id)
    await this.#everyoneArrived()
    const questions = this.#sorted()
    if (questions[0]?.call.id === call.id) {
      try {
        this.#publish(this.#askAll(questions))
      } catch (error) {
        this.#publish('paused')
        throw error
      }
    }
    const answers = await this.#answers
    if (answers === 'paused') throw new GraphInterrupt([])
    return answers.get(call.id) ?? { approved: false, message: undefined }
  }

  #sorted(): Question[] {
    const rank = (id: string) => {
      const index = this.#order.indexOf(id)
      return index < 0 ? this.#order.length : index
    }
    return [...this.#questions.values()].sort(
      (left, right) => rank(left.call.id ?? '') - rank(right.call.id ?? ''),
    )
  }

  /** One interrupt for every question of the turn, in the turn's order. */
  #askAll(questions: readonly Question[]): ReadonlyMap<string, HumanAnswer> {
    const response = interrupt(reviewRequest(questions)) as HITLResponse | undefined
    const answers = new Map<string, HumanAnswer>()
    questions.forEach((question, index) => {
      const decision = response?.decisions?.[index]
      answers.set(question.call.id ?? '', {
        approved: decision?.type === 'approve',
        message: decision?.type === 'reject' ? decision.message : undefined,
      })
    })
    return answers
  }
}

function reviewRequest(questions: readonly Question[]): HITLRequest {
  const count = questions.length
  return {
    actionRequests: questions.map(({ call, issues }, index) => ({
      name: call.name,
      args: call.args,
      description: reviewText({ issues, index: index + 1, count }),
    })),
    reviewConfigs: [...new Set(questions.map(({ call }) => call.name))].map((actionName) => ({
      actionName,
      allowedDecisions: ['approve', 'reject'],
    })),
  }
}
