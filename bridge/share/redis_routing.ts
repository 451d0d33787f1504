/**
 * How Redis routes an invocation: a call for a session whose tab another bridge instance holds
 * is published on that instance's call channel (`q:{instance}`), and its answer (or a note that
 * it waits for the person) comes back on the caller's reply channel (`r:{instance}`). Topics
 * (`tell`/`listen`) ride the same call channel.
 *
 * @module
 */
import { AimError, errorFromBody } from "../errors/aim_error.ts";
import type { InvokeResult } from "../wire/schemas.ts";
import type { ForwardedCall, ForwardHandler, ForwardOptions } from "./share.ts";
import { NOT_SENT } from "./share.ts";
import { CallMessage, notConnected, parseMessage, Reply, type Waiting } from "./redis_messages.ts";

/** How often an instance beats; a forwarded call checks its target that often. */
export const BEAT_MS = 1000;

/** What the router uses of its {@linkcode RedisShare}: the connection, keys and liveness. */
export interface RouterPort {
  /** This instance's id. */
  readonly instance: string;
  /** The key (or channel) of `kind` for `id`, with the share's prefix. */
  key(kind: string, id: string): string;
  /** Publishes on a channel without the command timeout; resolves to the receivers. */
  publish(channel: string, message: string): Promise<number>;
  /** Runs a command within the share's timeout; any failure is 503 `store_unavailable`. */
  run<T>(command: () => Promise<T>): Promise<T>;
  /** Whether an instance beat recently. */
  alive(instance: string): Promise<boolean>;
  /** Called for errors of a topic's handler. */
  onError?: ((error: unknown) => void) | undefined;
}

/** Calls forwarded to other instances and served for them, over Redis publish/subscribe. */
export class RedisRouter {
  readonly #port: RouterPort;
  readonly #waiting = new Map<string, Waiting>();
  readonly #running = new Map<string, AbortController>();
  readonly #topics = new Map<string, (message: unknown) => void>();
  #handler: ForwardHandler | undefined;

  constructor(port: RouterPort) {
    this.#port = port;
  }

  /** Fails every call still waiting for an answer: the bridge is stopping. */
  close(): void {
    for (const waiting of this.#waiting.values()) {
      waiting.reject(notConnected("The bridge is stopping; retry."));
    }
    this.#waiting.clear();
  }

  async forward(
    instance: string,
    tokenHash: string,
    call: ForwardedCall,
    options: ForwardOptions,
  ): Promise<InvokeResult> {
    const id = crypto.randomUUID();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let check: ReturnType<typeof setInterval> | undefined;
    const answer = new Promise<InvokeResult>((resolve, reject) => {
      const restart = (ms: number) => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          this.#cancel(instance, id);
          reject(
            new AimError(
              "tab_timeout",
              `The tab did not answer within ${ms} ms; the action may still run.`,
            ),
          );
        }, ms);
      };
      // Answers come on this instance's reply channel, subscribed before any call is sent.
      this.#waiting.set(id, {
        resolve,
        reject,
        onAwaiting: options.onAwaiting,
        restart,
        confirmMs: options.confirmMs,
      });
      restart(options.timeoutMs);
      // The instance running it may die: then no answer comes, and the agent is told at once.
      check = setInterval(() => {
        this.#port.alive(instance).then((alive) => {
          if (!alive) {
            reject(notConnected(
              "The bridge instance holding the tab stopped before answering; the action may or may not have run.",
            ));
          }
        }, () => {});
      }, BEAT_MS);
      options.signal?.addEventListener("abort", () => {
        this.#cancel(instance, id);
        reject(
          new AimError("cancelled", "The invocation was cancelled before the page answered."),
        );
      }, { once: true });
    });
    try {
      const message = JSON.stringify({ id, from: this.#port.instance, tokenHash, call });
      const receivers = await this.#port.run(() =>
        this.#port.publish(this.#port.key("q", instance), message)
      );
      if (receivers === 0) {
        throw new AimError(
          "browser_not_connected",
          "No browser tab holds this session now; open the page (or wait for it to reconnect) and retry.",
          { cause: NOT_SENT },
        );
      }
      return await answer;
    } finally {
      clearTimeout(timer);
      clearInterval(check);
      this.#waiting.delete(id);
    }
  }

  #cancel(instance: string, id: string): void {
    const message = JSON.stringify({ id, from: this.#port.instance, cancel: true });
    this.#port.publish(this.#port.key("q", instance), message).catch(() => {});
  }

  serve(handler: ForwardHandler): void {
    this.#handler = handler;
  }

  #reply(to: string, reply: Reply): void {
    this.#port.publish(this.#port.key("r", to), JSON.stringify(reply)).catch(() => {});
  }

  async onCall(message: string): Promise<void> {
    const request = parseMessage(CallMessage, message);
    if (request === undefined) return this.#malformed("call");
    if ("topic" in request) {
      try {
        this.#topics.get(request.topic)?.(request.message);
      } catch (error) {
        this.#port.onError?.(error);
      }
      return;
    }
    if ("cancel" in request) return this.#running.get(request.id)?.abort();
    const handler = this.#handler;
    if (!handler) return;
    const abort = new AbortController();
    this.#running.set(request.id, abort);
    try {
      const result = await handler(request.tokenHash, request.call, {
        onAwaiting: (text) =>
          this.#reply(request.from, { id: request.id, type: "awaiting", message: text }),
        signal: abort.signal,
      });
      this.#reply(request.from, { id: request.id, type: "answer", ok: true, result });
    } catch (error) {
      const failure = error instanceof AimError
        ? error
        : new AimError("server_error", "The bridge failed unexpectedly.");
      this.#reply(request.from, {
        id: request.id,
        type: "answer",
        ok: false,
        status: failure.status,
        body: failure.toJSON(),
        headers: failure.headers,
      });
    } finally {
      this.#running.delete(request.id);
    }
  }

  onReply(message: string): void {
    const reply = parseMessage(Reply, message);
    if (reply === undefined) return this.#malformed("reply");
    const waiting = this.#waiting.get(reply.id);
    if (!waiting) return;
    if (reply.type === "awaiting") {
      // The person is asked: the holder now waits the confirmation time, and so does this one.
      waiting.restart(waiting.confirmMs);
      waiting.onAwaiting?.(reply.message);
      return;
    }
    if (reply.ok) waiting.resolve(reply.result);
    else waiting.reject(errorFromBody(reply.body, reply.headers));
  }

  /** A message that fits no schema is dropped, and said (without its content). */
  #malformed(kind: string): void {
    this.#port.onError?.(new Error(`A malformed ${kind} message from Redis was dropped`));
  }

  async tell(instance: string, topic: string, message: unknown): Promise<boolean> {
    const text = JSON.stringify({ topic, message });
    return await this.#port.run(() => this.#port.publish(this.#port.key("q", instance), text)) > 0;
  }

  listen(topic: string, handler: (message: unknown) => void): void {
    this.#topics.set(topic, handler);
  }
}
