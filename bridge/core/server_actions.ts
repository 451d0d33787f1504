/**
 * Actions that run on the bridge, not in a tab: the built-in `login`, `logout` and
 * `disconnect`, and those an embedding app registers.
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import { noInput } from "../markup/action.ts";
import type { InputSchema, InputValue } from "../wire/schemas.ts";
import type { AttemptLimiter, UserStore } from "./login.ts";
import { FairGate, type Rate } from "./fair_gate.ts";
import { DEFAULTS } from "./limits.ts";
import type { Identity } from "./sessions.ts";
import type { Session } from "./session.ts";

/** What a server action's handler may do with its session. */
export interface ServerActionContext {
  /** The session, read-only: its id, page and identity. */
  readonly session: Readonly<Pick<Session, "id" | "page" | "identity" | "tabBound">>;
  /**
   * The requesting client's address: the socket's remote IP, or the last X-Forwarded-For hop
   * when the bridge trusts a proxy; "unknown" when not known.
   */
  readonly client: string;
  /** Attaches an identity to the session (application login). */
  signIn(identity: Identity): void;
  /** Removes the identity; the token stays valid. */
  signOut(): void;
  /** Ends the session; its token stops working. */
  end(): void;
}

/** When a server action is listed in a session's manifest. */
export type ActionAvailability = "always" | "signed_in" | "signed_out";

/** An action that an app embedding the bridge runs in TypeScript. */
export interface ServerAction {
  /** The action's id, as agents name it (`actionId`); no page may declare one of the same id. */
  id: string;
  /** What it does, for the agent. */
  description: string;
  /** The JSON Schema its input must match; the bridge checks every input against it. */
  input_schema: InputSchema;
  /** An input the schema accepts; without one, the bridge makes one from the schema. */
  input_example?: InputValue;
  /** Marked `consequential` in the manifest; it runs on the bridge, with no prompt in the page. */
  consequential?: boolean;
  /** Needs a signed-in session; listed only when signed in. */
  protected?: boolean;
  /**
   * When it is listed; `protected` implies `signed_in`.
   *
   * @default {"always"}
   */
  available?: ActionAvailability;
  /** Runs with the validated input; a thrown `AimError` is answered as is, anything else as 422. */
  run(ctx: ServerActionContext, input: unknown): unknown | Promise<unknown>;
}

/** The defaults of {@linkcode ServerAction}, as its `@default` tags say. */
export const SERVER_ACTION_DEFAULTS: { readonly available: ActionAvailability } = {
  available: "always",
};

/** Whether a server action is listed for a session in this login state. */
export function isAvailable(action: ServerAction, signedIn: boolean): boolean {
  const when = action.protected
    ? "signed_in"
    : action.available ?? SERVER_ACTION_DEFAULTS.available;
  return when === "always" || (when === "signed_in") === signedIn;
}

/** Options of {@linkcode builtinActions}. */
export interface BuiltinActionsOptions {
  users?: UserStore | undefined;
  limiter: AttemptLimiter;
  /**
   * Password checks at once.
   *
   * @default {8}
   */
  maxConcurrentLogins?: number;
  /**
   * Password checks at once per (client address, account) and per session.
   *
   * @default {2}
   */
  maxConcurrentLoginsPerClient?: number;
  /**
   * Password checks at once per client address, whatever the account; without it, half of
   * `maxConcurrentLogins` (4), so that one address never takes every place.
   */
  maxConcurrentLoginsPerAddress?: number;
  /**
   * Password checks one client address may start: a burst, then so many a second, whatever the
   * account (an unknown user costs the same check). scrypt takes a core for some 50 ms: a flood
   * from one address gets a twentieth of one after its burst.
   *
   * @default {{ burst: 4, perSecond: 1 }}
   */
  loginRatePerAddress?: Rate;
  /**
   * How long a login may wait in line for its turn at most, ms; then 429. At most 64 logins of
   * one client address wait at once, and 1,024 in all; more get 429 at once.
   *
   * @default {1000}
   */
  loginQueueMs?: number;
}

/** The defaults of {@linkcode BuiltinActionsOptions}, as its `@default` tags say. */
export const LOGIN_DEFAULTS: {
  readonly maxConcurrentLogins: number;
  readonly maxConcurrentLoginsPerClient: number;
  readonly loginRatePerAddress: Readonly<Rate>;
  readonly loginQueueMs: number;
} = {
  maxConcurrentLogins: 8,
  maxConcurrentLoginsPerClient: 2,
  loginRatePerAddress: { burst: 4, perSecond: 1 },
  loginQueueMs: 1000,
};

function tooManyAttempts(seconds: number): AimError {
  return new AimError(
    "too_many_requests",
    `Too many failed logins from here; wait ${seconds} seconds before trying again.`,
    { headers: { "Retry-After": String(seconds) }, details: { retry_after: seconds } },
  );
}

