// biome-ignore-all lint/correctness: the README snippet appended to this prelude uses these names
// The root README's AI SDK snippet leaves out its imports and the tool set.
import { generateText, stepCountIs } from 'ai'

const tools = { view_file, write_file, run_command }
