import type { JsonValue, PlanIssue, PlanStep } from '@plan/core'

/** Options for {@link parseLLMCompilerPlan}. */
export interface ParseLLMCompilerPlanOptions {
  /**
   * Argument names per tool, in order, so positional arguments (`search("x")`) can be named.
   * Without an entry, a tool's arguments must be written as `name=value`.
   */
  readonly argumentNames?: Readonly<Record<string, readonly string[]>>
}

/** What {@link parseLLMCompilerPlan} returns: the steps, and every line it could not read. */
export type LLMCompilerParseResult =
  | { readonly success: true; readonly steps: PlanStep[]; readonly issues: readonly [] }
  | {
      readonly success: false
      /** The steps of the lines that could be read; never run a partial plan. */
      readonly steps: PlanStep[]
      readonly issues: readonly PlanIssue[]
    }

const TASK_LINE = /^\s*(\d+)\s*[.)]\s*(.*)$/
const END_OF_PLAN = '<END_OF_PLAN>'
const MAX_DEPTH = 64
const HINT =
  'Write one task per line as `N. tool(name=value, …)`; use $N (a whole argument) for the output of task N, and end with `join()`.'

class SyntaxProblem {
  constructor(readonly message: string) {}
}

type Value = JsonValue | { readonly $ref: string }

/** A small reader for the Python-like literals LLMCompiler planners write. */
class Reader {
  index = 0

  constructor(readonly text: string) {}

  fail(message: string): never {
    throw new SyntaxProblem(`${message} at column ${this.index + 1}`)
  }

  skipSpace(): void {
    while (this.index < this.text.length && /\s/.test(this.text[this.index] as string))
      this.index += 1
  }

  peek(): string | undefined {
    this.skipSpace()
    return this.text[this.index]
  }

  expect(character: string): void {
    if (this.peek() !== character) this.fail(`expected "${character}"`)
    this.index += 1
  }

  identifier(): string | undefined {
    this.skipSpace()
    const match = /^[A-Za-z_][A-Za-z0-9_.-]*/.exec(this.text.slice(this.index))
    if (match === null) return undefined
    this.index += match[0].length
    return match[0]
  }

  value(depth: number): Value {
    if (depth > MAX_DEPTH) this.fail(`values are nested more than ${MAX_DEPTH} deep`)
    const next = this.peek()
    if (next === undefined) this.fail('expected a value')
    if (next === '"' || next === "'") return this.stringOrReference()
    if (next === '$') return this.reference()
    if (next === '[' || next === '(') return this.list(next === '[' ? ']' : ')', depth)
    if (next === '{') return this.object(depth)
    const number = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.index))
    if (number !== null) {
      this.index += number[0].length
      return Number(number[0])
    }
    const word = this.identifier()
    if (word === 'true' || word === 'True') return true
    if (word === 'false' || word === 'False') return false
    if (word === 'null' || word === 'None') return null
    return this.fail(word === undefined ? `unexpected "${next}"` : `unknown word "${word}"`)
  }

  reference(): Value {
    const match = /^\$(?:\{(\d+)\}|(\d+))/.exec(this.text.slice(this.index))
    if (match === null) this.fail('expected a reference like $1')
    this.index += match[0].length
    return { $ref: String(Number(match[1] ?? match[2])) }
  }

  stringOrReference(): Value {
    const text = this.string()
    const whole = /^\$(?:\{(\d+)\}|(\d+))$/.exec(text)
    if (whole !== null) return { $ref: String(Number(whole[1] ?? whole[2])) }
    if (/\$\{?\d/.test(text)) {
      this.fail(
        'a reference like $1 inside a longer string cannot be resolved; pass $1 as a whole argument',
      )
    }
    return text
  }

  string(): string {
    const quote = this.text[this.index] as string
    this.index += 1
    let out = ''
    while (this.index < this.text.length) {
      const character = this.text[this.index] as string
      this.index += 1
      if (character === quote) return out
      if (character !== '\\') {
        out += character
        continue
      }
      const escaped = this.text[this.index]
      this.index += 1
      if (escaped === undefined) break
      if (escaped === 'u') {
        const hex = this.text.slice(this.index, this.index + 4)
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape')
        out += String.fromCharCode(Number.parseInt(hex, 16))
        this.index += 4
      } else {
        const simple: Record<string, string> = {
          n: '\n',
          t: '\t',
          r: '\r',
          b: '\b',
          f: '\f',
          '0': '\0',
        }
        out += simple[escaped] ?? escaped
      }
    }
    return this.fail('unterminated string')
  }

  list(close: string, depth: number): Value {
    this.index += 1
    const items: Value[] = []
    while (this.peek() !== close) {
      items.push(this.value(depth + 1))
      if (this.peek() === ',') this.index += 1
      else if (this.peek() !== close) this.fail(`expected "," or "${close}"`)
    }
    this.index += 1
    return items as JsonValue[]
  }

  object(depth: number): Value {
    this.index += 1
    const out: Record<string, Value> = {}
    while (this.peek() !== '}') {
      const next = this.peek()
      const key = next === '"' || next === "'" ? this.string() : this.identifier()
      if (key === undefined) this.fail('expected a key')
      this.expect(':')
      defineKey(out, key, this.value(depth + 1))
      if (this.peek() === ',') this.index += 1
      else if (this.peek() !== '}') this.fail('expected "," or "}"')
    }
    this.index += 1
    return out as JsonValue
  }
}