/**
 * `login`, `logout` and `disconnect`; only `disconnect` on a site without users, where no login
 * could succeed (their ids stay reserved all the same).
 */
export function builtinActions(options: BuiltinActionsOptions): ServerAction[] {
  const { users, limiter } = options;
  // scrypt is slow on purpose: a bound on checks at once keeps a flood of logins from eating
  // the memory and CPU of the bridge. Places are counted per (client address, account) and per
  // session, so that a flood from behind one address (a NAT) at other accounts leaves a person
  // there their place, and per address with a wider bound, so that no one address takes every
  // place (two at least are needed to fill them). An address also starts its checks at a rate,
  // whatever the accounts (a new unknown user each time costs the same check), and what it sends
  // beyond waits in line: a flood from one address waits for its turns instead of spinning on
  // refusals. A freed place goes first to the (address, account) that holds the fewest.
  const maxAll = options.maxConcurrentLogins ?? LOGIN_DEFAULTS.maxConcurrentLogins;
  const gate = new FairGate({
    max: maxAll,
    // As many may wait per session or (address, account) as per address: a flood spread over
    // few sessions or accounts waits in line too, rather than spinning on refusals.
    perKey: {
      max: options.maxConcurrentLoginsPerClient ?? LOGIN_DEFAULTS.maxConcurrentLoginsPerClient,
      maxWaiting: DEFAULTS.maxWaitingPerClient,
    },
    waitMs: options.loginQueueMs ?? LOGIN_DEFAULTS.loginQueueMs,
    maxWaiting: DEFAULTS.maxWaiting,
    limits: {
      client: {
        max: options.maxConcurrentLoginsPerAddress ?? Math.max(1, Math.floor(maxAll / 2)),
        maxWaiting: DEFAULTS.maxWaitingPerClient,
        rate: options.loginRatePerAddress ?? LOGIN_DEFAULTS.loginRatePerAddress,
      },
    },
  });
  const disconnect: ServerAction = {
    id: "disconnect",
    description: "End this session; its token stops working.",
    input_schema: noInput(),
    input_example: {},
    run(ctx) {
      ctx.end();
      return { disconnected: true };
    },
  };
  if (!users) return [disconnect];
  return [
    {
      id: "login",
      description: "Sign in; this session then acts as that user.",
      input_schema: {
        type: "object",
        properties: {
          username: { type: "string", minLength: 1, maxLength: 200 },
          password: { type: "string", minLength: 1, maxLength: 1024 },
        },
        required: ["username", "password"],
        additionalProperties: false,
      },
      input_example: { username: "alice", password: "<password>" },
      available: "signed_out",
      async run(ctx, input) {
        const { username, password } = input as { username: string; password: string };
        // Failures are counted per session and per (account, client address), never per
        // account alone: wrong passwords for bob from one address make that address wait (a
        // few seconds, at most 30), never bob at another. All callers whose address is not
        // known share "unknown". Neither key, nor any message, holds the password.
        const client = ctx.client ?? "unknown";
        const sessionKey = `session:${ctx.session.id}`;
        const accountKey = `account:${JSON.stringify([client, username.toLowerCase()])}`;
        const keys = [sessionKey, accountKey];
        const waitOf = async () =>
          Math.max(...await Promise.all(keys.map((k) => limiter.retryAfter(k))));
        // A session or an (address, account) that must wait is refused, but on its address's
        // turn, as a check would be: a flood of logins that are refused waits in line as a flood
        // of checks does, and costs no more. The (address, account) first: a freed place goes to
        // the one that holds the fewest.
        const throttled = (await waitOf()) > 0;
        const places = [accountKey, sessionKey, `client:${client}`];
        if (!(await gate.enter(places))) {
          throw new AimError(
            "too_many_requests",
            "Too many logins at once from here; retry in a second.",
            { headers: { "Retry-After": "1" } },
          );
        }
        try {
          if (throttled) throw tooManyAttempts(Math.max(1, await waitOf()));
          // Checked again and counted in one step, before the (slow) check: attempts in
          // parallel, on this instance or another, cannot slip past it.
          const wait = await limiter.claim(keys);
          if (wait > 0) throw tooManyAttempts(wait);
        } catch (error) {
          gate.leave(places);
          throw error;
        }
        let identity: Identity | null;
        try {
          identity = await users.verify(username, password);
        } finally {
          gate.leave(places);
        }
        if (!identity) {
          throw new AimError("action_failed", "The username or password is incorrect.");
        }
        await Promise.all([limiter.reset(sessionKey), limiter.forgive(accountKey)]);
        ctx.signIn(identity);
        return { authenticated: true, user: identity };
      },
    },
    {
      id: "logout",
      description: "Sign out; the session token stays valid.",
      input_schema: noInput(),
      input_example: {},
      available: "signed_in",
      run(ctx) {
        ctx.signOut();
        return { authenticated: false };
      },
    },
    disconnect,
  ];
}
