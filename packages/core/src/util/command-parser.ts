import type { PlanCompiler } from '../types/plan-compiler.js'

/** A command's argv as the command policy reads it; undefined for one it refuses. */
export function commandParser(compiler: Pick<PlanCompiler, 'checkCommand'>) {
  return (command: string): readonly string[] | undefined => {
    const checked = compiler.checkCommand(command)
    return checked.allowed ? checked.argv : undefined
  }
}
