import { random } from './measure.ts'

/** The policy every benchmark compiles against. */
export const benchPolicy = {
  version: 1 as const,
  // The plans commit: protect the repository's config and hooks, not all of .git.
  workspace: { roots: ['/srv/repo'], readOnly: ['.git/config', '.git/hooks'] },
  tools: {
    view_file: { args: { file: { type: 'path' as const, access: 'read' as const } } },
    write_file: {
      args: {
        file: { type: 'path' as const, access: 'write' as const },
        content: { type: 'string' as const },
      },
    },
    run_command: { args: { command: { type: 'command' as const } } },
  },
  commands: { allow: ['git', 'npm', 'pytest', 'ls', 'cat', 'grep'] },
  // The plans write what earlier steps return into files that later commands run: were those
  // outputs untrusted (the default), the compiler would refuse the plans as write-then-run.
  trust: { defaultOutput: 'trusted' as const },
}

/** The policy of the framework rows: one `echo` tool, in the workspace `root`. */
export function echoPolicy(root: string) {
  return {
    version: 1 as const,
    workspace: { roots: [root] },
    tools: { echo: { args: { text: { type: 'string' as const } } } },
    budgets: { maxCalls: 1000 },
  }
}

const COMMANDS = [
  'npm test',
  'pytest -q tests/test_auth.py',
  'git status',
  'git diff HEAD~1 -- src',
  'git commit -m "fix: a | b"',
  'ls -la src',
  'grep -rn TODO src',
  'cat README.md',
  'npm run build',
  'git log --oneline -n 20',
]

/**
 * A realistic plan of `size` steps: reads, writes that use an earlier read's output, and
 * commands; each step depends on up to two earlier steps.
 */
export function realisticPlan(size: number, seed = 1): { steps: unknown[] } {
  const next = random(seed)
  const steps: unknown[] = []
  for (let index = 0; index < size; index += 1) {
    const id = `s${index}`
    const deps: string[] = []
    if (index > 0 && next() < 0.7) deps.push(`s${Math.floor(next() * index)}`)
    if (index > 1 && next() < 0.3) deps.push(`s${Math.floor(next() * index)}`)
    const kind = next()
    if (kind < 0.5) {
      steps.push({
        id,
        tool: 'view_file',
        args: { file: `src/module_${index % 97}/file_${index}.ts` },
        depends_on: [...new Set(deps)],
      })
    } else if (kind < 0.8 && index > 0) {
      const source = `s${Math.floor(next() * index)}`
      steps.push({
        id,
        tool: 'write_file',
        args: { file: `src/out/file_${index}.ts`, content: { $ref: `${source}.output.text` } },
        depends_on: [...new Set(deps)],
      })
    } else {
      steps.push({
        id,
        tool: 'run_command',
        args: { command: COMMANDS[index % COMMANDS.length] },
        depends_on: [...new Set(deps)],
      })
    }
  }
  return { steps }
}

/**
 * {@link realisticPlan} with every dependency and reference moved onto one of the 8 steps
 * before: the same text size and shape, but a lookup of a step id stays near the step looking.
 */
export function localPlan(size: number, seed = 1): { steps: unknown[] } {
  const { steps } = realisticPlan(size, seed) as {
    steps: { id: string; depends_on: string[]; args: { content?: { $ref: string } } }[]
  }
  const near = (index: number, offset: number) =>
    `s${Math.max(0, index - 1 - ((index * 5 + offset * 3) % 8))}`
  for (const [index, step] of steps.entries()) {
    step.depends_on = [...new Set(step.depends_on.map((_, offset) => near(index, offset)))]
    if (step.args.content !== undefined) step.args.content.$ref = `${near(index, 0)}.output.text`
  }
  return { steps }
}

/** A random DAG as dependency lists: node i depends on up to `degree` earlier nodes. */
export function randomDag(size: number, degree: number, seed = 7): number[][] {
  const next = random(seed)
  const deps: number[][] = []
  for (let node = 0; node < size; node += 1) {
    const set = new Set<number>()
    if (node > 0) for (let edge = 0; edge < degree; edge += 1) set.add(Math.floor(next() * node))
    deps.push([...set])
  }
  return deps
}

/** A chain: node i depends on node i - 1. */
export function chain(size: number): number[][] {
  return Array.from({ length: size }, (_, node) => (node === 0 ? [] : [node - 1]))
}

/** Layers of `width` nodes, each depending on every node of the layer before. */
export function wideLayers(layers: number, width: number): number[][] {
  const deps: number[][] = []
  for (let layer = 0; layer < layers; layer += 1) {
    for (let index = 0; index < width; index += 1) {
      deps.push(
        layer === 0 ? [] : Array.from({ length: width }, (_, other) => (layer - 1) * width + other),
      )
    }
  }
  return deps
}
