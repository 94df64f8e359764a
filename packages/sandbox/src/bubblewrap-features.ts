import { spawnSync } from 'node:child_process'

/** What the installed bubblewrap can do beyond its oldest supported release. */
export interface BubblewrapFeatures {
  /** `--disable-userns` (bubblewrap 0.8 and later): no new user namespace inside the sandbox. */
  readonly disableUserns: boolean
  /** `--size` (bubblewrap 0.7 and later): the size of a tmpfs. */
  readonly tmpfsSize: boolean
  /**
   * `--json-status-fd`: reports on its own descriptor the exit code of a command that started,
   * and nothing when the sandbox failed before it.
   */
  readonly jsonStatus: boolean
}

const known = new Map<string, BubblewrapFeatures>()

/**
 * The features of the bubblewrap at `bwrap`, read once per path from its `--help` (a few
 * milliseconds, the first time only). A bubblewrap that cannot say has none.
 */
export function bubblewrapFeatures(bwrap: string): BubblewrapFeatures {
  const cached = known.get(bwrap)
  if (cached !== undefined) return cached
  const help = spawnSync(bwrap, ['--help'], { encoding: 'utf8', env: {}, timeout: 10_000 })
  const text = `${help.stdout ?? ''}${help.stderr ?? ''}`
  const features = Object.freeze({
    disableUserns: /^\s*--disable-userns\b/m.test(text),
    tmpfsSize: /^\s*--size\b/m.test(text),
    jsonStatus: /^\s*--json-status-fd\b/m.test(text),
  })
  known.set(bwrap, features)
  return features
}
