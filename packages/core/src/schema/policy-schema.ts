import { z } from 'zod'
import { commandPolicySchema } from './command-policy.js'
import { DEFAULT_READ_ONLY } from './default-read-only.js'
import { taintedSchema } from './tainted-schema.js'

const common = {
  /** Whether the argument must be present. Defaults to true. */
  required: z.boolean().optional(),
  description: z.string().optional(),
  /**
   * Whether data derived from untrusted output may reach this argument. Defaults to false for
   * `command` arguments, `write` paths and `url` strings, true for everything else.
   */
  acceptsUntrusted: z.boolean().optional(),
}

/** The fields every argument declaration may have, besides its `type`. */
type CommonArgFields = z.output<z.ZodObject<typeof common>>

/** The bounds of a number: in an argument declaration, a declassifier and an extraction schema. */
const numberBounds = {
  integer: z.boolean().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
}

/** The values an `enum` allows, in an argument declaration and in a declassifier alike. */
const enumValues = z.array(z.union([z.string(), z.number(), z.boolean()])).min(1)

const stringArgSchema = z.strictObject({
  type: z.literal('string'),
  ...common,
  /** Fewest characters, counted in code points as JSON Schema counts them. */
  minLength: z.number().int().nonnegative().optional(),
  /** Most characters, counted in code points (100,000 when unset). */
  maxLength: z.number().int().nonnegative().optional(),
  /**
   * A regular expression the whole value must match: RE2 syntax (linear-time matching) that is
   * also a JavaScript `u` regular expression; checked when the policy loads.
   */
  pattern: z.string().optional(),
  /**
   * `url` marks a network destination: an absolute `https:` (or, with `schemes`, other) URL without
   * credentials, refusing untrusted data unless `acceptsUntrusted` says otherwise.
   */
  format: z.enum(['url']).optional(),
  /** For `format: "url"`: the schemes accepted, without the colon. Default `["https"]`. */
  schemes: z
    .array(z.enum(['https', 'http']))
    .min(1)
    .optional(),
  /** For `format: "url"`: hosts (`example.com`, `*.example.com` for subdomains); any if absent. */
  hosts: z.array(z.string().min(1).max(253)).optional(),
})

const numberArgSchema = z.strictObject({
  type: z.literal('number'),
  ...common,
  ...numberBounds,
})

const booleanArgSchema = z.strictObject({ type: z.literal('boolean'), ...common })

const enumArgSchema = z.strictObject({
  type: z.literal('enum'),
  ...common,
  values: enumValues,
})

const pathArgSchema = z.strictObject({
  type: z.literal('path'),
  ...common,
  /** `read` (default) or `write`; writes are refused under `workspace.readOnly`. */
  access: z.enum(['read', 'write']).default('read'),
})

const commandArgSchema = z.strictObject({ type: z.literal('command'), ...common })

const jsonArgSchema = z.strictObject({
  type: z.literal('json'),
  ...common,
  /** Largest accepted size of the value as JSON text, in bytes. */
  maxBytes: z.number().int().positive().optional(),
})

/** Every argument declaration but `array`, whose items make the schema recursive. */
const flatArgSchemas = [
  stringArgSchema,
  numberArgSchema,
  booleanArgSchema,
  enumArgSchema,
  pathArgSchema,
  commandArgSchema,
  jsonArgSchema,
] as const
type FlatArgSchema = (typeof flatArgSchemas)[number]

type ArgSpecInput =
  | z.input<FlatArgSchema>
  | (CommonArgFields & { type: 'array'; items: ArgSpecInput; maxItems?: number | undefined })

/** The declaration of one tool argument. */
export const argSpecSchema: z.ZodType<ArgSpec, ArgSpecInput> = z.lazy(() =>
  z.discriminatedUnion('type', [
    ...flatArgSchemas,
    z.strictObject({
      type: z.literal('array'),
      ...common,
      items: argSpecSchema,
      maxItems: z.number().int().nonnegative().optional(),
    }),
  ]),
)

