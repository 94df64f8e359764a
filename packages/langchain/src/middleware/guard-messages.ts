import { lastWordText, runEndedText } from '@plan/core/adapter'

/** The text shown when the guard ends the run (core's words, the same in every adapter). */
export const endText = runEndedText

/** What the model reads on its last call after the guard stopped the run. */
export { lastWordText }
