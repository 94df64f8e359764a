import { z } from 'zod'

/** Per-program rule: what an allowed program may be asked to do. */
export const programRuleSchema = z
  .strictObject({
    /** When set, the first word after the program (skipping flags) must be one of these. */
    subcommands: z.array(z.string().min(1)).optional(),
    /** Flags that are denied, e.g. `--exec` or `-c`; `--flag=value` forms match too. */
    denyFlags: z.array(z.string().min(1)).optional(),
    /** Lets this program run inline code or other programs (`sh -c`, `find -exec`): off by default. */
    allowExec: z.boolean().optional(),
    /**
     * Built-in denials of flags that write files this program may use anyway, e.g. `-delete`
     * for `find` or `--output` for `git`. Flags that run code are lifted by `allowExec` only.
     */
    allowFlags: z.array(z.string().min(1)).optional(),
    /** Skip the workspace check of this program's path-like arguments. Off by default. */
    skipPathCheck: z.boolean().optional(),
    /** Python-style interpreters: modules `-m NAME` may run (e.g. `["pytest"]`), without allowing `-c`. */
    modules: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/)).optional(),
    /**
     * Interpreters: script files (globs relative to the first root, e.g. `scripts/*.py`) that may
     * run. Every glob must lie under a `readOnly` path: a script the agent can write is inline
     * code by another name.
     */
    scripts: z.array(z.string().min(1)).optional(),
    /** `node --test`: lets node run the workspace's test files. */
    test: z.boolean().optional(),
    /** npx-style runners (npx, pnpx, bunx, uvx, pipx): packages they may run, by name. */
    packages: z.array(z.string().min(1)).optional(),
    /**
     * Commands of this program the policy must allow and must deny; checked when the policy
     * loads, which fails naming any example the rules decide otherwise.
     */
    examples: z
      .strictObject({
        allow: z.array(z.string().min(1)).optional(),
        deny: z.array(z.string().min(1)).optional(),
      })
      .optional(),
  })
  .describe('A per-program rule')

/** The `commands` section of a policy. */
export const commandPolicySchema = z
  .strictObject({
    /** Programs that may run, by bare name (`git`, `npm`); never a path. */
    allow: z.array(z.string().min(1).max(255)).default([]),
    /** Per-program rules, keyed by program name. */
    rules: z.record(z.string().min(1), programRuleSchema).optional(),
    /** Longest command accepted, in characters. */
    maxLength: z.number().int().positive().max(1_000_000).default(8192),
  })
  .describe('Which programs a command argument may run, and how')

/** One program's rule in `commands.programs`: the subcommands and options it may run with. */
export type ProgramRule = z.infer<typeof programRuleSchema>
/** A policy's `commands` section: the programs a `command` argument may run, and how. */
export type CommandPolicy = z.infer<typeof commandPolicySchema>
