/**
 * A2A's HTTP routes: the Agent Card at `/.well-known/agent-card.json` and the JSON-RPC
 * endpoint at `/__aim/a2a`, a thin hono adapter over the official SDK's transport handlers (v1
 * and v0.3 methods), with aim's Origin check, Bearer session, and bounded bodies in front.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { BridgeCore } from "../core/bridge.ts";
 * import type { AppEnv } from "../http/env.ts";
 * import { a2aRoutes } from "./routes.ts";
 *
 * const core = new BridgeCore({ root: "site" });
 * const app = new Hono<AppEnv>();
 * app.route("/", a2aRoutes(core));
 * ```
 *
 * @module
 */
import { Hono } from "hono";
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from "@a2a-js/sdk/server";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { isV1JsonRpcMethod } from "@a2a-js/sdk/compat/v0_3";
import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from "@a2a-js/sdk";
import type { BridgeCore } from "../core/bridge.ts";
import { holdingSlot } from "../core/streams.ts";
import { AimError } from "../errors/aim_error.ts";
import type { AppEnv } from "../http/env.ts";
import { forbiddenOrigin, isCrossOrigin, readBearer, readJson } from "../http/request.ts";
import { methodNotAllowed } from "../http/responses.ts";
import { A2A_PATH, AGENT_CARD_PATH, agentCard, cardV03, cardV1 } from "./card.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import type { AgentCard } from "@a2a-js/sdk";
import { AimExecutor, AimRequestHandler, REFUSAL_KEY } from "./executor.ts";
import { A2ATasks, type A2ATasksOptions } from "./tasks.ts";
import { SessionUser } from "./caller.ts";

export { A2A_PATH, AGENT_CARD_PATH };

/** Options of {@linkcode a2aRoutes}. */
export interface A2ARoutesOptions {
  /** Bounds of the tasks: per session, per client, in all, in time and bytes. */
  tasks?: A2ATasksOptions | undefined;
}

/** The header a client names its A2A version in; absent means v0.3 (A2A v1, 3.6.2). */
const VERSION_HEADER = "A2A-Version";
const NO_STORE = { "Cache-Control": "no-store" };

/** The methods answered with a stream, in A2A v1 and v0.3. */
const STREAMING_METHODS: ReadonlySet<unknown> = new Set([
  "SendStreamingMessage",
  "SubscribeToTask",
  "message/stream",
  "tasks/resubscribe",
]);

/** The JSON-RPC method a request calls; undefined when it names none. */
function methodOf(body: unknown): unknown {
  return (body as { method?: unknown } | null)?.method;
}

/** A JSON-RPC id of a request, or null. */
function idOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/**
 * The A2A version a request speaks: its `A2A-Version`, else v0.3 (as A2A v1 says), unless it
 * calls a v1 method by name.
 */
function versionOf(header: string | undefined, body: unknown): string {
  const named = header?.trim();
  if (named) return named;
  const method = (body as { method?: unknown } | null)?.method;
  return typeof method === "string" && isV1JsonRpcMethod(method) ? "1.0" : "0.3";
}

/** Whether a card request asks for no version or a v0 one: it gets the v0.3 card. */
function wantsLegacyCard(header: string | undefined): boolean {
  const version = header?.trim();
  return !version || version.startsWith("0.");
}