export const declassifyNumberSchema = z.strictObject({ type: z.literal('number'), ...numberBounds })
export const declassifyBooleanSchema = z.strictObject({ type: z.literal('boolean') })
const declassifyEnumSchema = z.strictObject({ type: z.literal('enum'), values: enumValues })
const declassifyStringSchema = z.strictObject({
  type: z.literal('string'),
  /** Required: a free string is not a declassifier. The whole value must match. */
  pattern: z.string().min(1),
  /** Longest accepted value. Default 64. */
  maxLength: z.number().int().positive().max(4096).default(64),
})

/** Every declassifier but `array` and `object`, which make the schema recursive. */
const flatDeclassifySchemas = [
  declassifyNumberSchema,
  declassifyBooleanSchema,
  declassifyEnumSchema,
  declassifyStringSchema,
] as const
type FlatDeclassifySchema = (typeof flatDeclassifySchemas)[number]

type DeclassifySchemaInput =
  | z.input<FlatDeclassifySchema>
  | { type: 'array'; items: DeclassifySchemaInput; maxItems?: number | undefined }
  | { type: 'object'; properties: Record<string, DeclassifySchemaInput> }

/** The narrow shape an output must have to be declassified. */
export type DeclassifySchema =
  | z.output<FlatDeclassifySchema>
  | { type: 'array'; items: DeclassifySchema; maxItems: number }
  | { type: 'object'; properties: Record<string, DeclassifySchema> }

/**
 * A declassifier: the narrow shape (numbers, booleans, enum values, short strings matching a
 * pattern, and arrays or objects of them) a tool's output is re-validated against at run time. An
 * output that matches is trusted, whatever went into the tool; one that does not is untrusted.
 */
export const declassifySchema: z.ZodType<DeclassifySchema, DeclassifySchemaInput> = z.lazy(() =>
  z.discriminatedUnion('type', [
    ...flatDeclassifySchemas,
    z.strictObject({
      type: z.literal('array'),
      items: declassifySchema,
      /** Most items. Default 64. */
      maxItems: z.number().int().nonnegative().max(4096).default(64),
    }),
    z.strictObject({
      type: z.literal('object'),
      /** Every property is required and no other key is accepted. */
      properties: z.record(z.string().min(1), declassifySchema),
    }),
  ]),
)

/** What a tool's output is, for the data-flow checks. */
export const toolOutputSchema = z.strictObject({
  /**
   * `untrusted` for anything an attacker can write (web pages, emails, files from outside,
   * command output). Defaults to the policy's `trust.defaultOutput` (itself `untrusted`).
   * A trusted tool's output is still untrusted when untrusted data went into its arguments.
   */
  trust: z.enum(['trusted', 'untrusted']).optional(),
  /** Makes the output trusted when, at run time, it matches this narrow schema. */
  declassify: declassifySchema.optional(),
  /**
   * The tool runs extraction steps (`modelStepToolPolicy()`): its output is trusted when, at
   * run time, it matches the narrow schema in the step's `schema` argument.
   */
  extract: z.boolean().optional(),
})

const FORBIDDEN_EXAMPLE_KEYS = ['__proto__', 'constructor', 'prototype']

// Checked on the input: a record's parse would drop a `__proto__` key and decide what is left.
type ExampleArgs = Record<string, z.core.util.JSONType>

// Typed as the author writes it; the refinement is the runtime check of the same shape.

const exampleArgsSchema = z
  .unknown()
  .refine(
    (value) =>
      typeof value !== 'object' ||
      value === null ||
      !FORBIDDEN_EXAMPLE_KEYS.some((key) => Object.hasOwn(value, key)),
    'An example may not name the argument "__proto__", "constructor" or "prototype".',
  )
  .pipe(z.record(z.string(), z.json()))
  .meta({
    type: 'object',
    description: 'The arguments of one call of the tool.',
  }) as unknown as z.ZodType<ExampleArgs, ExampleArgs>

/**
 * Whole calls of a tool (their arguments) that the policy must allow and must deny; checked when
 * the policy loads, which fails naming any example the policy decides otherwise.
 */
