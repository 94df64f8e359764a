/** The text of a `tools/call` result's first content block. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? []
  return content.map((block) => block.text ?? '').join('\n')
}
