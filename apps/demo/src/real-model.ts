/** The real model to use instead of the scripted ones, when an API key is set. */
export interface RealModel {
  readonly provider: 'openai'
  readonly name: string
}

/** `OPENAI_API_KEY` switches the agent scenarios to a real model (`PLAN_DEMO_MODEL`, default gpt-4o-mini). */
export function realModel(
  env: Readonly<Record<string, string | undefined>> = process.env,
): RealModel | undefined {
  const key = env.OPENAI_API_KEY
  if (key === undefined || key.trim() === '') return undefined
  return { provider: 'openai', name: env.PLAN_DEMO_MODEL ?? 'gpt-4o-mini' }
}

/** How a report names the model. */
export function describeModel(model: RealModel | undefined): string {
  return model === undefined
    ? 'scripted (offline)'
    : `${model.provider} ${model.name} (real, OPENAI_API_KEY is set)`
}
