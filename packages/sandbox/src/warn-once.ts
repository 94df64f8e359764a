const warned = new Set<string>()

/** Emits a process warning with `code` the first time only, for the life of the process. */
export function warnOnce(code: string, message: string): void {
  if (warned.has(code)) return
  warned.add(code)
  process.emitWarning(message, { code })
}
