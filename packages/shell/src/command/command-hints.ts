/** Characters of one command word a message or hint quotes at most. */
export const MAX_QUOTED_LENGTH = 64

/**
 * A word of the command as a JSON string, cut to {@link MAX_QUOTED_LENGTH} characters: an
 * issue never echoes more than a bounded amount of the text it refuses.
 */
export function quoted(word: string): string {
  if (word.length <= MAX_QUOTED_LENGTH) return JSON.stringify(word)
  return `${JSON.stringify(word.slice(0, MAX_QUOTED_LENGTH))}… (${word.length} characters)`
}

/** A word of the command as it is when short, else cut and quoted as {@link quoted} does. */
export function bounded(word: string): string {
  return word.length <= MAX_QUOTED_LENGTH ? word : quoted(word)
}

/** True when a word is short enough to be named whole in a policy line. */
export function fitsPolicyLine(word: string): boolean {
  return word.length > 0 && word.length <= MAX_QUOTED_LENGTH
}

/** The sentence naming the policy line `key: value` that would allow the refused command. */
export function policyLineSentence(key: string, value: string): string {
  return `The policy line ${key}: ${value} would allow it.`
}

/**
 * The sentence naming `allowExec`, the one policy line that lets a program run code: it is
 * true, and it is said to lift every code check of the program.
 */
export function allowExecSentence(word: string): string {
  if (!fitsPolicyLine(word) || word.includes('/'))
    return 'Only allowExec: true in the rule of the bare program name would allow it, and it lets the program run any code.'
  return `Only the policy line commands.rules.${word}.allowExec: true would allow it, and it lets ${word} run any code.`
}

// Said after a syntax hint: no policy setting lifts a shell construct.
const NO_POLICY_LINE =
  'Commands run without a shell, so shell syntax is refused and no policy line allows it.'

/** Hints a planner model can act on, shared by the syntax checks. */
export const COMMAND_HINTS = {
  list: `Run one command per step: put each command in its own step instead of chaining with ; && || & or a newline. ${NO_POLICY_LINE}`,
  pipeline: `Run one command per step and use the program's own arguments (e.g. grep PATTERN FILE) instead of a pipe. ${NO_POLICY_LINE}`,
  redirection: `Drop the redirection: the tool returns the output; to write a file, use a file-writing tool. ${NO_POLICY_LINE}`,
  heredoc: `Pass the text as a quoted argument or write it with a file tool; here-documents are not accepted. ${NO_POLICY_LINE}`,
  substitution: `Run the inner command in its own step and pass its output as a literal argument; $( ), backticks, <( ) and $(( )) are not accepted. ${NO_POLICY_LINE}`,
  expansion: `Write the value literally; variables, \${…}, $'…' and $"…" are not expanded. Put a literal $ inside single quotes. ${NO_POLICY_LINE}`,
  subshell: `Run the command directly, without ( ) or { } around it. ${NO_POLICY_LINE}`,
  function: `Run the command directly; shell functions cannot be defined. ${NO_POLICY_LINE}`,
  assignment: `Drop the NAME=value prefix (and export/declare): environment variables cannot be set from a command; pass the setting as the program's own option. ${NO_POLICY_LINE}`,
  controlFlow: `Use one plain command per step; if/for/while/until/case/select, [[ ]], (( )) and ! are not accepted. ${NO_POLICY_LINE}`,
  brace: `Write every argument out; quote braces that are literal (e.g. '@{u}'). Brace expansion is not performed. ${NO_POLICY_LINE}`,
  glob: `List the files explicitly, or quote the pattern when the program matches it itself (find . -name '*.ts'): nothing expands it. ${NO_POLICY_LINE}`,
  tilde: `Use a path relative to the workspace instead of ~. ${NO_POLICY_LINE}`,
  comment: `Remove the # comment: only the command itself is accepted. ${NO_POLICY_LINE}`,
  parse: `Write one plain command with balanced quotes, e.g. git commit -m "message", without shell syntax. ${NO_POLICY_LINE}`,
} as const