export const toolExamplesSchema = z.strictObject({
  allow: z.array(exampleArgsSchema).optional(),
  deny: z.array(exampleArgsSchema).optional(),
})

/** What one tool may be called with. */
export const toolPolicySchema = z.strictObject({
  description: z.string().optional(),
  /** Declared arguments; any other argument is rejected. */
  args: z.record(z.string().min(1), argSpecSchema).default({}),
  /** Most calls of this tool in one plan (and one run). */
  maxCalls: z.number().int().positive().optional(),
  /** What the tool's output is: `untrusted` for anything an attacker can write. */
  output: toolOutputSchema.optional(),
  /**
   * True when running the tool twice has the effect of running it once. A call of it that a
   * crash interrupted runs again on resume (at-least-once); any other tool's interrupted call
   * is reported and runs again only when a human approves (at-most-once). Default false.
   */
  idempotent: z.boolean().optional(),
  /**
   * For a tool of an MCP server: the SHA-256 of its definition as it was reviewed (name, title,
   * description, input and output schema, annotations, as RFC 8785 JSON), `sha256:<hex>`. A
   * listed definition that differs is withheld from the client and its calls refused.
   */
  pin: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .optional(),
  /** Calls the policy must allow and must deny, checked at load; see {@link toolExamplesSchema}. */
  examples: toolExamplesSchema.optional(),
})

/** What an MCP guard lets through besides the policy's tools. */
export const mcpPolicySchema = z.strictObject({
  /**
   * True: a tool whose entry has no `pin` is withheld, as a changed one is (`plan-mcp init`
   * writes true). Default false: only the tools with a `pin` are checked against it.
   */
  requirePins: z.boolean().default(false),
  /** Prompts `prompts/get` may fetch, by name; any other is refused. Default none. */
  prompts: z.array(z.string().min(1)).default([]),
  /**
   * URI schemes `resources/read` and `resources/subscribe` may name, without the colon; a
   * `file` URI must also name a path tools may read. Default none: every request is refused.
   */
  resources: z.array(z.string().regex(/^[a-z][a-z0-9+.-]*$/)).default([]),
})

/** Trust defaults for the data-flow checks. */
export const trustSchema = z.strictObject({
  /** Output trust of a tool declaring none. Default `untrusted` (fail closed: trust is opt-in). */
  defaultOutput: z.enum(['trusted', 'untrusted']).default('untrusted'),
  /**
   * Per-turn mode: what a run may still do once untrusted output (or a tool error of an
   * untrusted tool) has entered the model's context. Absent: the copied-text check only.
   */
  tainted: taintedSchema.optional(),
})

/** How an approved plan must be bound to its approval. */
export const approvalSchema = z.strictObject({
  /**
   * When true, a guard refuses a plan (and every re-plan or turn) that does not come with a
   * valid `signPlan` signature. Default false.
   */
  requireSignature: z.boolean().default(false),
})

/** Audit requirements. */
export const auditSchema = z.strictObject({
  /** When true, a guard refuses to start without an audit sink. Default false. */
  required: z.boolean().default(false),
})

/**
 * A budget shared across runs and processes: at most `maxCalls` calls of `tools` per value of
 * the run key `per` (e.g. `tenant`) in each window of `windowSeconds`.
 */
export const sharedBudgetSchema = z.strictObject({
  /** The run key that separates the budget (e.g. `tenant`, `user`); each run passes its value. */
  per: z.string().min(1),
  /** The tools it counts; every tool when omitted. */
  tools: z.array(z.string().min(1)).min(1).optional(),
  /** Most calls per key in one window. */
  maxCalls: z.number().int().positive(),
  /** Length of a window, in seconds; windows are aligned on the Unix epoch. Default: no window. */
  windowSeconds: z.number().int().positive().optional(),
})

