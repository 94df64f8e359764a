export type { JsonSchema, SchemaMatch, SchemaMismatch } from '@plan/json'
export { matchJsonSchema, readJsonSchema } from '@plan/json'
