import { dirname } from 'node:path'

/**
 * The folder the user ran the command from. A package script (`pnpm plan …`, `npm run plan …`)
 * runs in its package's folder, with the user's folder in `INIT_CWD`; that folder is used only
 * while the process still stands in the script's package folder, so a script that changed
 * folder on purpose (`cd sub && plan check …`) keeps its own.
 */
export function invocationDir(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const initCwd = env.INIT_CWD
  const packageJson = env.npm_package_json
  if (initCwd === undefined || initCwd === '' || packageJson === undefined) return cwd
  return dirname(packageJson) === cwd ? initCwd : cwd
}
