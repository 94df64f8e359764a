import type { LanguageModelMiddleware } from 'ai'

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>

const SHORT_LIST = 16

/** True when `shown` names `name`: a short list is searched as it is, a longer one by a set. */
function namesOf(shown: Iterable<string>): (name: string) => boolean {
  if (Array.isArray(shown) && shown.length <= SHORT_LIST) return (name) => shown.includes(name)
  const names = new Set(shown)
  return (name) => names.has(name)
}

/** The `transformParams` that shows the model only the tools `visible()` names at each call. */
function maskParams(visible: () => Iterable<string>): TransformParams {
  return async ({ params }) => {
    const all = params.tools
    if (all === undefined) return params
    const shows = namesOf(visible())
    // every tool shown (the usual per-turn case): the params as they are, no copy
    if (all.every((tool) => shows(tool.name))) return params
    return { ...params, tools: all.filter((tool) => shows(tool.name)) }
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
