import { isPlainObject } from '@plan/json'
import { createIssue, type PlanIssue } from '@plan/shell/common'
import type { ToolCall } from '../types/plan-guard.js'
import { errorMessage } from '../util/error-message.js'

/** A live call read once into a plain object, or the issue that refuses it. */
export interface ReadToolCall {
  /** Plain fields, read once (`tool` is undefined when the call cannot be read). */
  readonly call: ToolCall
  readonly issue?: PlanIssue
}

const UNREADABLE: ToolCall = Object.freeze({
  tool: undefined as unknown as string,
  args: undefined,
})

function refuse(message: string): ReadToolCall {
  return {
    call: UNREADABLE,
    issue: createIssue('invalid_arguments', message, [], 'Send a plain JSON tool call.'),
  }
}

/** The value of an own data property, or an error for a getter or setter. */
function field(call: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(call, key)
  if (descriptor === undefined) return undefined
  if (descriptor.get !== undefined || descriptor.set !== undefined)
    throw new TypeError(`the call's "${key}" is an accessor`)
  return descriptor.value
}

/**
 * Reads a live tool call once, field by field, without running getters or Proxy code twice: a
 * hostile call (throwing getters, a Proxy, a revoked Proxy, non-string ids) becomes an issue,
 * never an exception, and later checks see the values that were read.
 */
export function readToolCall(input: unknown): ReadToolCall {
  try {
    if (!isPlainObject(input)) return refuse('A tool call must be a plain object.')
    const tool = field(input, 'tool')
    const args = field(input, 'args')
    const callId = field(input, 'callId')
    const stepId = field(input, 'stepId')
    // Only `true` counts: a human allowed a call refused under trust.tainted.
    const humanApproved = field(input, 'humanApproved') === true
    const asksHuman = field(input, 'asksHuman') === true
    if (callId !== undefined && typeof callId !== 'string')
      return refuse('A tool call id must be a string.')
    if (stepId !== undefined && typeof stepId !== 'string')
      return refuse('A step id must be a string.')
    const call: { -readonly [Key in keyof ToolCall]: ToolCall[Key] } = {
      tool: tool as string,
      args,
    }
    if (callId !== undefined) call.callId = callId
    if (stepId !== undefined) call.stepId = stepId
    if (humanApproved) call.humanApproved = true
    if (asksHuman) call.asksHuman = true
    return { call }
  } catch (error) {
    return refuse(`The tool call cannot be read: ${errorMessage(error, 200)}.`)
  }
}
