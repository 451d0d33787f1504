/**
 * Withdrawing the calls of an MCP session: a request that waits is answered once cancelled (the
 * SDK leaves it unanswered), and, behind a load balancer, a `notifications/cancelled` that reaches
 * an instance other than the one running the call is passed on to it: each instance says in the
 * shared store which calls it runs, and tells the runner over the store's messages.
 *
 * @module
 */
import type { BridgeCore } from "../core/bridge.ts";
import {
  CALL_KIND,
  callKey,
  CANCEL_TOPIC,
  type CancelMessage,
  type McpSession,
} from "./session.ts";

/** A call of an MCP session, by JSON-RPC id, and why it is withdrawn (told to the handler). */
export interface WithdrawnCall {
  /** The JSON-RPC id of the request. */
  id: string | number;
  /** Why, when the client or the bridge said so. */
  reason?: string | undefined;
}

/**
 * Withdraws a request of `entry` that waits, as if the client had cancelled it (the handler's
 * signal withdraws the invocation), and answers it.
 */
export function withdrawCall(entry: McpSession, call: WithdrawnCall): void {
  const { id, reason } = call;
  entry.transport.onmessage?.({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, ...(reason === undefined ? {} : { reason }) },
  });
  answerCancelled(entry, id);
}

/** Answers a cancelled request of `entry` that still waits, which the SDK leaves unanswered. */
export function answerCancelled(entry: McpSession, id: string | number): void {
  if (!entry.pending.has(id)) return;
  entry.transport.send({
    jsonrpc: "2.0",
    id,
    error: { code: -32000, message: "The request was cancelled." },
  }).catch(() => {});
}

/** Options of {@linkcode CallRouter}. */
export interface CallRouterOptions {
  /** The MCP session held here with this id, if any. */
  find: (id: string) => McpSession | undefined;
  /** Called for errors that are not protocol errors (a store that cannot be reached). */
  onError?: ((error: unknown) => void) | undefined;
}

/**
 * Where each call of an MCP session runs, across the instances sharing a store: an instance
 * announces the calls it runs, and a cancel sent to another reaches it. Alone, it does nothing.
 */
export class CallRouter {
  readonly #core: BridgeCore;
  readonly #find: (id: string) => McpSession | undefined;
  readonly #onError: ((error: unknown) => void) | undefined;

  /** Listens for the cancels other instances send to this one. */
  constructor(core: BridgeCore, options: CallRouterOptions) {
    this.#core = core;
    this.#find = options.find;
    this.#onError = options.onError;
    if (core.share.shared) {
      core.share.listen(CANCEL_TOPIC, (message) => this.#cancelHere(message));
    }
  }

  /**
   * Behind a load balancer, says in the shared store that this instance runs these calls of
   * the MCP session, for as long as they run; returns what withdraws that. A store that cannot
   * be reached only costs the calls their cancellation from another instance.
   */
  async announce(entry: McpSession, calls: readonly (string | number)[]): Promise<() => void> {
    const share = this.#core.share;
    const id = entry.id;
    if (!share.shared || id === undefined || calls.length === 0) return () => {};
    const keys = calls.map((call) => callKey(id, call)).filter((key) => key !== undefined);
    const ttlMs = this.#core.sessions.idleMs;
    await Promise.all(
      keys.map((key) =>
        share.put(CALL_KIND, key, { instance: share.instance }, ttlMs)
          .catch((error) => this.#onError?.(error))
      ),
    );
    return () => {
      for (const key of keys) {
        share.del(CALL_KIND, key).catch((error) => this.#onError?.(error));
      }
    };
  }

  /** Tells the instance that runs `call` of the MCP session to cancel it. */
  async cancelElsewhere(entry: McpSession, call: WithdrawnCall): Promise<void> {
    const share = this.#core.share;
    const key = entry.id === undefined ? undefined : callKey(entry.id, call.id);
    if (!share.shared || key === undefined) return;
    try {
      const running = await share.get(CALL_KIND, key) as { instance?: unknown } | null;
      const instance = running?.instance;
      if (typeof instance !== "string" || instance === share.instance) return;
      const message: CancelMessage = {
        session: entry.id!,
        tokenHash: entry.session.tokenHash,
        requestId: call.id,
        reason: call.reason,
      };
      await share.tell(instance, CANCEL_TOPIC, message);
    } catch (error) {
      this.#onError?.(error);
    }
  }

  /** Cancels a call of an MCP session held here, as another instance was asked to. */
  #cancelHere(received: unknown): void {
    if (typeof received !== "object" || received === null) return;
    const message = received as Partial<CancelMessage>;
    const { requestId } = message;
    const entry = typeof message.session === "string" ? this.#find(message.session) : undefined;
    // Only the MCP session's own token could have asked it.
    if (!entry || entry.session.tokenHash !== message.tokenHash) return;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    entry.streamed.get(requestId)?.abort();
    const reason = typeof message.reason === "string" ? message.reason : undefined;
    if (entry.pending.has(requestId)) withdrawCall(entry, { id: requestId, reason });
  }
}
