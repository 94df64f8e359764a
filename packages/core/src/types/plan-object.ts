/** A plan as `planSchemaForPolicy` produces it. */
export interface PlanObject {
  goal?: string | undefined
  steps: {
    id: string
    tool: string
    args?: Record<string, unknown> | undefined
    depends_on?: string[] | undefined
    description?: string | undefined
  }[]
}
