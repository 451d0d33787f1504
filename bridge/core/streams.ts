/**
 * The bound on requests that stay open: event streams, long polls, MCP, A2A and ACP
 * streams. Each holds a connection (a file descriptor) for as long as it lasts, so they are
 * counted per client address and in total, and refused (429) past either bound.
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import { DEFAULTS } from "./limits.ts";

/** The bounds of {@linkcode StreamSlots}. */
export interface StreamLimits {
  /**
   * Streams and long polls open at once from one client address.
   *
   * @default {64}
   */
  perClient: number;
  /**
   * Streams and long polls open at once in all.
   *
   * @default {1024}
   */
  total: number;
}

/** The defaults of {@linkcode StreamLimits}, as its `@default` tags say. */
export const STREAM_DEFAULTS: Readonly<StreamLimits> = {
  perClient: DEFAULTS.maxStreamsPerClient,
  total: DEFAULTS.maxStreams,
};

/** Seconds a refused stream is told to wait before it retries. */
const RETRY_AFTER_S = 5;

/**
 * The open streams and long polls, per client address and in all. Memory is bounded by the
 * total: only addresses with an open stream are remembered.
 */
export class StreamSlots {
  /** The bounds in force: `limits` given, each at least 1, `perClient` at most `total`. */
  readonly limits: Readonly<StreamLimits>;
  readonly #byClient = new Map<string, number>();
  #open = 0;

  /** Slots within `limits`; each one not given is {@linkcode STREAM_DEFAULTS}'s. */
  constructor(limits: Partial<StreamLimits> = {}) {
    const total = Math.max(1, Math.floor(limits.total ?? STREAM_DEFAULTS.total));
    this.limits = {
      total,
      perClient: Math.max(
        1,
        Math.min(total, Math.floor(limits.perClient ?? STREAM_DEFAULTS.perClient)),
      ),
    };
  }

  /** Streams and long polls open now. */
  get open(): number {
    return this.#open;
  }

  /**
   * Takes a slot for one stream or long poll of `client`; the function it returns gives it
   * back (once, however often it is called).
   *
   * @throws {AimError} 429 `too_many_requests`, with `Retry-After`, past either bound.
   */
  take(client: string): () => void {
    const held = this.#byClient.get(client) ?? 0;
    if (held >= this.limits.perClient) {
      throw tooMany(
        `At most ${this.limits.perClient} event streams and long polls may be open at once from one client.`,
      );
    }
    if (this.#open >= this.limits.total) {
      throw tooMany(
        `The bridge holds as many event streams and long polls as it can (${this.limits.total}); retry later.`,
      );
    }
    this.#byClient.set(client, held + 1);
    this.#open++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#open--;
      const left = (this.#byClient.get(client) ?? 1) - 1;
      if (left > 0) this.#byClient.set(client, left);
      else this.#byClient.delete(client);
    };
  }

  /**
   * `make`'s answer, holding one of `client`'s slots until its body ends or its reader hangs
   * up; the slot is given back at once when `make` throws.
   *
   * @throws {AimError} 429 `too_many_requests`, with `Retry-After`, past either bound.
   */
  async hold(client: string, make: () => Response | Promise<Response>): Promise<Response> {
    const release = this.take(client);
    try {
      return holdingSlot(await make(), release);
    } catch (error) {
      release();
      throw error;
    }
  }
}

function tooMany(message: string): AimError {
  return new AimError("too_many_requests", message, {
    headers: { "Retry-After": String(RETRY_AFTER_S) },
  });
}

/**
 * `response` with its body's end, or its reader's hang-up, giving the slot back; a response
 * without a body gives it back at once.
 */
export function holdingSlot(response: Response, release: () => void): Response {
  if (!response.body) {
    release();
    return response;
  }
  // `cancel` (a reader that hangs up) is in the Streams standard, not yet in the DOM types.
  const transformer = { flush: release, cancel: release } as Transformer<Uint8Array, Uint8Array>;
  const body = response.body.pipeThrough(new TransformStream(transformer));
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
