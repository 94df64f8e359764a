import type { GuardStore } from '@plan/core'

/**
 * `store` with its writes applied late and in reverse: the writes issued in one turn of the
 * event loop land last first, as concurrent queries on a pool of connections may.
 */
export function reversingStore(store: GuardStore): GuardStore {
  let queued: (() => Promise<void>)[] = []
  const flush = async () => {
    const writes = queued.reverse()
    queued = []
    for (const write of writes) await write()
  }
  function later<T>(write: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (queued.length === 0) setImmediate(() => void flush())
      queued.push(() => write().then(resolve, reject))
    })
  }
  const saveIf = store.saveIfRevision?.bind(store)
  return {
    load: (runId) => store.load(runId),
    reserve: (reservations) => store.reserve(reservations),
    save: (runId, saved) => later(() => store.save(runId, saved)),
    ...(saveIf === undefined
      ? {}
      : {
          saveIfRevision: (runId, saved, expected) => later(() => saveIf(runId, saved, expected)),
        }),
  }
}
