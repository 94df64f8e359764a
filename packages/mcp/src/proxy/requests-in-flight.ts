import type { RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { AllowedMcpCall } from '../guard/create-mcp-call-guard.js'

/** How an allowed guarded request reports its answer to the guard. */
export type GuardedAnswer = Pick<AllowedMcpCall, 'finish' | 'fail'>

/**
 * A client request the router has taken and the server has not answered: sent on as it is
 * (`tools/list` answers filtered), being authorized (`cancelled` once the client cancelled it),
 * guarded and sent, or guarded, sent and cancelled (its answer, already recorded, is dropped).
 */
export type InFlight =
  | { readonly kind: 'forwarded' | 'list' }
  | { readonly kind: 'authorizing'; cancelled: boolean }
  | { readonly kind: 'guarded' | 'cancelled'; readonly answer: GuardedAnswer }

/**
 * The client's requests in flight, by id as JSON-RPC compares ids: the number 7 and the string
 * "7" are two ids (as the SDK's server side keys them, and as a `Map` does).
 */
export class RequestsInFlight {
  private readonly requests = new Map<RequestId, InFlight>()

  get(id: RequestId): InFlight | undefined {
    return this.requests.get(id)
  }

  has(id: RequestId): boolean {
    return this.requests.has(id)
  }

  set(id: RequestId, request: InFlight): void {
    this.requests.set(id, request)
  }

  delete(id: RequestId): void {
    this.requests.delete(id)
  }

  /** Takes out the requests the server will never answer now, leaving those being authorized. */
  takeSent(): InFlight[] {
    const sent: InFlight[] = []
    for (const [id, request] of this.requests) {
      if (request.kind === 'authorizing') continue
      sent.push(request)
      this.requests.delete(id)
    }
    return sent
  }
}
