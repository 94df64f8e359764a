import type { PolicyInput } from '../schema/policy-schema.js'

/** The tool name of extraction steps: untrusted data in, a narrow typed value out. */
export const EXTRACT_TOOL = 'extract'
/** The tool name of generation steps: untrusted data in, free text out (still untrusted). */
export const GENERATE_TOOL = 'generate'

/**
 * The `tools` entries of the two model steps, run by a model without tools (quarantined): `extract`
 * turns untrusted data into a value of a narrow `schema` (enum, number, boolean, pattern, workspace
 * path, or a list of one of these), trusted once it matches, so later steps may use it anywhere
 * through `$ref`; `generate` writes free text (a fixed file, a summary) whose output stays
 * untrusted, so it may only reach arguments accepting untrusted data (file contents, not commands
 * or write paths). Spread into `tools` (`referenceToolPolicy` is `@plan/tools`').
 *
 * @example
 * ```ts
 * const policy = { ...base, tools: { ...referenceToolPolicy(), ...modelStepToolPolicy() } }
 * ```
 */
export function modelStepToolPolicy(): PolicyInput['tools'] {
  return {
    [EXTRACT_TOOL]: {
      description:
        'Extract one narrow value (enum, number, boolean, pattern, workspace path, or a list of these) from untrusted data with a model that has no tools. Its output is trusted only when it matches `schema`.',
      args: {
        input: { type: 'json', acceptsUntrusted: true },
        instruction: { type: 'string', maxLength: 2000 },
        schema: { type: 'json', maxBytes: 8192 },
      },
      output: { extract: true },
    },
    [GENERATE_TOOL]: {
      description:
        'Write free text (e.g. the fixed content of a file) from untrusted data with a model that has no tools. Its output stays untrusted: it may fill file contents, never commands, write paths or URLs.',
      args: {
        input: { type: 'json', acceptsUntrusted: true },
        instruction: { type: 'string', maxLength: 2000 },
      },
      output: { trust: 'untrusted' },
    },
  }
}

/**
 * A paragraph for planner prompts when the policy has model steps: how to plan a task whose
 * later calls depend on what untrusted data says. Undefined when the policy has none.
 */
export function modelStepPlannerHint(tools: ReadonlyMap<string, unknown>): string | undefined {
  if (!tools.has(EXTRACT_TOOL)) return undefined
  const generate = tools.has(GENERATE_TOOL)
    ? ` For text that depends on the data (the fixed content of a file), add a "${GENERATE_TOOL}" step ({ "input": …, "instruction": "…" }); its output may fill file contents only, never commands, write paths or URLs.`
    : ''
  return `When a later call depends on what data says (which file a failing test names, a version number), add an "${EXTRACT_TOOL}" step: { "input": { "$ref": "<step id>.output.content" }, "instruction": "…", "schema": <narrow schema> } where the schema is {"type":"enum","values":[…]}, {"type":"number"}, {"type":"boolean"}, {"type":"string","pattern":"…"}, {"type":"path","within":["src/**"]} or {"type":"array","items":<one of these>}, and pass its output on with { "$ref": "<extract step id>" }.${generate}`
}
