/**
 * ACP's HTTP routes (`/ping`, `/agents`, `/runs`, `/sessions`): thin hono handlers over
 * the agent directory and the run store, answering errors in ACP's shape. With several bridge
 * instances sharing a store, `/runs/{id}`, its events, its cancel and `/sessions/{id}` answer on
 * any of them; a stream stays on the instance that runs it.
 *
 * @module
 */
import { firstIssue } from "../wire/issue.ts";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { streamSSE } from "hono/streaming";
import type { z } from "zod";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { AimError } from "../errors/aim_error.ts";
import type { AppEnv } from "../http/env.ts";
import { forbiddenOrigin, isCrossOrigin, readJson, readToken } from "../http/request.ts";
import { agentDirectory, agentManifest, PageFactsCache } from "./agents.ts";
import { AcpHttpError, fromAimError } from "./errors.ts";
import { holdingSlot } from "../core/streams.ts";
import { RunStore, type RunStoreOptions } from "./runs.ts";
import {
  AgentsListQuery,
  RunCreateRequest,
  RunId,
  RunResumeRequest,
  SessionId,
} from "./schemas.ts";
import type { InvocationStats } from "./stats.ts";

type Env = AppEnv;

/** Options of {@linkcode acpRoutes}. */
export interface AcpRoutesOptions {
  /** Invocation figures for the agents' `status`; without it, no `status` is shown. */
  stats?: InvocationStats | undefined;
  /** Limits of the run store. */
  runs?: RunStoreOptions | undefined;
  /** Called for errors that are not protocol errors (bugs). */
  onError?: ((error: unknown) => void) | undefined;
}

/** zod's first complaint as ACP's 422 `invalid_input`, as the reference answers bad bodies. */
function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AcpHttpError("bad_request", firstIssue(parsed.error, what, what));
}

function methodNotAllowed(allow: string): never {
  throw new AcpHttpError("method_not_allowed", `Method Not Allowed; use ${allow} here.`, {
    headers: { Allow: allow },
  });
}

/** The requesting client's address, as the HTTP layer found it; "unknown" when not known. */
function clientOf(c: Context<Env>): string {
  return c.get("client") ?? "unknown";
}

