import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'

/** One tool call the scripted model makes. */
export interface ScriptedCall {
  readonly id: string
  readonly tool: string
  readonly args: Record<string, unknown>
}

/** One model response: tool calls, or a text answer. */
export type ScriptedTurn = { readonly calls: readonly ScriptedCall[] } | { readonly text: string }

/**
 * LangChain's own fake chat model (`fakeModel()` from `@langchain/core/testing`) playing a
 * script: each call answers with the next turn, tool calls or a text. A call past the end of
 * the script throws, as `fakeModel` does. The model records its calls (`model.calls`).
 *
 * @example
 * ```ts
 * const model = scriptedModel([
 *   { calls: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }] },
 *   { text: 'Done.' },
 * ])
 * const agent = createAgent({ model, tools, middleware: [planGuardMiddleware({ policy })] })
 * ```
 */
export function scriptedModel(turns: readonly ScriptedTurn[]): ReturnType<typeof fakeModel> {
  let model = fakeModel()
  for (const turn of turns) {
    model =
      'text' in turn
        ? model.respond(new AIMessage(turn.text))
        : model.respondWithTools(
            turn.calls.map((call) => ({ name: call.tool, args: call.args, id: call.id })),
          )
  }
  return model
}
