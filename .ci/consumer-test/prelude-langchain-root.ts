// biome-ignore-all lint/correctness: the README snippet appended to this prelude uses these names
// The root README's LangChain snippet leaves out its imports and the policy.
import type { PolicyInput } from '@plan/core'
import { createAgent } from 'langchain'

declare const tools: StructuredToolInterface[]
declare const policy: PolicyInput