/** Limits on a plan (static) and a run (dynamic). */
export const budgetsSchema = z.strictObject({
  /** Most steps in one plan. */
  maxSteps: z.number().int().positive().default(1000),
  /** Longest dependency chain, in steps. */
  maxDepth: z.number().int().positive().default(256),
  /** Most direct dependents of one step. */
  maxFanOut: z.number().int().positive().default(256),
  /** Most calls of any one tool in one plan, unless the tool sets `maxCalls`. */
  maxCallsPerTool: z.number().int().positive().optional(),
  /** Most tool calls in one run. */
  maxCalls: z.number().int().positive().optional(),
  /** Most identical calls (same tool, same arguments) in one run. */
  maxIdenticalCalls: z.number().int().positive().default(3),
  /**
   * Most denied calls (and rejected per-turn batches) in one run; past it the run stops, so a
   * model that keeps proposing what the policy refuses cannot loop forever.
   */
  maxDenials: z.number().int().positive().default(20),
  /**
   * Counts `maxDenials` (and repeated denied requests) per window of this many seconds, not per
   * run: past it, calls are refused until the window ends and the next starts afresh, so a long
   * session (a desktop MCP client) stays usable. Default: per run, and past it the run stops.
   */
  denialWindowSeconds: z.number().int().positive().optional(),
  /** Most plans submitted in one run after the first. */
  maxReplans: z.number().int().nonnegative().default(5),
  /** Wall-clock limit of one run, in milliseconds. */
  deadlineMs: z.number().int().positive().optional(),
  /**
   * Budgets shared by every run with the same key (a tenant, a user, a session), enforced
   * through a guard store such as `@plan/postgres`, by name.
   */
  shared: z.record(z.string().min(1), sharedBudgetSchema).optional(),
})

/** Where paths may point. */
export const workspaceSchema = z.strictObject({
  /** Folders that paths must stay inside; relative roots resolve against the policy file's folder. */
  roots: z.array(z.string().min(1)).min(1),
  /** Paths (relative to a root, or absolute) that may be read but never written. */
  readOnly: z.array(z.string().min(1)).default(() => [...DEFAULT_READ_ONLY]),
  /** Paths (relative to a root, or absolute) never read nor written; `dir/**` is the folder. */
  deny: z.array(z.string().min(1)).default([]),
})

const limit = z.number().int().positive().max(Number.MAX_SAFE_INTEGER)

/**
 * Resource limits of a sandboxed command: `setrlimit` limits, each applied to every process of
 * it, and the size of its private `/tmp`. `@plan/sandbox` sets `fileSizeBytes` and `openFiles` by
 * default; code may lower a limit set here, never raise it.
 */
export const sandboxLimitsSchema = z.strictObject({
  /** CPU seconds of each process (`RLIMIT_CPU`): SIGXCPU at the limit, SIGKILL a second later. */
  cpuSeconds: limit.optional(),
  /** Largest file a process may write, in bytes (`RLIMIT_FSIZE`): SIGXFSZ or EFBIG past it. */
  fileSizeBytes: limit.optional(),
  /** Most open files of each process (`RLIMIT_NOFILE`). */
  openFiles: limit.optional(),
  /**
   * Most processes and threads of the whole sandbox (a pids cgroup, which holds for root too);
   * where no cgroup can be made, of the user the sandbox runs as across the host
   * (`RLIMIT_NPROC`), which root escapes, so the sandbox then refuses to start.
   */
  processes: limit.optional(),
  /** Most private writable memory of each process, in bytes (`RLIMIT_DATA`). */
  memoryBytes: limit.optional(),
  /** Size of the sandbox's private `/tmp` (HOME and TMPDIR), held in memory, in bytes. */
  tmpBytes: limit.optional(),
  /** Most bytes the whole sandbox may add to the workspace's file systems while it runs. */
  diskBytes: limit.optional(),
})

