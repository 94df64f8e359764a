/** One answer the disk gave a check, and how to ask for it again. */
export interface DiskFact {
  readonly ask: () => boolean
  readonly answer: boolean
}

let consulted = 0
// The facts of the check being recorded, or undefined when none is.
let recording: DiskFact[] | undefined

/**
 * Notes that a command check looked at the disk (a nested repository, a repository's history)
 * and what it found: `ask` gives the answer again. The verdict is a function of the command and
 * these answers, so a checker may keep it only while every answer is the same.
 */
export function noteDiskConsulted(ask: () => boolean, answer: boolean): void {
  consulted += 1
  recording?.push({ ask, answer })
}

/** How often any check has looked at the disk so far; compare before and after one check. */
export function diskConsultations(): number {
  return consulted
}

/**
 * Runs `check` and returns its value with the disk answers it was given, in order (empty when
 * it did not look at the disk).
 */
export function recordDiskFacts<T>(check: () => T): { value: T; facts: readonly DiskFact[] } {
  const outer = recording
  const facts: DiskFact[] = []
  recording = facts
  try {
    return { value: check(), facts }
  } finally {
    recording = outer
  }
}

/** True when the disk gives every recorded answer again (asked without recording). */
export function factsHold(facts: readonly DiskFact[]): boolean {
  const outer = recording
  recording = undefined
  try {
    for (const fact of facts) if (fact.ask() !== fact.answer) return false
    return true
  } finally {
    recording = outer
  }
}
