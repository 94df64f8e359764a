// Writes the JSON Schemas that the main entry reads values with instead of loading zod, from the
// zod schemas (the single definitions): src/policy/policy-schema.generated.json (a policy),
// src/extract/extraction-schema.generated.json (an extraction step's output schema),
// src/guard/guard-state-schema.generated.json (a saved guard state) and
// src/flow/untrusted-flow-state-schema.generated.json (the `flow` part of a saved guard state). Run
// after `pnpm build` whenever one of those zod schemas changes; a test fails until it is run.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { extractionSchema, guardStateJsonSchema, policyJsonSchema, untrustedFlowStateSchema } =
  await import(join(root, 'dist/schemas.js'))

const targets = [
  {
    path: 'src/policy/policy-schema.generated.json',
    schema: policyJsonSchema(),
  },
  {
    path: 'src/extract/extraction-schema.generated.json',
    schema: z.toJSONSchema(extractionSchema, { io: 'input', reused: 'ref' }),
  },
  {
    path: 'src/guard/guard-state-schema.generated.json',
    schema: guardStateJsonSchema(),
  },
  {
    path: 'src/flow/untrusted-flow-state-schema.generated.json',
    schema: z.toJSONSchema(untrustedFlowStateSchema, { io: 'input' }),
  },
]
for (const { path, schema } of targets) {
  writeFileSync(join(root, path), `${JSON.stringify(schema)}\n`)
}
const format = spawnSync(
  'npx',
  ['biome', 'format', '--write', ...targets.map(({ path }) => join(root, path))],
  {
    stdio: 'inherit',
  },
)
process.exit(format.status ?? 1)
