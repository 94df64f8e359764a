import { createHash } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
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

// Found or written once per process: the content depends only on the agent's user.
let written: Readonly<Record<string, string>> | undefined

/** Whether `path` is ours alone: owned by this process's user, writable by no one else. */
function ownedAlone(path: string, kind: 'file' | 'folder'): boolean {
  try {
    const stats = lstatSync(path)
    const right = kind === 'file' ? stats.isFile() : stats.isDirectory()
    return right && stats.uid === (process.getuid?.() ?? stats.uid) && (stats.mode & 0o022) === 0
  } catch {
    return false
  }
}

/** Whether `folder` holds exactly `contents` (by file name), in files only this user can change. */
function holds(folder: string, contents: Readonly<Record<string, string>>): boolean {
  if (!ownedAlone(folder, 'folder')) return false
  return Object.entries(contents).every(([name, content]) => {
    const path = posix.join(folder, name)
    return ownedAlone(path, 'file') && readFileSync(path, 'utf8') === content
  })
}

/**
 * Host paths of the {@link syntheticEtc} files, by the path they take inside: one folder per
 * content under `/tmp` (every user can pass through it, and bubblewrap may run as another user
 * than the one that wrote it), shared by every process of the user, used only when its files
 * are this user's alone and hold what they should; else written afresh.
 */
export function syntheticEtcFiles(home: string): Readonly<Record<string, string>> {
  if (written !== undefined) return written
  const contents: Record<string, string> = {}
  for (const [inside, content] of Object.entries(syntheticEtc(home)))
    contents[posix.basename(inside)] = content
  const base = existsSync('/tmp') ? '/tmp' : tmpdir()
  const digest = createHash('sha256').update(JSON.stringify(contents)).digest('hex').slice(0, 16)
  const shared = posix.join(base, `plan-sandbox-etc-${process.getuid?.() ?? 0}-${digest}`)
  let folder = shared
  if (!holds(shared, contents)) {
    folder = mkdtempSync(posix.join(base, 'plan-sandbox-etc-'))
    for (const [name, content] of Object.entries(contents))
      writeFileSync(posix.join(folder, name), content, { mode: 0o644 })
    chmodSync(folder, 0o755)
    try {
      renameSync(folder, shared)
      folder = shared
    } catch {
      // Another process made it first, or a stranger holds the name: keep our own.
      if (holds(shared, contents)) {
        rmSync(folder, { recursive: true, force: true })
        folder = shared
      }
    }
  }
  const files: Record<string, string> = {}
  for (const inside of Object.keys(syntheticEtc(home)))
    files[inside] = posix.join(folder, posix.basename(inside))
  written = Object.freeze(files)
  return written
}
