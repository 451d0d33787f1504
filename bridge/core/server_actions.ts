/**
 * @module Actions that run on the bridge, not in a tab: the built-in `login`, `logout` and
 * `disconnect`, and those an embedding app registers.
 */
import { AimError } from "../protocol/errors.ts";
import type { InputSchema } from "../protocol/schemas.ts";
import type { AttemptLimiter, UserStore } from "./auth.ts";
import type { Identity, Session } from "./sessions.ts";

/** What a server action's handler may do with its session. */
export interface ServerActionContext {
  /** The session, read-only: its id, page and identity. */
  readonly session: Readonly<Pick<Session, "id" | "page" | "identity" | "tabBound">>;
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
  id: string;
  description: string;
  input_schema: InputSchema;
  input_example: string | Record<string, string>;
  consequential?: boolean;
  /** Needs a signed-in session; listed only when signed in. */
  protected?: boolean;
  /** When it is listed; `protected` implies `signed_in`. Default `always`. */
  available?: ActionAvailability;
  /** Runs with the validated input; a thrown `AimError` is answered as is, anything else as 422. */
  run(ctx: ServerActionContext, input: unknown): unknown | Promise<unknown>;
}

/** Whether a server action is listed for a session in this login state. */
export function isAvailable(action: ServerAction, signedIn: boolean): boolean {
  const when = action.protected ? "signed_in" : action.available ?? "always";
  return when === "always" || (when === "signed_in") === signedIn;
}

/** Options of {@linkcode builtinActions}. */
export interface BuiltinActionsOptions {
  users?: UserStore;
  limiter: AttemptLimiter;
  /** Password checks at once; more are refused with 429. Default 8. */
  maxConcurrentLogins?: number;
}

/** A count of work under way with a ceiling. */
class Gate {
  #inside = 0;
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  tryEnter(): boolean {
    if (this.#inside >= this.#max) return false;
    this.#inside++;
    return true;
  }
  leave(): void {
    this.#inside--;
  }
}

function tooManyAttempts(seconds: number): AimError {
  return new AimError(
    429,
    "too_many_requests",
    `Too many failed logins; wait ${seconds} seconds before trying again.`,
    { headers: { "Retry-After": String(seconds) }, details: { retry_after: seconds } },
  );
}

/** `login`, `logout` and `disconnect`. */
export function builtinActions(options: BuiltinActionsOptions): ServerAction[] {
  const { users, limiter } = options;
  // scrypt is slow on purpose: a bound on checks at once keeps a flood of logins from eating
  // the memory and CPU of the bridge.
  const gate = new Gate(options.maxConcurrentLogins ?? 8);
  return [
    {
      id: "login",
      description:
        "Sign in to the application with a username and password; the session keeps the identity.",
      input_schema: {
        type: "object",
        properties: {
          username: { type: "string", description: "The username", minLength: 1, maxLength: 200 },
          password: { type: "string", description: "The password", minLength: 1, maxLength: 1024 },
        },
        required: ["username", "password"],
        additionalProperties: false,
      },
      input_example: { username: "alice", password: "<password>" },
      available: "signed_out",
      async run(ctx, input) {
        const { username, password } = input as { username: string; password: string };
        const keys = [`session:${ctx.session.id}`, `user:${username.toLowerCase()}`];
        const wait = Math.max(...keys.map((k) => limiter.retryAfter(k)));
        if (wait > 0) throw tooManyAttempts(wait);
        // Counted before the (slow) check, so that attempts in parallel cannot slip past it.
        for (const key of keys) limiter.fail(key);
        if (!gate.tryEnter()) {
          for (const key of keys) limiter.forgive(key);
          throw new AimError(
            429,
            "too_many_requests",
            "Too many logins at once; retry in a second.",
            {
              headers: { "Retry-After": "1" },
            },
          );
        }
        let identity: Identity | null;
        try {
          identity = users ? await users.verify(username, password) : null;
        } finally {
          gate.leave();
        }
        if (!identity) {
          throw new AimError(422, "action_failed", "The username or password is incorrect.");
        }
        limiter.reset(keys[0]);
        limiter.forgive(keys[1]);
        ctx.signIn(identity);
        return { authenticated: true, user: identity };
      },
    },
    {
      id: "logout",
      description: "Sign out of the application; the session token stays valid.",
      input_schema: { type: "object", properties: {}, required: [], additionalProperties: false },
      input_example: {},
      available: "signed_in",
      run(ctx) {
        ctx.signOut();
        return { authenticated: false };
      },
    },
    {
      id: "disconnect",
      description: "End this session: the token stops working and the page is told.",
      input_schema: { type: "object", properties: {}, required: [], additionalProperties: false },
      input_example: {},
      run(ctx) {
        ctx.end();
        return { disconnected: true };
      },
    },
  ];
}
