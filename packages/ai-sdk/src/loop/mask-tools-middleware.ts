import type { LanguageModelMiddleware } from 'ai'

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>

const SHORT_LIST = 16

/** True when `shown` names `name`: a short list is searched as it is, a longer one by a set. */
function namesOf(shown: Iterable<string>): (name: string) => boolean {
  if (Array.isArray(shown) && shown.length <= SHORT_LIST) return (name) => shown.includes(name)
  const names = new Set(shown)
  return (name) => names.has(name)
}

type CallOptions = Parameters<TransformParams>[0]['params']

/** `params` with only the tools `shows` names; `params` itself when it shows every one. */
function masked(params: CallOptions, shows: (name: string) => boolean): CallOptions {
  const all = params.tools
  // every tool shown (the usual per-turn case): the params as they are, no copy
  if (all === undefined || all.every((tool) => shows(tool.name))) return params
  return { ...params, tools: all.filter((tool) => shows(tool.name)) }
}

/** The `transformParams` that shows the model only the tools `visible()` names at each call. */
function maskParams(visible: () => Iterable<string>): TransformParams {
  return async ({ params }) => masked(params, namesOf(visible()))
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

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>
type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>
type WrapOptions = Parameters<WrapGenerate>[0]

/** A wrap's `options` whose params and calls of the model show only the tools `shows` names. */
function withMaskedParams<O extends WrapOptions>(options: O, shows: (name: string) => boolean): O {
  const params = masked(options.params, shows)
  if (params === options.params) return options
  const { model } = options
  return {
    ...options,
    params,
    doGenerate: () => model.doGenerate(params),
    doStream: () => model.doStream(params),
  }
}

/**
 * `middleware` that also shows the model only the tools `visible` names: one layer where
 * `[middleware, maskToolsMiddleware(...)]` would wrap the model twice. The tools are masked
 * before `middleware` sees the call, as the inner layer would, inside its own `wrapGenerate`
 * and `wrapStream` (a fixed list needs no `transformParams` step at every call); `middleware`
 * must have both and no `transformParams` of its own.
 */
export function withMaskedTools(
  middleware: LanguageModelMiddleware & { wrapGenerate: WrapGenerate; wrapStream: WrapStream },
  visible: readonly string[],
): LanguageModelMiddleware {
  const shows = namesOf(visible)
  const { wrapGenerate, wrapStream } = middleware
  return {
    ...middleware,
    wrapGenerate: (options) => wrapGenerate(withMaskedParams(options, shows)),
    wrapStream: (options) => wrapStream(withMaskedParams(options, shows)),
  }
}