/** The OS sandbox that commands run in (`@plan/sandbox`). */
export const sandboxPolicySchema = z.strictObject({
  network: z
    .strictObject({
      /**
       * Hosts a sandboxed command may connect to (`example.com`, or `*.example.com` for its
       * subdomains). Default none: the command gets no network at all.
       */
      allow: z.array(z.string().min(1).max(253)).default([]),
    })
    .default({ allow: [] }),
  /**
   * Names of environment variables passed from the host to a sandboxed command, beyond the
   * sandbox's own short list (`PATH`, `LANG`, `TERM`, …). Never put secrets here.
   */
  env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
  /** Resource limits of every sandboxed command; see {@link sandboxLimitsSchema}. */
  limits: sandboxLimitsSchema.optional(),
  /**
   * Absolute host paths a sandboxed command may read (never write) beyond the workspace and the
   * system folders, e.g. a toolchain outside `/usr`. `deny` and the credential stores stay hidden.
   */
  read: z
    .array(
      z
        .string()
        .min(1)
        .regex(/^\/[^\0]*$/, 'must be an absolute path'),
    )
    .optional(),
})

/** A policy: the only place where permissions live. */
export const policySchema = z
  .strictObject({
    $schema: z.string().optional(),
    /** Free text for the policy's readers; ignored by the compiler. */
    $comment: z.union([z.string(), z.array(z.string())]).optional(),
    version: z.literal(1),
    workspace: workspaceSchema,
    tools: z.record(z.string().min(1), toolPolicySchema),
    // A section left out is its fields' own defaults, as an empty one would be.
    commands: commandPolicySchema.default(commandPolicySchema.parse({})),
    budgets: budgetsSchema.default(budgetsSchema.parse({})),
    trust: trustSchema.default(trustSchema.parse({})),
    approval: approvalSchema.default(approvalSchema.parse({})),
    audit: auditSchema.default(auditSchema.parse({})),
    /** How commands are sandboxed at run time; see `@plan/sandbox`. */
    sandbox: sandboxPolicySchema.optional(),
    /** What the MCP guard (`@plan/mcp`) lets through besides tool calls. */
    mcp: mcpPolicySchema.optional(),
  })
  .describe('An @plan policy')

/** One argument's declaration in `tools.<name>.args`: its type and what is checked. */
export type ArgSpec =
  | z.output<FlatArgSchema>
  | (CommonArgFields & { type: 'array'; items: ArgSpec; maxItems?: number | undefined })
/** One entry of a policy's `tools`: its arguments, call limit and output trust, defaults applied. */
export type ToolPolicy = z.output<typeof toolPolicySchema>
/** How a tool's output is labelled for trust (`tools.<name>.output`). */
export type ToolOutput = z.output<typeof toolOutputSchema>
/** A policy's `mcp` section: pins, resources and prompts the MCP guard lets through. */
export type McpPolicy = z.output<typeof mcpPolicySchema>
/** A policy's `trust` section: where untrusted data may not flow, and tainted runs. */
export type Trust = z.output<typeof trustSchema>
/** A policy's `approval` section: whether a plan must come with a `signPlan` signature. */
export type Approval = z.output<typeof approvalSchema>
/** A policy's `audit` section: whether a guard needs an audit sink to start. */
export type AuditPolicy = z.output<typeof auditSchema>
/** A policy's `budgets`, defaults applied: static limits and run-time budgets. */
export type Budgets = z.output<typeof budgetsSchema>
/** One budget of `budgets.shared`: calls counted across runs per key, in windows. */
export type SharedBudget = z.output<typeof sharedBudgetSchema>
/** A policy's `workspace`: its roots and the paths that are read-only or denied. */
export type Workspace = z.output<typeof workspaceSchema>
/** A policy's `sandbox` section: how `@plan/sandbox` runs approved commands. */
export type SandboxPolicy = z.output<typeof sandboxPolicySchema>
/** The limits of `sandbox.limits`: per-process resource limits and whole-sandbox quotas. */
export type SandboxLimitsPolicy = z.output<typeof sandboxLimitsSchema>
/** A policy as written (defaults not yet applied). */
export type PolicyInput = z.input<typeof policySchema>
/** A parsed policy with defaults applied. */
export type Policy = z.output<typeof policySchema>
