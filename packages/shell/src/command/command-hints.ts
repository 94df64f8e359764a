/** Hints a planner model can act on, shared by the syntax checks. */
export const COMMAND_HINTS = {
  list: 'Run one command per step: put each command in its own step instead of chaining with ; && || & or a newline.',
  pipeline:
    "Run one command per step and use the program's own arguments (e.g. grep PATTERN FILE) instead of a pipe.",
  redirection:
    'Drop the redirection: the tool returns the output. To write a file, use a file-writing tool.',
  heredoc:
    'Pass the text as a quoted argument or write it with a file tool; here-documents are not accepted.',
  substitution:
    'Run the inner command in its own step and pass its output as a literal argument; $( ), backticks, <( ) and $(( )) are not accepted.',
  expansion: `Write the value literally; variables, \${…}, $'…' and $"…" are not expanded. Put a literal $ inside single quotes.`,
  subshell: 'Run the command directly, without ( ) or { } around it.',
  function: 'Run the command directly; shell functions cannot be defined.',
  assignment:
    'Drop the NAME=value prefix (and export/declare); environment variables cannot be set from a command.',
  controlFlow:
    'Use one plain command per step; if/for/while/until/case/select, [[ ]], (( )) and ! are not accepted.',
  brace:
    "Write every argument out; quote braces that are literal (e.g. '@{u}'). Brace expansion is not performed.",
  glob: "List the files explicitly, or quote the pattern when the program matches it itself (find . -name '*.ts'): commands run without a shell, so nothing expands it.",
  tilde: 'Use a path relative to the workspace instead of ~.',
  comment: 'Remove the # comment: only the command itself is accepted.',
  parse:
    'Write one plain command with balanced quotes, e.g. git commit -m "message" — no shell syntax.',
} as const
