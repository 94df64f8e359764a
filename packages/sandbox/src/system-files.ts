import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { posix } from 'node:path'

/** Host folders that hold programs and libraries, visible read-only to every command. */
export const SYSTEM_FOLDERS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
]

/**
 * The files and folders of the host's `/etc` a command sees (read-only, where they exist): the
 * dynamic linker's cache, Debian's program alternatives, time zone, TLS trust stores (not
 * `/etc/ssl/private`), MIME, protocol and service tables, the OS release, and the JDK's
 * configuration folders (`/etc/java-*`). Nothing else of `/etc` exists inside: no `passwd`,
 * `group`, `hosts`, `resolv.conf`, `gitconfig`, `npmrc`, `pip.conf` or `ssh`.
 */
export const SYSTEM_ETC: readonly string[] = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/pki/tls/certs',
  '/etc/pki/ca-trust',
  '/etc/crypto-policies',
  '/etc/mime.types',
  '/etc/protocols',
  '/etc/services',
  '/etc/os-release',
  '/etc/debian_version',
]

/** `/etc` folders matched by name (versioned names), visible like {@link SYSTEM_ETC}. */
const ETC_PATTERNS: readonly RegExp[] = [/^java-\d+(?:-openjdk)?$/]

/** {@link SYSTEM_ETC} and the host's `/etc` folders matching {@link ETC_PATTERNS}. */
export function systemEtc(): string[] {
  let names: string[] = []
  try {
    names = readdirSync('/etc')
  } catch {
    // No /etc: nothing to show.
  }
  const matched = names
    .filter((name) => ETC_PATTERNS.some((pattern) => pattern.test(name)))
    .map((name) => `/etc/${name}`)
  return [...SYSTEM_ETC, ...matched]
}

/**
 * Files the sandbox writes for `/etc` instead of the host's: a `passwd` and a `group` that name
 * only root, `nobody` and the agent's own user (home: the sandbox's HOME), `hosts` with
 * `localhost`, and an `nsswitch.conf` that reads those files.
 */
export function syntheticEtc(home: string): Record<string, string> {
  const uid = process.getuid?.() ?? 0
  const gid = process.getgid?.() ?? 0
  let name = 'agent'
  try {
    name = userInfo().username.replace(/[^A-Za-z0-9._-]/g, '') || name
  } catch {
    // No entry for this uid on the host: keep the default name.
  }
  const users = [`root:x:0:0:root:${uid === 0 ? home : '/root'}:/bin/sh`]
  const groups = ['root:x:0:']
  if (uid !== 0) users.push(`${name}:x:${uid}:${gid}::${home}:/bin/sh`)
  if (gid !== 0) groups.push(`${name}:x:${gid}:`)
  users.push('nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin')
  groups.push('nogroup:x:65534:')
  return {
    '/etc/passwd': `${users.join('\n')}\n`,
    '/etc/group': `${groups.join('\n')}\n`,
    '/etc/hosts': '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n',
    '/etc/nsswitch.conf': 'passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n',
  }
}

// Written once per process: the content depends only on the agent's user.
let written: Readonly<Record<string, string>> | undefined

/** Host paths of the {@link syntheticEtc} files, by the path they take inside. */
export function syntheticEtcFiles(home: string): Readonly<Record<string, string>> {
  if (written !== undefined) return written
  // Nothing secret in it, and bubblewrap may run as another user than the one that wrote it:
  // under /tmp, which every user can pass through, rather than a private TMPDIR.
  const base = existsSync('/tmp') ? '/tmp' : tmpdir()
  const folder = mkdtempSync(posix.join(base, 'plan-sandbox-etc-'))
  chmodSync(folder, 0o755)
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }))
  const files: Record<string, string> = {}
  for (const [inside, content] of Object.entries(syntheticEtc(home))) {
    const host = posix.join(folder, posix.basename(inside))
    writeFileSync(host, content, { mode: 0o644 })
    files[inside] = host
  }
  written = Object.freeze(files)
  return written
}
