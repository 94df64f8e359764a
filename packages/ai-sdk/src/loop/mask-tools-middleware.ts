import type { LanguageModelMiddleware } from 'ai'

/**
 * Model middleware that shows the model only the tools `visible()` names at each call. Unlike
 * `activeTools`, which makes the AI SDK refuse a call of any other tool before the guard sees it,
 * a call the model makes anyway still reaches the guard, which decides and reports it (an
 * `onDecision` event, an audit line), as in every other adapter.
 */
export function maskToolsMiddleware(visible: () => Iterable<string>): LanguageModelMiddleware {
  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      if (params.tools === undefined) return params
      const names = new Set(visible())
      return { ...params, tools: params.tools.filter((tool) => names.has(tool.name)) }
    },
  }
}
