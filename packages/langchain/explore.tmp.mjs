import { tool, DynamicTool } from 'langchain'
import { toJsonSchema } from '@langchain/core/utils/json_schema'
import { z } from 'zod'
import { z as z3 } from 'zod/v3'
const t = tool(async () => '', { name: 't', description: 'd', schema: z.object({
  file: z.string().describe('the file'), n: z.number().int().min(1).max(5).optional(), flag: z.boolean().default(false),
  mode: z.enum(['a', 'b']), tags: z.array(z.string()).max(3), nested: z.object({ x: z.string() }), maybe: z.string().nullable(), lit: z.literal('x'),
  re: z.string().regex(/^a+$/).min(2), big: z.number().gt(3) }) })
console.log(JSON.stringify(toJsonSchema(t.schema), null, 1))
const t3 = tool(async () => '', { name: 't3', description: 'd', schema: z3.object({ file: z3.string(), n: z3.number().optional(), d: z3.boolean().default(true) }) })
console.log(JSON.stringify(toJsonSchema(t3.schema)))
const d = new DynamicTool({ name: 'dyn', description: 'x', func: async () => '' })
console.log(JSON.stringify(toJsonSchema(d.schema)))
const j = tool(async () => '', { name: 'j', description: 'd', schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } })
console.log(JSON.stringify(toJsonSchema(j.schema)))
