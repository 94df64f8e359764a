// biome-ignore-all lint/correctness: the README snippet appended to this prelude uses these names
// Free names of the LangChain README snippets, typed as an application would have them.
import type { StructuredToolInterface } from '@langchain/core/tools'

declare const model: string
declare const viewFile: StructuredToolInterface
declare const runCommand: StructuredToolInterface
