/**
 * SessionIndex: the sessions a store holds, by the hash of each of their secrets (the agent's
 * token, the tab credential, the tab key), and the sessions recently found by a token itself,
 * so that an agent's next request does not hash its token again.
 *
 * @module
 */
import { BoundedMap } from "../utils/bounded_map.ts";
import type { Session } from "./session.ts";
import { hashToken, newToken } from "./tokens.ts";

/** How many agents' tokens an index remembers the session of. */
const KNOWN_TOKENS = 4096;

/**
 * Gives `session` a new tab credential and tab key (it keeps their hashes, and the key itself
 * for the tab that holds the lease); returns the credential, which is not kept.
 */
export function newSecrets(session: Session): string {
  const credential = newToken();
  session.credentialHash = hashToken(credential);
  session.tabKey = newToken();
  session.tabKeyHash = hashToken(session.tabKey);
  return credential;
}

/** The sessions of a store, found by the hash of a secret. */
export class SessionIndex {
  readonly #byHash = new Map<string, Session>();
  /**
   * Token to session (no shared store). The tokens stay in this process's memory, as the
   * requests carrying them do; nothing is written.
   */
  readonly #byToken = new BoundedMap<string, Session>(KNOWN_TOKENS);
  readonly #byCredential = new Map<string, Session>();
  readonly #byTabKey = new Map<string, Session>();

  /** Sessions indexed now. */
  get size(): number {
    return this.#byHash.size;
  }

  /** The sessions indexed now. */
  sessions(): IterableIterator<Session> {
    return this.#byHash.values();
  }

  /** The session of a token hash. */
  get(tokenHash: string): Session | undefined {
    return this.#byHash.get(tokenHash);
  }

  /** The session of a tab credential's hash. */
  byCredential(hash: string): Session | undefined {
    return this.#byCredential.get(hash);
  }

  /** The session of a tab key's hash. */
  byTabKey(hash: string): Session | undefined {
    return this.#byTabKey.get(hash);
  }

  /** Whether a session indexed has a secret (token, tab credential, tab key) of `hash`. */
  holds(hash: string): boolean {
    return this.#byHash.has(hash) || this.#byCredential.has(hash) || this.#byTabKey.has(hash);
  }

  /** Indexes `session` under its three hashes. */
  add(session: Session): void {
    this.#byHash.set(session.tokenHash, session);
    this.#byCredential.set(session.credentialHash, session);
    this.#byTabKey.set(session.tabKeyHash, session);
  }

  /** Drops `session` from the index: each of its hashes that still names it. */
  drop(session: Session): void {
    if (this.#byHash.get(session.tokenHash) === session) this.#byHash.delete(session.tokenHash);
    if (this.#byCredential.get(session.credentialHash) === session) {
      this.#byCredential.delete(session.credentialHash);
    }
    if (this.#byTabKey.get(session.tabKeyHash) === session) {
      this.#byTabKey.delete(session.tabKeyHash);
    }
  }

  /** Forgets the hash of `session`'s tab credential, before it changes. */
  forgetCredential(session: Session): void {
    this.#byCredential.delete(session.credentialHash);
  }

  /** Indexes `session` under the hash of its tab credential now. */
  indexCredential(session: Session): void {
    this.#byCredential.set(session.credentialHash, session);
  }

  /** Forgets the hash of `session`'s tab key, before it changes. */
  forgetTabKey(session: Session): void {
    this.#byTabKey.delete(session.tabKeyHash);
  }

  /** Indexes `session` under the hash of its tab key now. */
  indexTabKey(session: Session): void {
    this.#byTabKey.set(session.tabKeyHash, session);
  }

  /**
   * The session `token` was last found to be, while the index still holds it under its hash;
   * undefined when none was, or it is no longer held (the token is then forgotten).
   */
  knownToken(token: string): Session | undefined {
    const known = this.#byToken.get(token);
    if (known === undefined) return undefined;
    // Still this token's session: an ended one left the index, and a resumed one replaced it.
    if (this.#byHash.get(known.tokenHash) === known) return known;
    // Not kept past its next use: an ended session holds nothing in memory for long.
    this.#byToken.delete(token);
    return undefined;
  }

  /** Remembers that `token` is `session`'s, for {@linkcode SessionIndex.knownToken}. */
  rememberToken(token: string, session: Session): void {
    this.#byToken.set(token, session);
  }
}
