/**
 * The tab channel options every session of a store shares: the store's limits and hooks (a
 * heartbeat renews the session, a change gives it a new version) and, with a shared store, the
 * lease taken, renewed and let go there, so that one tab of all the instances' holds it.
 *
 * @module
 */
import type { SessionShare } from "../share/share.ts";
import { DEFAULTS } from "./limits.ts";
import type { Session } from "./session.ts";
import type { SessionStoreOptions } from "./session_store_options.ts";
import type { TabChannelOptions } from "./tab_connection.ts";

/** Options of {@linkcode sessionChannels}: the store's, and what it does when told. */
export interface SessionChannelsOptions {
  /** The store's options: the channels' limits, and `onGrant`. */
  store: SessionStoreOptions;
  /** Where the sessions are shared; the lease is this process's alone unless it is shared. */
  share: SessionShare;
  /** The tab holding the lease renewed it: the session is in use. */
  onHeartbeat: (session: Session) => void;
  /** The tabs here that do not hold the lease changed in number. */
  onGuests: (session: Session) => void;
  /** The shared store did not renew the lease: this instance may no longer hold it. */
  onLeaseLost: (session: Session) => Promise<void>;
  /** A failure of the shared store that no request waits on. */
  onError: (error: unknown) => void;
}

/** The options of every tab channel of a store's sessions, with hooks that find the session. */
export function sessionChannels(options: SessionChannelsOptions): TabChannelOptions<Session> {
  const { store, share } = options;
  const leaseMs = store.leaseMs ?? DEFAULTS.leaseMs;
  return {
    ...store,
    onHeartbeat: (owner) => options.onHeartbeat(owner),
    onChange: (owner) => owner.changed(),
    onGrant: (owner) => store.onGrant?.(owner),
    onGuests: (owner) => options.onGuests(owner),
    ...(share.shared
      ? {
        // The lease is the shared one: a tab gets it only when no live instance holds it.
        acquire: (owner: Session) => share.acquire(owner.tokenHash, leaseMs),
        renew: (owner: Session) => {
          share.renew(owner.tokenHash, leaseMs).then(
            (held) => held ? undefined : options.onLeaseLost(owner),
            options.onError,
          );
        },
        release: (owner: Session) => {
          share.release(owner.tokenHash).then(
            () => share.signal(owner.id, { type: "released" }),
            options.onError,
          );
        },
      }
      : {}),
  };
}
