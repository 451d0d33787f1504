/**
 * The MCP sessions one instance holds, within its bounds: per aim session (one token), per
 * client address and in all. Past a bound, a new MCP session takes the place of a *free* one (no
 * request of it under way, and quiet or the same client's); with none free it is refused with
 * 429. Per aim session with clients, a follower of its changes tells them when its tools change,
 * and closes them once it ends.
 *
 * @module
 */
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { withdrawCall } from "./calls.ts";
import { full, sameActions } from "./replies.ts";
import { FOLLOW_MS, type McpSession, type SessionGroup, SHARED_KIND } from "./session.ts";

/** The bounds of {@linkcode McpSessions}: see `McpEndpointOptions`, which documents them. */
export interface McpSessionBounds {
  /** MCP sessions one aim session (one token) may hold. */
  maxPerSession: number;
  /** MCP sessions opened from one client address that may be held. */
  maxPerClient: number;
  /** MCP sessions held in all. */
  maxSessions: number;
  /** How long an MCP session must be unused before another client's may take its place, ms. */
  quietMs: number;
}

/** Options of {@linkcode McpSessions}. */
export interface McpSessionsOptions extends McpSessionBounds {
  /** Called for errors that are not protocol errors (bugs, a store that cannot be reached). */
  onError?: ((error: unknown) => void) | undefined;
}

/** The MCP sessions this instance holds, and the places taken by `initialize`s under way. */
export class McpSessions {
  /** The MCP sessions held, by id, in the order of last use. */
  readonly byId: Map<string, McpSession> = new Map();
  readonly #core: BridgeCore;
  readonly #bounds: McpSessionBounds;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #groups = new Map<Session, SessionGroup>();
  /** MCP sessions held, and places taken by `initialize`s under way, by opening client. */
  readonly #perClient = new Map<string, number>();
  /** Places taken by `initialize`s under way: in all, and by aim session. */
  #opening = 0;
  readonly #openingFor = new Map<Session, number>();

  /** No session held yet. */
  constructor(core: BridgeCore, options: McpSessionsOptions) {
    this.#core = core;
    const { onError, ...bounds } = options;
    this.#bounds = bounds;
    this.#onError = onError;
  }

  /** MCP sessions held now. */
  get size(): number {
    return this.byId.size;
  }

  /** Holds an MCP session opened (or rebuilt) here, and follows its aim session. */
  add(entry: McpSession): void {
    const { session } = entry;
    let group = this.#groups.get(session);
    if (!group) {
      group = {
        members: new Set(),
        actions: this.#core.sessionActions(session),
        version: session.version,
        stop: new AbortController(),
      };
      this.#groups.set(session, group);
      void this.#follow(session, group).catch((error) => this.#onError?.(error));
    }
    group.members.add(entry);
    this.byId.set(entry.id!, entry);
    this.#perClient.set(entry.openedBy, (this.#perClient.get(entry.openedBy) ?? 0) + 1);
    // A session rebuilt here (opened on another instance, which admitted it) past this
    // instance's bound makes room by letting a free one go here only: the store keeps it, and
    // its next request rebuilds it wherever it lands.
    if (this.byId.size > this.#bounds.maxSessions) {
      const free = this.#free(this.byId.values(), { except: entry });
      if (free) void this.drop(free, { forget: false });
    }
  }

  /** Marks an MCP session used now: the maps keep their sessions in the order of last use. */
  touch(entry: McpSession): void {
    entry.usedAt = Date.now();
    if (entry.id === undefined || this.byId.get(entry.id) !== entry) return;
    this.byId.delete(entry.id);
    this.byId.set(entry.id, entry);
    const members = this.#groups.get(entry.session)?.members;
    if (members?.delete(entry)) members.add(entry);
  }

