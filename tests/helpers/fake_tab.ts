/**
 * A fake tab: a WebSocket client that speaks the channel protocol, for tests and the
 * benchmark. It answers invocations through handlers, like a page would, and reads what the
 * bridge sends with the channel's zod schemas: a message that breaks them fails the test.
 *
 * @module
 */
import { BridgeMessage } from "../../bridge/wire/channel.ts";
import { firstIssue } from "../../bridge/wire/issue.ts";
import { CREDENTIAL_PROTOCOL_PREFIX, TAB_PROTOCOL } from "../../bridge/wire/names.ts";

/**
 * Tab credentials by token, as pages receive them from `POST /__aim/session`: the test
 * helpers that open sessions record them here, so that a fake tab can present its own.
 */
export const credentials = new Map<string, string>();

/** Records the credential of a session a test opened (see {@linkcode credentials}). */
export function rememberCredential(token: string, credential: string | undefined): void {
  if (credential) credentials.set(token, credential);
}

/**
 * Opens a session on `page` as a page does (`POST /__aim/session`) and records its tab
 * credential; returns the token.
 */
export async function openPageSession(
  origin: string,
  page: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await fetch(`${origin}/__aim/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ page }),
  });
  if (!res.ok) throw new Error(`session: ${res.status} ${await res.text()}`);
  const grant = await res.json();
  rememberCredential(grant.sessionToken, grant.tabCredential);
  return grant.sessionToken;
}

/** How a fake tab answers one invocation: a result, a thrown error (422), or never. */
export type FakeHandler = (input: unknown) => unknown | Promise<unknown>;

/** Options of {@linkcode FakeTab.open}. */
export interface FakeTabOptions {
  /** The session token; its tab credential is looked up in {@linkcode credentials}. */
  token: string;
  /** The tab credential to present; default the one recorded for `token`. */
  credential?: string;
  /** Extra headers (a cookie, an Authorization header), as an attacker would add. */
  headers?: Record<string, string>;
  /** The page the tab shows. */
  page: string;
  /** `Origin` header; default: the bridge's own origin. */
  origin?: string;
  /** Send hello on open. Default true. */
  hello?: boolean;
  /** How long {@linkcode FakeTab.next} waits for a message before it fails. Default 10 s. */
  waitMs?: number;
}

/** A tab that connected to a bridge. */
export class FakeTab implements AsyncDisposable {
  readonly socket: WebSocket;
  readonly messages: BridgeMessage[] = [];
  /** Handlers by action id; state is pushed before each result when `stateAfter` is set. */
  handlers = new Map<string, FakeHandler>();
  stateAfter?: (actionId: string, input: unknown) => Record<string, unknown>;
  /** Set to "decline" to decline every invocation. */
  answerWith: "handler" | "decline" | "never" = "handler";
  /**
   * How a session change the bridge waits for (`session` with `settle`) is answered: `settled`
   * at once ("auto"), or by the test itself ("manual").
   */
  settle: "auto" | "manual" = "auto";
  readonly closed: Promise<CloseEvent>;
  #waiters: {
    test: (m: BridgeMessage) => boolean;
    resolve: (m: BridgeMessage) => void;
    reject: (error: Error) => void;
    timer: ReturnType<typeof setTimeout>;
  }[] = [];
  #waitMs = 10_000;
  #unconsumed: BridgeMessage[] = [];
  /** Set when the bridge sent a message that breaks the channel's schemas. */
  #broken: Error | undefined;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    this.closed = new Promise((resolve) =>
      socket.addEventListener("close", (e) => {
        // Nothing more comes: whoever waits is told now, not at its deadline.
        for (const waiter of this.#waiters.splice(0)) {
          clearTimeout(waiter.timer);
          waiter.reject(new Error(`the channel closed (${e.code} ${e.reason}) before the message`));
        }
        resolve(e);
      })
    );
    socket.addEventListener("message", (event) => this.#onMessage(event));
  }

  /** Opens the channel of `options.token` on the bridge at `origin`. */
  static async open(bridgeOrigin: string, options: FakeTabOptions): Promise<FakeTab> {
    const url = bridgeOrigin.replace(/^http/, "ws") + "/__aim/tab";
    // Deno's WebSocket takes headers, so a test can be a browser (or an attacker).
    const credential = options.credential ?? credentials.get(options.token) ?? "";
    const socket = new WebSocket(url, {
      protocols: [TAB_PROTOCOL, CREDENTIAL_PROTOCOL_PREFIX + credential],
      headers: { Origin: options.origin ?? bridgeOrigin, ...options.headers },
    } as unknown as string[]);
    const tab = new FakeTab(socket);
    tab.#waitMs = options.waitMs ?? tab.#waitMs;
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error("the channel did not open")), {
        once: true,
      });
    });
    if (options.hello !== false) tab.send({ type: "hello", page: options.page });
    return tab;
  }

  /** Sends a message (an object is sent as JSON, a string as is). */
  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** Registers actions: `[id, handler, declaration?]`. */
  async register(
    actions: { id: string; handler?: FakeHandler; [key: string]: unknown }[],
  ): Promise<BridgeMessage & { type: "registered" }> {
    const declarations = actions.map(({ handler, ...decl }) => {
      if (handler) this.handlers.set(decl.id, handler);
      return {
        description: `Action ${decl.id}`,
        input_schema: { type: "string", minLength: 1 },
        input_example: "x",
        consequential: false,
        protected: false,
        ...decl,
      };
    });
    const registered = this.next("registered");
    this.send({ type: "register", actions: declarations });
    return await registered as BridgeMessage & { type: "registered" };
  }

  /** Sends a state snapshot. */
  setState(state: Record<string, unknown>): void {
    this.send({ type: "state", state });
  }

  /**
   * The first message of `type` not yet taken by an earlier `next`, waiting for it if need be.
   * Rejects when none comes within the tab's `waitMs` (a broken bridge fails a test, never
   * hangs it), and once the bridge sent a message that breaks the channel's schemas.
   */
  next<T extends BridgeMessage["type"]>(
    type: T,
    test: (m: Extract<BridgeMessage, { type: T }>) => boolean = () => true,
  ): Promise<Extract<BridgeMessage, { type: T }>> {
    if (this.#broken) return Promise.reject(this.#broken);
    const match = (m: BridgeMessage) =>
      m.type === type && test(m as Extract<BridgeMessage, { type: T }>);
    const index = this.#unconsumed.findIndex(match);
    if (index >= 0) {
      return Promise.resolve(
        this.#unconsumed.splice(index, 1)[0] as Extract<BridgeMessage, { type: T }>,
      );
    }
    const message = new Promise<Extract<BridgeMessage, { type: T }>>((resolve, reject) => {
      const waiter = {
        test: match,
        resolve: resolve as (m: BridgeMessage) => void,
        reject,
        timer: setTimeout(() => {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          reject(new Error(`no "${type}" message came within ${this.#waitMs} ms`));
        }, this.#waitMs),
      };
      this.#waiters.push(waiter);
    });
    // A wait nobody awaits may fail unheard; one that is awaited still throws.
    message.catch(() => {});
    return message;
  }

  /** Whether a message of `type` has arrived at any time. */
  has(type: BridgeMessage["type"], test: (m: BridgeMessage) => boolean = () => true): boolean {
    return this.messages.some((m) => m.type === type && test(m));
  }

  #onMessage(event: MessageEvent): void {
    // Once the bridge broke the protocol, nothing it sends is taken as a message.
    const message = this.#broken ? undefined : this.#parse(event.data);
    if (!message) return;
    this.messages.push(message);
    const waiter = this.#waiters.find((w) => w.test(message));
    if (waiter) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      clearTimeout(waiter.timer);
      waiter.resolve(message);
    } else {
      this.#unconsumed.push(message);
    }
    if (message.type === "invoke") this.#run(message);
    if (message.type === "session" && message.settle && this.settle === "auto") {
      this.send({ type: "settled", id: message.settle });
    }
  }

  /** A message the bridge sent, checked against the channel's schemas; undefined if it fails. */
  #parse(data: unknown): BridgeMessage | undefined {
    let problem: string;
    try {
      const parsed = BridgeMessage.safeParse(JSON.parse(String(data)));
      if (parsed.success) return parsed.data;
      problem = firstIssue(parsed.error, "message");
    } catch {
      problem = "not JSON";
    }
    // Loud: every wait fails now and later, and so does closing the tab.
    this.#broken ??= new Error(
      `the bridge sent a message that breaks the channel's schemas (${problem}): ${
        String(data).slice(0, 500)
      }`,
    );
    for (const waiter of this.#waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(this.#broken);
    }
    return undefined;
  }

  async #run(message: Extract<BridgeMessage, { type: "invoke" }>): Promise<void> {
    if (this.answerWith === "never") return;
    if (this.answerWith === "decline") {
      this.send({
        type: "result",
        id: message.id,
        ok: false,
        error: { code: "declined", message: "The person declined." },
      });
      return;
    }
    const handler = this.handlers.get(message.actionId);
    try {
      if (!handler) throw new Error(`no handler for ${message.actionId}`);
      const result = await handler(message.input);
      if (this.stateAfter) this.setState(this.stateAfter(message.actionId, message.input));
      this.send({ type: "result", id: message.id, ok: true, result: result ?? null });
    } catch (error) {
      this.send({
        type: "result",
        id: message.id,
        ok: false,
        error: {
          code: "action_failed",
          message: error instanceof Error ? error.message : String(error),
        },
      });
    }
  }

  /**
   * Closes the channel and waits for it to close.
   *
   * @throws {Error} when the bridge sent a message that breaks the channel's schemas.
   */
  async close(): Promise<void> {
    if (this.socket.readyState < 2) this.socket.close();
    await this.closed;
    if (this.#broken) throw this.#broken;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
