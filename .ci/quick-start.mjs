// Prints the commands of the README's Quick start, one a line: the first ```sh block after the
// heading "## Quick start", with comments and blank lines dropped. Usage: node quick-start.mjs README.md
import { readFileSync } from 'node:fs'

const readme = readFileSync(process.argv[2] ?? 'README.md', 'utf8')
const section = readme.indexOf('\n## Quick start')
if (section < 0) throw new Error('the README has no "## Quick start" section')
const block = /```sh\n([\s\S]*?)\n```/.exec(readme.slice(section))
if (block === null) throw new Error('the Quick start has no ```sh block')
for (const line of block[1].split('\n')) {
  const command = line.replace(/\s+#.*$/, '').trim()
  if (command !== '' && !command.startsWith('#')) console.log(command)
}
