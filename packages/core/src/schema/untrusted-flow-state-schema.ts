import { z } from 'zod'

const count = z.int().nonnegative()
const sourceLists = z.record(z.string(), z.array(z.string()))

/**
 * The untrusted-flow tracker's state as JSON: the `flow` of a saved guard state. The single
 * definition of its shape; the tracker reads it through its JSON Schema (without loading zod)
 * and checks what a schema cannot say (no step saw more outputs than were recorded). A flag or
 * count set to null reads as absent, as in states written before it existed.
 */
export const untrustedFlowStateSchema = z.looseObject({
  labels: z.record(z.string(), z.enum(['trusted', 'untrusted'])),
  seen: z.record(z.string(), count),
  text: z.looseObject({
    outputs: z.array(z.looseObject({ stepId: z.string(), texts: z.array(z.string()) })),
    saturatedAt: count.nullable().optional(),
  }),
  sensitive: z.boolean().nullable().optional(),
  acted: z.boolean().nullable().optional(),
  sources: sourceLists.optional(),
  context: z.array(z.string()).optional(),
  files: sourceLists.optional(),
  questions: count.nullable().optional(),
})

/** The `flow` of a saved guard state, as its schema reads it. */
export type SavedUntrustedFlowState = z.output<typeof untrustedFlowStateSchema>
