/**
 * Rebuilding, on this instance, an MCP session another instance opened: behind a load balancer
 * the shared record is the truth, and a session this instance does not hold is opened again
 * from it (same id, a new server, its `initialize` replayed to a new transport).
 *
 * @module
 */
import type { Context } from "hono";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import type { AppEnv } from "../http/env.ts";
import { asShared } from "./replies.ts";
import type { McpRuntime } from "./runtime.ts";
import {
  type McpSession,
  REPLAY_HEADERS,
  SESSION_ID_REGEXP,
  SHARED_KIND,
  type SharedMcpSession,
} from "./session.ts";

/** What {@linkcode McpRebuilder} uses of the endpoint it serves. */
export interface RebuildHost {
  readonly core: BridgeCore;
  /** The MCP sessions held here, by id. */
  readonly byId: ReadonlyMap<string, McpSession>;
  /** Drops an MCP session held here. */
  drop(entry: McpSession, options: { forget: boolean }): Promise<void>;
  /** A new MCP session of `session`, not yet held. */
  entry(
    mcp: McpRuntime,
    c: Context<AppEnv>,
    session: Session,
    options: { id: () => string; onOpened: (entry: McpSession) => void },
  ): McpSession;
  /** Holds a rebuilt MCP session. */
  add(entry: McpSession): void;
  onError?: ((error: unknown) => void) | undefined;
}

/** Finds MCP sessions by id, across instances: held here, or rebuilt from the shared record. */
export class McpRebuilder {
  readonly #host: RebuildHost;
  /** Rebuilds under way of MCP sessions opened on other instances, by id. */
  readonly #rebuilding = new Map<string, Promise<McpSession | undefined>>();

  constructor(host: RebuildHost) {
    this.#host = host;
  }

  /**
   * The MCP session `id` of `session`, or undefined when there is none (or it is another
   * token's). Alone, only this instance's sessions exist. Behind a load balancer, the shared
   * record is the truth: a session it no longer has is dropped here too, and one this instance
   * does not hold is rebuilt from it.
   *
   * @throws {AimError} 503 `store_unavailable` when the shared store cannot be reached.
   */
  async find(
    mcp: McpRuntime,
    c: Context<AppEnv>,
    id: string,
    session: Session,
  ): Promise<McpSession | undefined> {
    let entry = this.#host.byId.get(id);
    const share = this.#host.core.share;
    if (!share.shared) return entry?.session === session ? entry : undefined;
    if (entry && entry.session !== session) {
      // Another token's session stays as it is: that token's request cannot touch it.
      if (entry.session.tokenHash !== session.tokenHash) return undefined;
      // This instance's copy of the aim session was replaced (the old one was dropped while
      // idle here): the MCP session is rebuilt on the new one.
      await this.#host.drop(entry, { forget: false });
      entry = undefined;
    }
    if (!SESSION_ID_REGEXP.test(id)) return undefined;
    const shared = asShared(mcp, await share.get(SHARED_KIND, id));
    if (!shared || shared.tokenHash !== session.tokenHash) {
      // Closed on another instance, or expired: this instance's copy goes too.
      if (entry) await this.#host.drop(entry, { forget: false });
      return undefined;
    }
    // Renewed now and then while it is used, by whichever instance serves it.
    const ttlMs = this.#host.core.sessions.idleMs;
    const now = Date.now();
    if (now - shared.touchedAt > ttlMs / 4) {
      share.put(SHARED_KIND, id, { ...shared, touchedAt: now }, ttlMs)
        .catch((error) => this.#host.onError?.(error));
    }
    if (entry) return entry;
    // Requests that arrive together for a session not held here share one rebuild.
    let rebuilt = this.#rebuilding.get(id);
    if (!rebuilt) {
      rebuilt = this.#rebuild(mcp, c, id, session, shared).finally(() =>
        this.#rebuilding.delete(id)
      );
      this.#rebuilding.set(id, rebuilt);
    }
    entry = await rebuilt;
    return entry?.session === session ? entry : undefined;
  }

  /**
   * Rebuilds here the MCP session `id` opened on another instance: a new server on a transport
   * that gives the same id, brought to the initialized state through its public API by
   * replaying the `initialize` request and the `notifications/initialized` notification
   * (their answers went to the client long ago, and are dropped).
   */
  async #rebuild(
    mcp: McpRuntime,
    c: Context<AppEnv>,
    id: string,
    session: Session,
    shared: SharedMcpSession,
  ): Promise<McpSession | undefined> {
    // Held only once rebuilt: until then, no request can reach it half initialized.
    const entry = this.#host.entry(mcp, c, session, { id: () => id, onOpened: () => {} });
    const { transport, server } = entry;
    try {
      await server.connect(transport);
      const url = c.req.url;
      const opened = await transport.handleRequest(
        new Request(url, { method: "POST", headers: REPLAY_HEADERS }),
        { parsedBody: shared.initialize },
      );
      const answer = await opened.json().catch(() => undefined) as { result?: unknown };
      if (opened.status !== 200 || answer?.result === undefined || entry.id !== id) {
        throw new Error(
          `The MCP session could not be rebuilt: initialize was answered ${opened.status} ${
            JSON.stringify(answer)
          }`,
        );
      }
      const initialized = await transport.handleRequest(
        new Request(url, {
          method: "POST",
          headers: { ...REPLAY_HEADERS, "Mcp-Session-Id": id },
        }),
        { parsedBody: { jsonrpc: "2.0", method: "notifications/initialized" } },
      );
      await initialized.body?.cancel();
      if (initialized.status !== 202) {
        throw new Error(
          `The MCP session could not be rebuilt: notifications/initialized was answered ${initialized.status}`,
        );
      }
    } catch (error) {
      this.#host.onError?.(error);
      await server.close().catch(() => {});
      return undefined;
    }
    // Another rebuild of it may have finished first (the aim session's copy was replaced).
    const held = this.#host.byId.get(id);
    if (held) {
      await server.close().catch(() => {});
      return held;
    }
    this.#host.add(entry);
    return entry;
  }
}
