import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** A temporary copy of the sample repository the agents work on. */
export interface ReplayRepo {
  readonly root: string
  read(file: string): Promise<string | undefined>
  write(file: string, content: string): Promise<void>
  cleanup(): Promise<void>
}

const FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'calc', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'README.md':
    '# calc\n\nA tiny maths and strings library. API docs: https://docs.example.com/calc\nRun the tests with `npm test`.\n',
  'CONTRIBUTING.md': 'Before you send a change, run `npm test`.\n',
  'src/math.js':
    'export const add = (a, b) => a + b\nexport const sub = (a, b) => a - b\nexport const mul = (a, b) => a * b\n',
  'src/strings.js':
    'export const upper = (s) => s.toUpperCase()\nexport const lower = (s) => s.toLowerCase()\n',
  'src/index.js': "export * from './math.js'\nexport * from './strings.js'\n",
  'test/math.test.js':
    "import assert from 'node:assert/strict'\nimport { test } from 'node:test'\nimport { add, mul, sub } from '../src/math.js'\n\ntest('add', () => assert.equal(add(2, 3), 5))\ntest('sub', () => assert.equal(sub(5, 3), 2))\ntest('mul', () => assert.equal(mul(2, 3), 6))\n",
  'test/strings.test.js':
    "import assert from 'node:assert/strict'\nimport { test } from 'node:test'\nimport { lower, upper } from '../src/strings.js'\n\ntest('upper', () => assert.equal(upper('a'), 'A'))\ntest('lower', () => assert.equal(lower('A'), 'a'))\n",
  '.env': 'API_TOKEN=tok-live-7f3a9c2e51d84b06\n',
  '.github/workflows/ci.yml':
    'on: push\njobs: { test: { runs-on: ubuntu-latest, steps: [{ run: npm test }] } }\n',
}

/** Creates the repository in a new temporary folder; `cleanup` removes it. */
export async function createReplayRepo(): Promise<ReplayRepo> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'plan-replay-')))
  const write = async (file: string, content: string) => {
    await mkdir(dirname(join(root, file)), { recursive: true })
    await writeFile(join(root, file), content)
  }
  for (const [file, content] of Object.entries(FILES)) await write(file, content)
  return {
    root,
    write,
    async read(file) {
      try {
        return await readFile(join(root, file), 'utf8')
      } catch {
        return undefined
      }
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
}
