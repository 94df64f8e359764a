// No zod here: the main entry reads this list without loading the schemas.

/** Files that usually hold secrets: reading one counts as access to sensitive data. */
export const SENSITIVE_FILES: readonly string[] = [
  '**/.env',
  '**/.env.*',
  '**/*.pem',
  '**/*.key',
  '**/id_rsa*',
  '**/.npmrc',
  '**/secrets/**',
]