/** The ACP routes of a bridge, to mount before its static files. */
export function acpRoutes(core: BridgeCore, options: AcpRoutesOptions = {}): Hono<Env> {
  const app = new Hono<Env>();
  const facts = new PageFactsCache();
  const runs = new RunStore(core, { ...options.runs, onError: options.onError });

  // Every error answers as itself (hono's HTTPException), an AIM error in ACP's shape.
  app.onError((error) => {
    if (error instanceof AimError) return fromAimError(error).getResponse();
    if (error instanceof HTTPException) return error.getResponse();
    options.onError?.(error);
    return new AcpHttpError("server_error", "The bridge failed to answer; the error was logged.")
      .getResponse();
  });

  /** The caller's AIM session; 401 in ACP's shape without a valid token. */
  const caller = (c: Context<Env>): Promise<Session> => core.authenticate(readToken(c)?.token);
  const sameOrigin = (c: Context<Env>) => {
    if (isCrossOrigin(c, c.get("origin"))) throw forbiddenOrigin();
  };
  /**
   * What `read` finds of the run of the path for the caller, with `Cache-Control: no-store`;
   * 404 when it finds nothing.
   */
  const onRun = async <T>(
    c: Context<Env>,
    read: (session: Session, id: string) => Promise<T | undefined>,
  ): Promise<T> => {
    const session = await caller(c);
    const id = parse(RunId, c.req.param("id"), "run_id");
    const found = await read(session, id);
    // Another session's run is answered like a missing one: its existence is not told.
    if (found === undefined) throw new AcpHttpError("not_found", `Run ${id} not found`);
    c.header("Cache-Control", "no-store");
    return found;
  };

  app.get("/ping", (c) => c.json({}));
  app.all("/ping", () => methodNotAllowed("GET"));

  /** The caller's session when it sent a token (one that does not work: 401), else none. */
  const optionalCaller = (c: Context<Env>): Promise<Session | undefined> =>
    readToken(c) ? caller(c) : Promise.resolve(undefined);

  app.get("/agents", async (c) => {
    const query = parse(AgentsListQuery, c.req.query(), "query");
    const session = await optionalCaller(c);
    const directory = await agentDirectory(core, session);
    // Everything by default, as the reference server; `limit` and `offset` when given.
    const start = query.offset ?? 0;
    const entries = directory.entries.slice(start, query.limit ? start + query.limit : undefined);
    const agents = await Promise.all(
      entries.map((entry) =>
        agentManifest(core, entry, c.get("origin"), { stats: options.stats, facts })
      ),
    );
    // With a token, the caller's own page may be listed: for the caller only.
    c.header("Cache-Control", session ? "no-store" : "no-cache");
    return c.json({ agents });
  });
  app.all("/agents", () => methodNotAllowed("GET"));

  app.get("/agents/:name", async (c) => {
    const name = c.req.param("name");
    const entry = (await agentDirectory(core, await optionalCaller(c))).byName(name);
    if (!entry) throw new AcpHttpError("not_found", `Agent ${name} not found`);
    c.header("Cache-Control", entry.session ? "no-store" : "no-cache");
    return c.json(
      await agentManifest(core, entry, c.get("origin"), { stats: options.stats, facts }),
    );
  });
  app.all("/agents/:name", () => methodNotAllowed("GET"));

  app.post("/runs", async (c) => {
    sameOrigin(c);
    const session = await caller(c);
    const request = parse(RunCreateRequest, await readJson(c, core.limits.maxBodyBytes), "body");
    const directory = await agentDirectory(core, session);
    if (!directory.byName(request.agent_name)) {
      throw new AcpHttpError("not_found", `Agent ${request.agent_name} not found`);
    }
    // A stream holds its connection until the run ends: bounded per client address and in
    // all, taken before the run is created so that a refused stream starts nothing.
    const release = request.mode === "stream" ? core.streams.take(clientOf(c)) : undefined;
    let run: Awaited<ReturnType<typeof runs.create>>;
    try {
      run = await runs.create(session, {
        agentName: request.agent_name,
        sessionAgent: directory.nameOf(session.page),
        sessionId: request.session_id,
        input: request.input,
        client: clientOf(c),
      }, c.req.raw.signal);
    } catch (error) {
      release?.();
      throw error;
    }
    c.header("Run-ID", run.id);
    c.header("Cache-Control", "no-store");
    switch (request.mode) {
      // Each answer waits until other instances can read what it tells (`runs.settled`).
      case "sync": {
        run.start();
        const stopped = await run.stopped();
        await runs.settled(run);
        return c.json(stopped);
      }
      case "async": {
        const created = run.view();
        run.start();
        await runs.settled(run);
        return c.json(created, 202);
      }
      case "stream":
        run.start();
        return holdingSlot(
          streamSSE(c, async (stream) => {
            // `data:` lines only, one event each, as the reference server sends them.
            for await (const event of run.follow()) {
              if (stream.aborted) break;
              await runs.settled(run);
              await stream.writeSSE({ data: JSON.stringify(event) });
            }
          }),
          release ?? (() => {}),
        );
    }
  });
  app.all("/runs", () => methodNotAllowed("POST"));

  app.get(
    "/runs/:id",
    async (c) => c.json(await onRun(c, (session, id) => runs.view(session, id))),
  );
  app.post("/runs/:id", async (c) => {
    sameOrigin(c);
    const run = await onRun(c, (session, id) => runs.view(session, id));
    const id = run.run_id;
    parse(RunResumeRequest, await readJson(c, core.limits.maxBodyBytes), "body");
    if (run.status !== "awaiting") {
      throw new AcpHttpError("run_refused", `Run ${id} has no await request`);
    }
    throw new AcpHttpError(
      "run_refused",
      `Run ${id} waits for the person at the page to confirm the action in the AIM panel; an agent cannot approve it. Read GET /runs/${id} (or its events) until it completes or fails.`,
    );
  });
  app.all("/runs/:id", () => methodNotAllowed("GET, POST"));

  app.get(
    "/runs/:id/events",
    async (c) => c.json({ events: await onRun(c, (session, id) => runs.events(session, id)) }),
  );
  app.all("/runs/:id/events", () => methodNotAllowed("GET"));

  app.post("/runs/:id/cancel", async (c) => {
    sameOrigin(c);
    return c.json(await onRun(c, (session, id) => runs.cancel(session, id)), 202);
  });
  app.all("/runs/:id/cancel", () => methodNotAllowed("POST"));

  app.get("/sessions/:id", async (c) => {
    const session = await caller(c);
    const id = parse(SessionId, c.req.param("id"), "session_id");
    const found = await runs.findSession(session, id);
    if (!found) throw new AcpHttpError("not_found", `Session ${id} not found`);
    c.header("Cache-Control", "no-store");
    return c.json(found);
  });
  app.all("/sessions/:id", () => methodNotAllowed("GET"));

  return app;
}
