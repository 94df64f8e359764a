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
  | { readonly kind: 'forwarded' | 'list' | 'prompts' }
  /** The proxy's own `tools/list` after `list_changed`: its answer updates the pins' record only. */
  | { readonly kind: 'relist'; readonly pages: number }
  | { readonly kind: 'authorizing'; cancelled: boolean }
  | { readonly kind: 'guarded' | 'cancelled'; readonly answer: GuardedAnswer }

/**
 * The client's requests in flight, by id as JSON-RPC compares ids: the number 7 and the string
 * "7" are two ids (as the SDK's server side keys them, and as a `Map` does). A request sent on
 * with a progress token is found by it, until it leaves or changes state without one.
 */
export class RequestsInFlight {
  private readonly requests = new Map<RequestId, InFlight>()
  private readonly byToken = new Map<RequestId, RequestId>()
  private readonly tokenOf = new Map<RequestId, RequestId>()

  get(id: RequestId): InFlight | undefined {
    return this.requests.get(id)
  }

  has(id: RequestId): boolean {
    return this.requests.has(id)
  }

  /** Records `id` as `request`, found by its progress `token` when one is given. */
  set(id: RequestId, request: InFlight, token?: RequestId): void {
    this.requests.set(id, request)
    this.dropToken(id)
    if (token === undefined) return
    this.byToken.set(token, id)
    this.tokenOf.set(id, token)
  }

  delete(id: RequestId): void {
    this.requests.delete(id)
    this.dropToken(id)
  }

  /** The request in flight that progress `token` belongs to. */
  requestOf(token: RequestId): RequestId | undefined {
    return this.byToken.get(token)
  }

  /** Takes out the requests the server will never answer now, leaving those being authorized. */
  takeSent(): InFlight[] {
    const sent: InFlight[] = []
    for (const [id, request] of this.requests) {
      if (request.kind === 'authorizing') continue
      sent.push(request)
      this.delete(id)
    }
    return sent
  }

  private dropToken(id: RequestId): void {
    const token = this.tokenOf.get(id)
    if (token === undefined) return
    this.tokenOf.delete(id)
    // A later request may have taken the same token over: it keeps it.
    if (this.byToken.get(token) === id) this.byToken.delete(token)
  }
}
