// Builds src/command/__fixtures__/gtfobins.json from a checkout of GTFOBins/GTFOBins.github.io.
// Usage: node scripts/gtfobins-fixture.mjs <checkout> <commit>
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'

const FUNCTIONS = [
  'shell',
  'command',
  'file-read',
  'file-write',
  'upload',
  'download',
  'library-load',
  'reverse-shell',
  'bind-shell',
]
const [checkout, commit] = process.argv.slice(2)
if (checkout === undefined || commit === undefined) {
  process.stderr.write('usage: node scripts/gtfobins-fixture.mjs <checkout> <commit>\n')
  process.exit(2)
}
const folder = join(checkout, '_gtfobins')
const techniques = []
for (const program of readdirSync(folder).sort()) {
  const data = parse(readFileSync(join(folder, program), 'utf8').replace(/\n\.\.\.\s*$/, '\n'))
  for (const fn of FUNCTIONS) {
    for (const entry of data?.functions?.[fn] ?? []) {
      if (typeof entry?.code === 'string')
        techniques.push({ program, function: fn, code: entry.code })
    }
  }
}
const fixture = {
  source: `https://github.com/GTFOBins/GTFOBins.github.io/tree/${commit}/_gtfobins (GPL-3.0)`,
  note: 'Technique code as published; placeholders such as /path/to/input-file are substituted by the test.',
  techniques,
}
writeFileSync(
  new URL('../src/command/__fixtures__/gtfobins.json', import.meta.url),
  `${JSON.stringify(fixture, null, 1)}\n`,
)
process.stdout.write(`${techniques.length} techniques\n`)