/** The A2A routes of a bridge, to mount before its static files. */
export function a2aRoutes(core: BridgeCore, options: A2ARoutesOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const tasks = new A2ATasks(core, options.tasks);
  // The handler's own card says what it supports; the served one adds the pages.
  const baseCard = agentCard(core);
  const handler = baseCard.then((card) =>
    new AimRequestHandler(card, tasks, new AimExecutor(core, tasks))
  );
  const transports = handler.then((h) => ({
    v1: new JsonRpcTransportHandler(h),
    v03: new LegacyJsonRpcTransportHandler(h),
  }));

  // Built once per origin while no page changes: the route needs no token, so it must be cheap.
  const cards = new BoundedMap<string, { pages: readonly object[]; card: AgentCard }>(8);
  app.get(AGENT_CARD_PATH, async (c) => {
    const origin = c.get("origin");
    const pages = await core.catalog.agentPages();
    let cached = cards.get(origin);
    if (
      !cached || cached.pages.length !== pages.length ||
      cached.pages.some((page, i) => page !== pages[i])
    ) {
      cached = { pages, card: await agentCard(core, origin) };
      cards.set(origin, cached);
    }
    const { card } = cached;
    const legacy = wantsLegacyCard(c.req.header(VERSION_HEADER));
    return c.json(legacy ? cardV03(card) : cardV1(card), 200, {
      "Cache-Control": "no-cache",
      Vary: VERSION_HEADER,
    });
  });
  app.all(AGENT_CARD_PATH, () => {
    throw methodNotAllowed("GET");
  });

  app.post(A2A_PATH, async (c) => {
    // The Host check ran before (the app's first middleware); Origin, when a browser sends one,
    // must be the bridge's own.
    if (isCrossOrigin(c, c.get("origin"))) throw forbiddenOrigin();
    // The token comes from the Authorization header only: never a cookie, never the URL.
    const session = await core.authenticate(readBearer(c));
    // Bounded in size, time and depth, like every body the bridge reads.
    const body = await readJson(c, core.limits.maxBodyBytes, core.limits.bodyTimeoutMs);
    const version = versionOf(c.req.header(VERSION_HEADER), body);
    const legacy = version === "0.3";
    const mapError = legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
      : JsonRpcTransportHandler.mapToJSONRPCError;
    const envelope = (error: unknown) => ({
      jsonrpc: "2.0",
      id: idOf(body),
      error: mapError(error),
    });
    try {
      validateVersion(version, await baseCard, "JSONRPC");
    } catch (error) {
      return c.json(envelope(error), 200, NO_STORE);
    }
    const context = new ServerCallContext({
      user: new SessionUser(session, { client: c.get("client"), origin: c.get("origin") }),
      requestedVersion: version,
    });
    const { v1, v03 } = await transports;
    // A stream holds its connection until the task ends: bounded per client address and in
    // all, taken before the task is started so that a refused stream starts nothing.
    const release = STREAMING_METHODS.has(methodOf(body))
      ? core.streams.take(c.get("client"))
      : () => {};
    let answer: Awaited<ReturnType<typeof v1.handle>>;
    try {
      answer = await (legacy ? v03 : v1).handle(body as Record<string, unknown>, context);
    } catch (error) {
      release();
      throw error;
    }
    if (!(Symbol.asyncIterator in answer)) {
      release();
      refused(context);
      return c.json(answer, 200, NO_STORE);
    }
    const events = answer[Symbol.asyncIterator]();
    let first: IteratorResult<unknown>;
    try {
      first = await events.next();
    } catch (error) {
      release();
      refused(context);
      return c.json(envelope(error), 200, NO_STORE);
    }
    return holdingSlot(eventStream(first, events, envelope), release);
  });
  app.all(A2A_PATH, () => {
    throw methodNotAllowed("POST");
  });

  return app;
}

/**
 * Throws the refusal the request handler left (429 when the session has all the tasks under
 * way it may have): answered as aim answers it, with `Retry-After`, not as a JSON-RPC error.
 */
function refused(context: ServerCallContext): void {
  const refusal = context.state.get(REFUSAL_KEY);
  if (refusal instanceof AimError) throw refusal;
}

/**
 * A stream's events as server-sent events, as the SDK's own adapter writes them: one `data:`
 * line each, and an `error` event if the stream fails. A client that hangs up stops reading;
 * the task goes on.
 */
function eventStream(
  first: IteratorResult<unknown>,
  events: AsyncIterator<unknown>,
  envelope: (error: unknown) => unknown,
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) return controller.close();
      controller.enqueue(encoder.encode(formatSSEEvent(first.value)));
    },
    async pull(controller) {
      try {
        const next = await events.next();
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent(envelope(error))));
        controller.close();
      }
    },
    cancel() {
      void events.return?.();
    },
  });
  return new Response(body, { headers: { ...SSE_HEADERS, ...NO_STORE } });
}
