import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { decidePolicyCase, type PolicyCaseResult } from '@plan/core'
import { type CliIo, EXIT_APPROVED, EXIT_REJECTED, UsageError } from '../io.js'
import { writeJson } from '../json-output.js'
import { loadCompiler, loadCompilerAt } from '../load-compiler.js'
import { diffPolicies, type PolicyChange } from '../policy/diff-policies.js'
import { readPolicyCases } from '../policy/read-policy-cases.js'

/** Options of `plan policy diff` and `plan policy test`. */
export interface PolicyCommandOptions {
  readonly action: string | undefined
  readonly files: readonly string[]
  readonly format: string
}

const USAGE =
  'usage: plan policy diff <old.json> <new.json> [--format text|json]\n       plan policy test <policy.json> <cases.jsonl> [--format text|json]'

/** `plan policy diff` and `plan policy test`. */
export async function runPolicy(options: PolicyCommandOptions, io: CliIo): Promise<number> {
  if (options.format !== 'text' && options.format !== 'json')
    throw new UsageError(`unknown --format ${JSON.stringify(options.format)} (text or json)`)
  const [first, second, ...rest] = options.files
  if (first === undefined || second === undefined || rest.length > 0) throw new UsageError(USAGE)
  if (options.action === 'diff') return runDiff(first, second, options.format, io)
  if (options.action === 'test') return runTest(first, second, options.format, io)
  throw new UsageError(USAGE)
}

function changeLines(changes: readonly PolicyChange[]): string[] {
  return changes.flatMap((change) => [
    `  ${change.category.padEnd(8)}${change.subject}: ${change.detail}`,
    ...change.probes.map((probe) => `      ${probe.probe}  (refused with ${probe.code})`),
  ])
}

async function runDiff(
  oldFile: string,
  newFile: string,
  format: string,
  io: CliIo,
): Promise<number> {
  const after = await loadCompiler(newFile, io)
  // OLD's relative roots resolve where NEW's do: a copy of the old version compares in place.
  const before = await loadCompilerAt(oldFile, dirname(resolve(io.cwd, newFile)), io)
  const changes = diffPolicies(before, after.compiler)
  const looser = changes.filter((change) => change.direction === 'looser')
  const tighter = changes.filter((change) => change.direction === 'tighter')
  if (format === 'json') writeJson(io.stdout, { looser: looser.length > 0, changes })
  else {
    const lines =
      changes.length === 0
        ? ['No change: NEW decides every probe as OLD does.']
        : [
            ...(looser.length > 0 ? ['NEW allows what OLD refused:', ...changeLines(looser)] : []),
            ...(tighter.length > 0
              ? ['NEW refuses what OLD allowed:', ...changeLines(tighter)]
              : []),
          ]
    io.stdout.write(`${lines.join('\n')}\n`)
  }
  return looser.length > 0 ? EXIT_REJECTED : EXIT_APPROVED
}

function caseText(result: PolicyCaseResult): string {
  const { case: policyCase } = result
  if (policyCase.name !== undefined) return policyCase.name
  return 'command' in policyCase
    ? policyCase.command
    : `${policyCase.tool} ${JSON.stringify(policyCase.args ?? {})}`
}

function resultTable(results: readonly PolicyCaseResult[]): string {
  const rows = results.map((result, index) => [
    String(index + 1),
    caseText(result),
    result.case.expect + (result.case.code === undefined ? '' : ` ${result.case.code}`),
    result.decision + (result.issues[0] === undefined ? '' : ` ${result.issues[0].code}`),
    result.passed ? 'pass' : 'FAIL',
  ])
  const header = ['#', 'case', 'expected', 'decided', 'result']
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  )
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] as number))
      .join('  ')
      .trimEnd()
  const failed = results.filter((result) => !result.passed).length
  return [
    line(header),
    ...rows.map(line),
    `${results.length - failed} passed, ${failed} failed`,
  ].join('\n')
}

async function runTest(
  policyFile: string,
  casesFile: string,
  format: string,
  io: CliIo,
): Promise<number> {
  const { compiler } = await loadCompiler(policyFile, io)
  let text: string
  try {
    text = await readFile(resolve(io.cwd, casesFile), 'utf8')
  } catch (error) {
    throw new UsageError(
      `cannot read the cases ${casesFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    )
  }
  const results = readPolicyCases(text, casesFile).map((policyCase) =>
    decidePolicyCase(compiler, policyCase),
  )
  const failed = results.filter((result) => !result.passed).length
  if (format === 'json')
    writeJson(io.stdout, {
      passed: results.length - failed,
      failed,
      results: results.map((result) => ({
        case: result.case,
        decision: result.decision,
        codes: result.issues.map((issue) => issue.code),
        passed: result.passed,
      })),
    })
  else io.stdout.write(`${resultTable(results)}\n`)
  return failed > 0 ? EXIT_REJECTED : EXIT_APPROVED
}
