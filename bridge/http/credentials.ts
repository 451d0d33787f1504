/**
 * aim's credentials recognised by what they are, not by their shape: a value in a request's
 * `Authorization` or `Sec-WebSocket-Protocol` is aim's when it carries a secret aim issued (a
 * session's token, tab credential or tab key), found by its hash among the sessions this
 * process holds and, with several bridges on a shared store, in the store (a session another
 * instance holds). Anything else, an app's own token of the same 43 characters included, is
 * not aim's.
 *
 * Where a secret can be: every run of exactly 43 base64url characters in the value (the length
 * of every secret aim makes), whatever surrounds it (`Bearer`, in any case, with any spaces, a
 * comma, quotes, `aim-credential.`). A request carrying none costs nothing but a look at two
 * headers; a candidate seen before costs a lookup in memory; a new one a hash, and in a shared
 * store one round trip. The verdicts are remembered by value, in memory only, as the session
 * store keeps the tokens an agent reads manifests with: never written, logged or shared.
 *
 * @module
 */
import { hashToken } from "../core/tokens.ts";
import type { SessionStore } from "../core/sessions.ts";
import { BoundedMap } from "../utils/bounded_map.ts";

/** The request headers aim reads its credentials in: the token, and the tab credential. */
export const CREDENTIAL_HEADERS: readonly string[] = ["authorization", "sec-websocket-protocol"];

/** The length of every secret aim makes: 256 bits in base64url. */
const SECRET_LENGTH = 43;

/** Runs of base64url characters. */
const RUN = /[A-Za-z0-9_-]+/g;

/**
 * Candidates looked up per request at most; past it, every candidate counts as aim's (fail
 * closed), so that a request cannot make the bridge hash or ask the store without bound.
 */
export const MAX_CANDIDATES = 16;

/** Every place an aim secret could be in a header value: its runs of 43 base64url characters. */
export function secretCandidates(value: string): string[] {
  if (value.length < SECRET_LENGTH) return [];
  const out: string[] = [];
  for (const [run] of value.matchAll(RUN)) if (run.length === SECRET_LENGTH) out.push(run);
  return out;
}

/** The secrets of {@linkcode secretCandidates} in `value` that are among `secrets`. */
export function carriesSecret(value: string, secrets: ReadonlySet<string>): boolean {
  return secretCandidates(value).some((candidate) => secrets.has(candidate));
}

/** Options of {@linkcode AimCredentials}. */
export interface AimCredentialsOptions {
  /**
   * Verdicts remembered (the values, in memory only).
   *
   * @default {4096}
   */
  remembered?: number | undefined;
}

/** The defaults of {@linkcode AimCredentialsOptions}, as its `@default` tags say. */
export const AIM_CREDENTIALS_DEFAULTS: { readonly remembered: number } = { remembered: 4096 };

/** What {@linkcode AimCredentials} looks secrets up in. */
export type IssuedSecrets = Pick<SessionStore, "holds" | "share">;

/** Tells aim's secrets from anything else a request carries, by looking them up. */
export class AimCredentials {
  readonly #sessions: IssuedSecrets;
  /**
   * A value to whether aim issued it (by value: a hash costs more than the rest of a forwarded
   * request's checks). A value aim issued stays aim's after its session ended (while
   * remembered), and a value aim did not issue never becomes aim's: its secrets are new random
   * values.
   */
  readonly #verdicts: BoundedMap<string, boolean>;

  /** Looks secrets up among `sessions` (and, when it has one, their shared store). */
  constructor(sessions: IssuedSecrets, options: AimCredentialsOptions = {}) {
    this.#sessions = sessions;
    this.#verdicts = new BoundedMap(options.remembered ?? AIM_CREDENTIALS_DEFAULTS.remembered);
  }

  /**
   * The secrets aim issued among the values of `headers`' credential headers; undefined when
   * they hold no candidate (no lookup at all).
   *
   * @throws {AimError} 503 `store_unavailable` (the promise rejects) when the shared store
   * cannot be reached: what cannot be told apart is not forwarded.
   */
  issuedIn(headers: Headers): Set<string> | Promise<Set<string>> | undefined {
    let candidates: string[] | undefined;
    for (const name of CREDENTIAL_HEADERS) {
      const value = headers.get(name);
      if (value === null || value.length < SECRET_LENGTH) continue;
      for (const candidate of secretCandidates(value)) (candidates ??= []).push(candidate);
    }
    return candidates && this.issued(candidates);
  }

  /** The values among `candidates` that are secrets aim issued. */
  issued(candidates: readonly string[]): Set<string> | Promise<Set<string>> {
    if (candidates.length > MAX_CANDIDATES) return new Set(candidates);
    const found = new Set<string>();
    let pending: Promise<void>[] | undefined;
    for (const candidate of candidates) {
      const known = this.#verdicts.get(candidate);
      if (known !== undefined) {
        if (known) found.add(candidate);
        continue;
      }
      const hash = hashToken(candidate);
      const held = this.#sessions.holds(hash);
      if (held || !this.#sessions.share.shared) {
        this.#verdicts.set(candidate, held);
        if (held) found.add(candidate);
        continue;
      }
      (pending ??= []).push(
        this.#inStore(hash).then((issued) => {
          this.#verdicts.set(candidate, issued);
          if (issued) found.add(candidate);
        }),
      );
    }
    return pending ? Promise.all(pending).then(() => found) : found;
  }

  /** Whether the shared store holds a session with a secret of this hash. */
  async #inStore(hash: string): Promise<boolean> {
    const share = this.#sessions.share;
    const [record, credential, tabKey] = await Promise.all([
      share.load(hash),
      share.alias("credential", hash),
      share.alias("tabKey", hash),
    ]);
    return record !== null || credential !== null || tabKey !== null;
  }
}

/**
 * `value` (a comma-separated list: `Authorization` credentials, WebSocket subprotocols) without
 * the members that carry one of `secrets`; null when none is left. Commas inside quotes do not
 * separate members; a value with nothing to remove is returned unchanged.
 */
export function withoutSecrets(value: string, secrets: ReadonlySet<string>): string | null {
  if (secrets.size === 0) return value;
  const members: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i <= value.length; i++) {
    const char = value[i];
    if (char === '"') quoted = !quoted;
    else if (char === "\\" && quoted) i++;
    else if (char === undefined || (char === "," && !quoted)) {
      members.push(value.slice(start, i));
      start = i + 1;
    }
  }
  const kept = members.filter((member) => !carriesSecret(member, secrets));
  if (kept.length === members.length) return value;
  const text = kept.map((member) => member.trim()).filter(Boolean).join(", ");
  return text === "" ? null : text;
}

const perStore = new WeakMap<IssuedSecrets, AimCredentials>();

/** The one {@linkcode AimCredentials} of a session store: its verdicts serve every route. */
export function aimCredentials(sessions: IssuedSecrets): AimCredentials {
  let credentials = perStore.get(sessions);
  if (!credentials) perStore.set(sessions, credentials = new AimCredentials(sessions));
  return credentials;
}