/** Sets a key as an own data property, so `__proto__` stays a plain key. */
function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  })
}

interface ParsedCall {
  readonly tool: string
  readonly positional: Value[]
  readonly named: Record<string, Value>
}

function parseCall(text: string): ParsedCall {
  const reader: Reader = new Reader(text)
  const tool = reader.identifier()
  if (tool === undefined) reader.fail('expected a tool name')
  reader.expect('(')
  const positional: Value[] = []
  const named: Record<string, Value> = Object.create(null)
  while (reader.peek() !== ')') {
    if (reader.peek() === undefined) reader.fail('expected ")"')
    const start = reader.index
    const name = reader.identifier()
    if (name !== undefined && reader.peek() === '=') {
      reader.index += 1
      if (Object.hasOwn(named, name)) reader.fail(`argument "${name}" is given twice`)
      defineKey(named, name, reader.value(0))
    } else {
      reader.index = start
      if (Object.keys(named).length > 0) reader.fail('a positional argument follows a named one')
      positional.push(reader.value(0))
    }
    if (reader.peek() === ',') reader.index += 1
    else if (reader.peek() !== ')') reader.fail('expected "," or ")"')
  }
  reader.index += 1
  reader.skipSpace()
  const rest = text.slice(reader.index).trim()
  if (rest !== '' && rest !== END_OF_PLAN)
    reader.fail(`unexpected text after the call: ${JSON.stringify(rest.slice(0, 40))}`)
  return { tool, positional, named: { ...named } }
}

function isPlainRecord(value: Value | undefined): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !('$ref' in value)
}

function argumentsOf(
  call: ParsedCall,
  names: readonly string[] | undefined,
): Record<string, Value> {
  if (call.positional.length === 0) return call.named
  if (names === undefined) {
    const [only] = call.positional
    if (
      call.positional.length === 1 &&
      Object.keys(call.named).length === 0 &&
      isPlainRecord(only)
    ) {
      return only
    }
    throw new SyntaxProblem(
      `${call.tool}() has positional arguments, but their names are unknown; write them as name=value`,
    )
  }
  if (call.positional.length > names.length) {
    throw new SyntaxProblem(
      `${call.tool}() takes at most ${names.length} positional argument${names.length === 1 ? '' : 's'} (${names.join(', ')})`,
    )
  }
  const args: Record<string, Value> = {}
  call.positional.forEach((value, index) => {
    defineKey(args, names[index] as string, value)
  })
  for (const [name, value] of Object.entries(call.named)) {
    if (Object.hasOwn(args, name)) throw new SyntaxProblem(`argument "${name}" is given twice`)
    defineKey(args, name, value)
  }
  return args
}

/**
 * Reads an LLMCompiler-style plan: numbered `N. tool(args)` lines, where `$N` (a whole
 * argument) is the output of task N and becomes `{ "$ref": "N" }`, and `join()` ends the plan.
 * Other lines (thoughts, prose) are skipped. Every line that cannot be read is reported as an
 * `invalid_plan` issue; nothing is thrown. The steps still go to the compiler, which checks
 * tools, arguments and references.
 *
 * @example
 * ```ts
 * const { success, steps, issues } = parseLLMCompilerPlan(
 *   '1. view_file(file="README.md")\n2. summarize(text=$1)\n3. join()<END_OF_PLAN>',
 * )
 * if (success) compiler.compile({ steps })
 * ```
 */
export function parseLLMCompilerPlan(
  text: string,
  options: ParseLLMCompilerPlanOptions = {},
): LLMCompilerParseResult {
  const issues: PlanIssue[] = []
  const steps: PlanStep[] = []
  if (typeof text !== 'string') {
    const issue: PlanIssue = {
      code: 'invalid_plan',
      message: 'The plan must be text.',
      path: [],
      hint: HINT,
    }
    return { success: false, steps, issues: [issue] }
  }
  const lines = text.split(/\r?\n/)
  let joined = false
  lines.forEach((line, index) => {
    const match = TASK_LINE.exec(line)
    if (match === null) return
    const id = String(Number(match[1]))
    const body = (match[2] as string).trim()
    const report = (message: string) => {
      issues.push({
        code: 'invalid_plan',
        message: `Line ${index + 1}: ${message}.`,
        path: ['lines', index],
        stepId: id,
        hint: HINT,
      })
    }
    if (/^join\s*\(\s*\)/.test(body)) {
      joined = true
      return
    }
    if (joined) {
      report('a task follows join(), which ends the plan')
      return
    }
    try {
      const call = parseCall(body)
      const names = Object.hasOwn(options.argumentNames ?? {}, call.tool)
        ? options.argumentNames?.[call.tool]
        : undefined
      steps.push({ id, tool: call.tool, args: argumentsOf(call, names) })
    } catch (error) {
      if (!(error instanceof SyntaxProblem)) throw error
      report(error.message)
    }
  })
  if (issues.length === 0 && steps.length === 0) {
    issues.push({
      code: 'invalid_plan',
      message: 'No numbered task lines were found.',
      path: [],
      hint: HINT,
    })
  }
  return issues.length === 0
    ? { success: true, steps, issues: [] }
    : { success: false, steps, issues }
}