  /**
   * Takes the place of one more MCP session of `session` opened by `client` within the bounds
   * (per aim session, per client address, in all), closing free sessions to make room; undefined
   * once the place is taken (give it back with {@linkcode McpSessions.release}), else the 429 to
   * answer. A session closed for room is closed on every instance.
   */
  async admit(session: Session, client: string): Promise<Response | undefined> {
    const { maxPerSession, maxPerClient, maxSessions } = this.#bounds;
    // Each turn closes one session, then checks again: the check and the place taken happen
    // in one step, so that initializes sent together cannot all pass the bounds.
    while (true) {
      const group = this.#groups.get(session);
      const ofSession = (group?.members.size ?? 0) + (this.#openingFor.get(session) ?? 0);
      let free: McpSession | undefined;
      if (ofSession >= maxPerSession) {
        // The token's own sessions: one its client used last, or a quiet one, goes.
        free = group && this.#free(group.members, { client });
        if (!free) {
          return full(
            `This session token holds ${maxPerSession} MCP sessions, all in use; close one (DELETE) or retry later.`,
          );
        }
      } else if ((this.#perClient.get(client) ?? 0) >= maxPerClient) {
        // Only a quiet one: the address may be shared (a NAT) by people who use theirs.
        free = this.#free(this.byId.values(), { where: (entry) => entry.openedBy === client });
        if (!free) {
          return full(
            `This client holds ${maxPerClient} MCP sessions, all in use; close some (DELETE) or retry later.`,
          );
        }
      } else if (this.byId.size + this.#opening >= maxSessions) {
        free = this.#free(this.byId.values(), {});
        if (!free) {
          return full("The bridge holds all the MCP sessions it may, all in use; retry later.");
        }
      } else {
        this.#take(session, client, +1);
        return undefined;
      }
      await this.drop(free, { forget: true });
    }
  }

  /** Gives back the place {@linkcode McpSessions.admit} took for an `initialize`. */
  release(session: Session, client: string): void {
    this.#take(session, client, -1);
  }

  /**
   * Closes an MCP session here; with `forget`, also in the shared store (if any), so that no
   * instance serves it any more: it was deleted, closed for room, or its aim session ended.
   */
  async drop(entry: McpSession, options: { forget: boolean }): Promise<void> {
    if (entry.id === undefined || this.byId.get(entry.id) !== entry) return;
    this.byId.delete(entry.id);
    const held = (this.#perClient.get(entry.openedBy) ?? 1) - 1;
    if (held > 0) this.#perClient.set(entry.openedBy, held);
    else this.#perClient.delete(entry.openedBy);
    const group = this.#groups.get(entry.session);
    group?.members.delete(entry);
    if (group?.members.size === 0) {
      this.#groups.delete(entry.session);
      group.stop.abort();
    }
    // Requests still waiting are answered while the transport can: closed, it never would.
    for (const id of [...entry.pending]) {
      withdrawCall(entry, { id, reason: "The MCP session was closed." });
    }
    const share = this.#core.share;
    await Promise.all([
      // Closing the server closes its transport: the client's streams end.
      entry.server.close().catch((error) => this.#onError?.(error)),
      options.forget && share.shared
        ? share.del(SHARED_KIND, entry.id).catch((error) => this.#onError?.(error))
        : undefined,
    ]);
  }

  /** Takes (`+1`) or gives back (`-1`) the place of an `initialize` under way. */
  #take(session: Session, client: string, delta: 1 | -1): void {
    this.#opening += delta;
    const forSession = (this.#openingFor.get(session) ?? 0) + delta;
    if (forSession > 0) this.#openingFor.set(session, forSession);
    else this.#openingFor.delete(session);
    const forClient = (this.#perClient.get(client) ?? 0) + delta;
    if (forClient > 0) this.#perClient.set(client, forClient);
    else this.#perClient.delete(client);
  }

  /**
   * The first MCP session of `entries` (in the order of last use) free to close for room: no
   * request under way, and either last used by `client` or unused (no GET stream) for `quietMs`.
   */
  #free(
    entries: Iterable<McpSession>,
    options: { client?: string; where?: (entry: McpSession) => boolean; except?: McpSession },
  ): McpSession | undefined {
    const quietSince = Date.now() - this.#bounds.quietMs;
    for (const entry of entries) {
      if (entry === options.except || (options.where && !options.where(entry))) continue;
      // A call under way is never withdrawn for room.
      if (entry.pending.size > 0 || entry.streamed.size > 0) continue;
      // The client's own session goes; another's only once it is quiet (a GET stream open is
      // a client listening now).
      if (entry.client === options.client) return entry;
      if (!entry.listening && entry.usedAt <= quietSince) return entry;
    }
    return undefined;
  }

  /**
   * Follows one session's changes while it has MCP clients: on each new version, compares its
   * actions with what the clients last listed and tells them when they differ; closes the MCP
   * sessions once the aim session ends. Woken by the change itself, not by polling.
   */
  async #follow(session: Session, group: SessionGroup): Promise<void> {
    const { signal } = group.stop;
    while (!signal.aborted) {
      await session.waitForChange(group.version, FOLLOW_MS, signal);
      if (signal.aborted) return;
      if (session.ended) {
        // After the task that ended it: a `disconnect` called over MCP gets its answer first.
        setTimeout(() => {
          for (const entry of [...group.members]) void this.drop(entry, { forget: true });
        }, 0);
        return;
      }
      // Nothing the session shows changed: its actions did not either.
      if (session.version === group.version) continue;
      group.version = session.version;
      const actions = this.#core.sessionActions(session);
      if (sameActions(actions, group.actions)) continue;
      group.actions = actions;
      for (const entry of group.members) {
        entry.server.sendToolListChanged().catch((error) => this.#onError?.(error));
      }
    }
  }
}
