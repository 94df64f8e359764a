import { MemorySaver } from '@langchain/langgraph'
import type { GuardStore } from '@plan/core'

/**
 * A process's view of the shared checkpointer and store that keeps nothing written after
 * `now()`: what a process killed at that moment leaves behind.
 */
export function crashingWith(shared: MemorySaver, store: GuardStore) {
  let dead = false
  const checkpointer = new MemorySaver()
  checkpointer.storage = shared.storage
  checkpointer.writes = shared.writes
  const put = checkpointer.put.bind(checkpointer)
  const putWrites = checkpointer.putWrites.bind(checkpointer)
  checkpointer.put = async (config, checkpoint, metadata) =>
    dead ? config : put(config, checkpoint, metadata)
  checkpointer.putWrites = async (config, writes, taskId) =>
    dead ? undefined : putWrites(config, writes, taskId)
  const crashing: GuardStore = {
    load: (runId) => store.load(runId),
    save: async (runId, saved) => (dead ? undefined : store.save(runId, saved)),
    reserve: (reservations) => store.reserve(reservations),
  }
  return {
    checkpointer,
    store: crashing,
    now: () => {
      dead = true
    },
  }
}
