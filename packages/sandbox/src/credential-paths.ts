import { posix } from 'node:path'

/** Files and folders under a home folder where tools keep credentials. */
export const HOME_CREDENTIALS: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.docker',
  '.kube',
  '.gnupg',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.git-credentials',
  '.config/git/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
  '.password-store',
  '.local/share/keyrings',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  '.boto',
  '.s3cfg',
  '.config/rclone',
  '.config/op',
  '.config/doctl',
  '.config/heroku',
  '.netlify',
  '.vercel',
  '.config/vercel',
  '.fly',
  '.terraformrc',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.composer/auth.json',
  '.config/composer/auth.json',
  '.gem/credentials',
  '.local/share/gem/credentials',
  '.config/pip/pip.conf',
  '.pip/pip.conf',
  '.config/pypoetry/auth.toml',
  '.claude.json',
  '.claude/.credentials.json',
  '.codex/auth.json',
  '.config/github-copilot',
  '.gemini',
  '.config/gemini',
  '.aider.conf.yml',
  '.config/openai',
  '.huggingface',
  '.cache/huggingface/token',
  '.kaggle',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.psql_history',
  '.mysql_history',
  '.node_repl_history',
]

/** System files that hold secrets and are readable by root. */
export const SYSTEM_CREDENTIALS: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
]

/** The credential paths of the host, for a given home folder. */
export function credentialPaths(home: string | undefined): string[] {
  const inHome =
    home === undefined || !posix.isAbsolute(home)
      ? []
      : HOME_CREDENTIALS.map((entry) => posix.join(home, entry))
  return [...inHome, ...SYSTEM_CREDENTIALS]
}
