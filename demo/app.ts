/**
 * The demo: an approvals control panel. It embeds the bridge through its public API,
 * with the demo users, its own HTTP API guarded by the session's server-side identity, and its
 * data and audit trail in SQLite under `--data`.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { z } from "zod";
import {
  AimError,
  type AppEnv,
  AuditLog,
  DEFAULT_AUDIT_RETENTION_DAYS,
  readJson,
  requireSession,
  serve,
  type ServedBridge,
  type ServeOptions,
} from "../bridge/mod.ts";
import type { Hono } from "hono";
import type { BridgeCore } from "../bridge/core/bridge.ts";
import { CURRENCIES, DemoError, DemoStore, type RequestStatus } from "./data.ts";

/** The demo's static pages. */
export const DEMO_SITE = fileURLToPath(new URL("./site", import.meta.url));

/** Options of {@linkcode startDemo}. */
export interface DemoOptions extends Partial<Omit<ServeOptions, "root" | "users" | "audit">> {
  /** Folder for `demo.sqlite` and `audit.sqlite`, created when missing. */
  data: string;
  /**
   * Days the audit log keeps an entry.
   *
   * @default {90}
   */
  auditRetentionDays?: number;
}

/** The defaults of {@linkcode DemoOptions}, as its `@default` tags say (the audit log's). */
export const DEMO_DEFAULTS: { readonly auditRetentionDays: number } = {
  auditRetentionDays: DEFAULT_AUDIT_RETENTION_DAYS,
};

/** A running demo. */
export interface RunningDemo extends AsyncDisposable {
  readonly served: ServedBridge;
  readonly store: DemoStore;
  /** The audit trail; its rows are written once the event loop turns after each answer. */
  readonly audit: AuditLog;
}

const RequestId = z.string().regex(/^req-\d{1,6}$/);
const CommentBody = z.strictObject({ text: z.string().trim().min(1).max(1000) });
const Status = z.enum(["pending", "approved", "rejected"]);
const NewRequest = z.strictObject({
  amount: z.string().regex(/^\d{1,7}(\.\d{1,2})?$/).transform(Number).refine((n) => n > 0),
  currency: z.enum(CURRENCIES),
  purpose: z.string().trim().min(1).max(200),
});

function demoError(error: unknown): never {
  if (error instanceof DemoError) throw new AimError(error.code, error.message);
  throw error;
}

/** The demo's own HTTP API: what the page calls, as the signed-in person. */
export function demoRoutes(store: DemoStore): (app: Hono<AppEnv>, core: BridgeCore) => void {
  return (app, core) => {
    const requestId = (raw: string) => {
      const parsed = RequestId.safeParse(raw);
      if (!parsed.success) throw new AimError("not_found", `There is no request "${raw}".`);
      return parsed.data;
    };
    app.get("/api/requests", async (c) => {
      await requireSession(c, core, { signedIn: true, tab: true });
      const status = c.req.query("status");
      if (status !== undefined && !Status.safeParse(status).success) {
        throw new AimError("bad_request", "status must be pending, approved or rejected.");
      }
      c.header("Cache-Control", "private, no-store");
      return c.json({ requests: store.list(status as RequestStatus | undefined) });
    });
    app.post("/api/requests", async (c) => {
      const session = await requireSession(c, core, { signedIn: true, tab: true });
      const body = NewRequest.safeParse(await readJson(c, 8 * 1024));
      if (!body.success) {
        throw new AimError(
          "bad_request",
          'The body must be {"amount": "250" or "99.50", "currency": "EUR", "USD" or "GBP", "purpose": "<1 to 200 characters>"}.',
        );
      }
      const { amount, currency, purpose } = body.data;
      const requester = session.identity!.name ?? session.identity!.username;
      return c.json({ request: store.create(amount, currency, purpose, requester) }, 201);
    });
    for (const [verb, status] of [["approve", "approved"], ["reject", "rejected"]] as const) {
      app.post(`/api/requests/:id/${verb}`, async (c) => {
        const session = await requireSession(c, core, { signedIn: true, tab: true });
        const id = requestId(c.req.param("id"));
        try {
          return c.json({ request: store.decide(id, status, session.identity!.username) });
        } catch (error) {
          demoError(error);
        }
      });
    }
    app.post("/api/requests/:id/comments", async (c) => {
      const session = await requireSession(c, core, { signedIn: true, tab: true });
      const id = requestId(c.req.param("id"));
      const body = CommentBody.safeParse(await readJson(c, 8 * 1024));
      if (!body.success) {
        throw new AimError(
          "bad_request",
          'The body must be {"text": "<1 to 1000 characters>"}.',
        );
      }
      try {
        return c.json(
          { comment: store.comment(id, body.data.text, session.identity!.username) },
          201,
        );
      } catch (error) {
        demoError(error);
      }
    });
  };
}

