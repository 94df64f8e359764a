import type { PlanCompiler } from '../types/plan-compiler.js'

/** A command's argv as the command policy reads it; undefined for one it refuses. */
export function commandArgv(
  compiler: Pick<PlanCompiler, 'checkCommand'>,
  command: string,
): readonly string[] | undefined {
  const checked = compiler.checkCommand(command)
  return checked.allowed ? checked.argv : undefined
}

/** {@link commandArgv} as a function of the command alone. */
export function commandParser(compiler: Pick<PlanCompiler, 'checkCommand'>) {
  return (command: string) => commandArgv(compiler, command)
}
