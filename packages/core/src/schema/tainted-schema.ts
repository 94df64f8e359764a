import { z } from 'zod'
import { SENSITIVE_FILES } from './sensitive-files.js'

/**
 * What a run may still do once untrusted output has entered the model's context (per-turn mode).
 * `allowlist` (default): commands, write paths and network hosts must be on the lists below.
 * `rule-of-two`: a run may not combine untrusted input, sensitive data (`sensitive` paths) and the
 * ability to change state or communicate (writes, commands, URLs).
 */
export const taintedSchema = z.strictObject({
  mode: z.enum(['allowlist', 'rule-of-two']).default('allowlist'),
  /**
   * Commands a tainted run may still run, as leading words: `"npm test"` allows `npm test` and
   * `npm test -- --grep x`; `"git"` allows every git command the command policy allows.
   */
  commands: z.array(z.string().min(1)).default([]),
  /** Paths a tainted run may still write: globs relative to a workspace root (`src/**`). */
  writes: z.array(z.string().min(1)).default([]),
  /** Hosts a tainted run may still reach through `url` arguments (`docs.example.com`, `*.example.com`). */
  hosts: z.array(z.string().min(1)).default([]),
  /**
   * Paths whose reading counts as access to sensitive data (globs, as `writes`; one starting
   * with `!` takes paths back out). Paths beside a `deny` entry (`.env.local` next to `.env`)
   * count too; templates (`.env.example`) never do. Default: {@link SENSITIVE_FILES}.
   */
  sensitive: z.array(z.string().min(1)).default(() => [...SENSITIVE_FILES]),
  /**
   * The only URLs a run may reach once it has read sensitive data, compared exactly (after
   * URL normalisation): fixed shapes, so no request can carry what was read. Default none.
   */
  urls: z.array(z.string().url()).default([]),
  /**
   * Also refuse a command, write path or URL that contains text copied from untrusted output
   * (15 shared characters). Default false: the labels on the context decide.
   */
  pasteCheck: z.boolean().default(false),
  /**
   * What happens to a call the tainted run may not make: `deny` (default) answers the model
   * with the reason; `ask` lets the adapters send it to a human, who may allow it once.
   */
  onRefuse: z.enum(['deny', 'ask']).default('deny'),
  /**
   * With `onRefuse: 'ask'`: how many refusals a run may put to a human. The next one stops
   * the run (`budget_exhausted`), so a reviewer is never worn down by a stream of requests.
   * Default 3: a benign task of the replay asks none, an attack that adapts asks again after
   * every refusal, and a reviewer has been seen to approve after seven routine requests.
   */
  maxQuestions: z.number().int().positive().default(3),
})

/** The `trust.tainted` section of a policy, defaults applied. */
export type TaintedPolicy = z.output<typeof taintedSchema>
/** The `trust.tainted` section of a policy, as written. */
export type TaintedPolicyInput = z.input<typeof taintedSchema>
