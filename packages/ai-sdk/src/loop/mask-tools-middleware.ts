import type { LanguageModelMiddleware } from 'ai'

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>

const SHORT_LIST = 16

/** The `transformParams` that shows the model only the tools `visible()` names at each call. */
function maskParams(visible: () => Iterable<string>): TransformParams {
  return async ({ params }) => {
    if (params.tools === undefined) return params
    const shown = visible()
    // a short list is searched as it is, a longer one through a set
    const names: { has(name: string): boolean } =
      Array.isArray(shown) && shown.length <= SHORT_LIST
        ? { has: (name) => shown.includes(name) }
        : new Set(shown)
    const tools = params.tools.filter((tool) => names.has(tool.name))
    // every tool shown: the params as they are, not a copy
    return tools.length === params.tools.length ? params : { ...params, tools }
  }
}

/**
 * Model middleware that shows the model only the tools `visible()` names at each call. Unlike
 * `activeTools`, which makes the AI SDK refuse a call of any other tool before the guard sees it,
 * a call the model makes anyway still reaches the guard, which decides and reports it (an
 * `onDecision` event, an audit line), as in every other adapter.
 */
export function maskToolsMiddleware(visible: () => Iterable<string>): LanguageModelMiddleware {
  return { specificationVersion: 'v4', transformParams: maskParams(visible) }
}

/**
 * `middleware` that also shows the model only the tools `visible` names: one layer where
 * `[middleware, maskToolsMiddleware(...)]` would wrap the model twice. The tools are masked
 * before `middleware` sees the call, as the inner layer would; `middleware` must have no
 * `transformParams` of its own.
 */
export function withMaskedTools(
  middleware: LanguageModelMiddleware,
  visible: () => Iterable<string>,
): LanguageModelMiddleware {
  return { ...middleware, transformParams: maskParams(visible) }
}