/** Starts the demo over `options.data`. */
export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  await Deno.mkdir(options.data, { recursive: true });
  const store = await DemoStore.open(join(options.data, "demo.sqlite"));
  const { auditRetentionDays, ...rest } = options;
  const audit = new AuditLog(join(options.data, "audit.sqlite"), {
    retentionDays: auditRetentionDays ?? DEMO_DEFAULTS.auditRetentionDays,
    onError: (error) => console.error("aim demo: the audit log could not be written:", error),
  });
  const served = serve({
    ...rest,
    root: DEMO_SITE,
    users: store.users,
    audit,
    routes: demoRoutes(store),
  });
  return {
    served,
    store,
    audit,
    async [Symbol.asyncDispose]() {
      await served.shutdown();
      store.close();
    },
  };
}

const DEMO_USAGE = `Usage: deno task start [--port N] [--host H] [--data DIR] [--quiet]

Starts the demo, an approvals control panel, at http://127.0.0.1:8000/control-panel.

Options:
  --port N    port; 0 picks a free one (default 8000)
  --host H    address to listen on (default 127.0.0.1)
  --data DIR  folder for the demo's requests and audit log (default .aim-demo-data)
  --quiet     no request log
  -h, --help  this help
`;

/** The demo's command line (`deno task start`); returns the exit code. */
export async function demoMain(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        data: { type: "string", default: ".aim-demo-data" },
        port: { type: "string", default: "8000" },
        host: { type: "string", default: "127.0.0.1" },
        quiet: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    console.error(`aim demo: ${error instanceof Error ? error.message : error}\n\n${DEMO_USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(DEMO_USAGE);
    return 0;
  }
  const port = Number(values.port);
  if (!/^\d{1,5}$/.test(values.port) || port > 65535) {
    console.error(`aim demo: --port must be a whole number from 0 to 65535, got "${values.port}"`);
    return 2;
  }
  let demo: RunningDemo;
  try {
    demo = await startDemo({
      data: values.data,
      port,
      hostname: values.host,
      onError: (error) => console.error("aim demo: internal error:", error),
      log: values.quiet
        ? undefined
        : (e) =>
          console.log(`${new Date().toISOString()} ${e.method} ${e.path} ${e.status} ${e.ms}ms`),
      onListen: ({ url }) => {
        console.log(`aim demo: ${url}/control-panel (data in ${values.data})`);
        console.log("aim demo: sign in as alice / wonderland or bob / builder");
      },
    });
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      console.error(
        `aim demo: port ${port} is already in use; start on another one with ` +
          `'deno task start --port 8080' (--port 0 picks a free one)`,
      );
      return 1;
    }
    console.error(
      `aim demo: cannot listen on ${values.host}:${port}: ${
        error instanceof Error ? error.message : error
      }`,
    );
    return 1;
  }
  const stop = () => demo[Symbol.asyncDispose]();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await demo.served.finished;
  return 0;
}

if (import.meta.main) Deno.exit(await demoMain(Deno.args));
