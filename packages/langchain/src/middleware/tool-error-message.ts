import { ToolMessage } from '@langchain/core/messages'
import { ToolInvocationError } from 'langchain'

/**
 * The error `ToolMessage` LangChain's `ToolNode` answers a throwing tool with when no
 * middleware wraps it, so adding the guard does not change what the model sees.
 */
export function toolErrorMessage(
  error: unknown,
  call: { readonly id?: string | undefined; readonly name: string },
): ToolMessage {
  const content = ToolInvocationError.isInstance(error)
    ? error.message
    : `${String(error)}\n Please fix your mistakes.`
  return new ToolMessage({ content, tool_call_id: call.id ?? '', name: call.name, status: 'error' })
}
