let consulted = 0

/**
 * Notes that a command check looked at the disk (a nested repository, a repository's history):
 * its verdict may change when the disk does, so the checker must not keep it in its cache.
 */
export function noteDiskConsulted(): void {
  consulted += 1
}

/** How often any check has looked at the disk so far; compare before and after one check. */
export function diskConsultations(): number {
  return consulted
}
