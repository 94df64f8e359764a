import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { type CliIo, EXIT_APPROVED, UsageError } from '../io.js'

/** Options of `plan init`. */
export interface InitOptions {
  /** Where to write; `-` prints to standard output. */
  readonly output: string
  readonly root: string
  readonly force: boolean
}

/** The programs a starter policy allows, from what the repository contains. */
function detectPrograms(root: string): string[] {
  const programs = new Set(['ls', 'cat', 'grep'])
  if (existsSync(join(root, '.git'))) programs.add('git')
  if (existsSync(join(root, 'package.json'))) programs.add('npm')
  if (existsSync(join(root, 'pnpm-lock.yaml'))) programs.add('pnpm')
  if (
    ['pyproject.toml', 'pytest.ini', 'setup.cfg', 'tox.ini'].some((file) =>
      existsSync(join(root, file)),
    )
  )
    programs.add('pytest')
  if (existsSync(join(root, 'Cargo.toml'))) programs.add('cargo')
  if (existsSync(join(root, 'go.mod'))) programs.add('go')
  return [...programs].sort()
}

/** A starter policy for the repository at `root`, with `$comment`s explaining each part. */
export function starterPolicy(root: string, policyDir: string): Record<string, unknown> {
  const programs = detectPrograms(root)
  const relativeRoot = relative(policyDir, root) || '.'
  return {
    $comment: [
      '@plan policy: everything not listed here is denied.',
      'workspace.roots: paths must resolve inside these folders (relative roots resolve against this file).',
      'workspace.readOnly: left out, it is the code-running parts of every .git (config, hooks, info, …), so git commit works; list more paths to keep them from being written.',
      'tools: the only tools a plan may call, and the only arguments each may take.',
      'commands.allow: programs a `command` argument may run; it is parsed as Bash and must be one simple command.',
      'Run `plan schema policy` for the full JSON Schema.',
    ],
    version: 1,
    workspace: { roots: [relativeRoot], deny: ['.env'] },
    tools: {
      view_file: {
        description: 'Read a text file',
        args: { file: { type: 'path', access: 'read' } },
      },
      list_files: {
        description: 'List a folder',
        args: { dir: { type: 'path', access: 'read', required: false } },
      },
      write_file: {
        description: 'Write a text file (atomically)',
        args: {
          file: { type: 'path', access: 'write' },
          content: { type: 'string', maxLength: 1000000 },
        },
        maxCalls: 20,
      },
      run_command: {
        description: 'Run one allowed program, without a shell',
        args: { command: { type: 'command' } },
        maxCalls: 20,
      },
    },
    commands: {
      allow: programs,
      rules: programs.includes('git')
        ? {
            git: {
              subcommands: [
                'status',
                'diff',
                'log',
                'show',
                'add',
                'commit',
                'branch',
                'checkout',
                'switch',
                'restore',
              ],
            },
          }
        : {},
    },
    budgets: { maxSteps: 50, maxDepth: 20, maxCalls: 100, maxIdenticalCalls: 3, maxReplans: 3 },
  }
}

/** `plan init`: writes a starter policy (never overwriting one unless `--force`). */
export async function runInit(options: InitOptions, io: CliIo): Promise<number> {
  const root = resolve(io.cwd, options.root)
  if (options.output === '-') {
    io.stdout.write(`${JSON.stringify(starterPolicy(root, io.cwd), null, 2)}\n`)
    return EXIT_APPROVED
  }
  const target = resolve(io.cwd, options.output)
  if (existsSync(target) && !options.force)
    throw new UsageError(`${options.output} already exists (use --force to replace it)`)
  const text = `${JSON.stringify(starterPolicy(root, dirname(target)), null, 2)}\n`
  const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`
  try {
    await writeFile(temporary, text, { flag: 'wx' })
    await rename(temporary, target)
  } catch (error) {
    await rm(temporary, { force: true })
    throw new UsageError(
      `cannot write ${options.output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  io.stdout.write(
    `wrote ${options.output}: review workspace.roots, tools and commands.allow, then run \`plan check <plan.json> --policy ${options.output}\`\n`,
  )
  return EXIT_APPROVED
}
