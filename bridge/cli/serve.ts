/**
 * `aim serve [ROOT]`: the bridge over a site folder, with request logs and a
 * graceful shutdown on SIGINT and SIGTERM.
 *
 * @module
 */
import { firstIssue } from "../wire/issue.ts";
import { join } from "node:path";
import { z } from "zod";
import {
  AuditLog,
  createUserStore,
  DEFAULT_AUDIT_RETENTION_DAYS,
  isWildcard,
  MetricsListenError,
  type MetricsListenOptions,
  parseMetricsAddress,
  type RequestLogEntry,
  serve,
  type ServedBridge,
  type UserRecord,
} from "../mod.ts";
import { checkPageQuery, CliError, type CliIO, Exit, parseFlags } from "./common.ts";
import { isSitemapPath } from "../upstream/sitemap.ts";
import { fileURLToPath } from "node:url";

/** The demo site that ships with aim; inside a compiled binary, its embedded copy. */
export function demoSiteRoot(): string {
  return fileURLToPath(new URL("../../demo/site", import.meta.url));
}

export const SERVE_USAGE = `Usage: aim serve [ROOT] [options]

Serves the static site in ROOT (default: the current folder) with the bridge: manifests at
<page>.json and <page>.toon, the site map, sessions, invocation and the tab channel. With
--upstream URL, stands in front of the app at URL instead (docs/upstream.md): aim answers its
own routes and forwards every other request to the app.

Options:
  --port N             port; 0 picks a free one (default 8000)
  --host H             address to listen on (default 127.0.0.1)
  --public-url URL     the origin agents use, for absolute URLs behind a proxy
  --cert FILE          HTTPS certificate (PEM); needs --key; cookies become Secure
  --key FILE           HTTPS private key (PEM)
  --trust-proxy        honour X-Forwarded-Proto and X-Forwarded-Host (and, with --upstream,
                       pass the proxy's X-Forwarded-For and Forwarded hops on to the app)
  --redis URL          redis://HOST:PORT/DB: share sessions with every bridge on that Redis,
                       to run several behind a load balancer (docs/scaling.md)
  --allowed-host NAME  a Host name allowed besides loopback names (repeatable)
  --data DIR           folder for the audit log (created); default: kept in memory
  --audit-days N       days the audit log keeps an entry (default 90)
  --users FILE         JSON list of {"username", "passwordHash", "name"?} for login
  --upstream URL       the app to stand in front of (http:// or https://), in place of ROOT
  --page-query NAME    a query parameter that is part of a page's identity, e.g. id for
                       /edit.php?id=1 (repeatable; docs/upstream.md)
  --upstream-host      send the app its own host name in Host, not the browser's
  --upstream-sitemap P the path of the app's site map, when not /sitemap.xml (e.g.
                       "/doku.php?do=sitemap"); its pages are the public site map's
  --no-forwarded       set no X-Forwarded-*, Forwarded or X-Real-IP on requests to the app
                       (a client's own are dropped all the same)
  --upstream-timeout S seconds the app may take to answer with its headers (default 30)
  --demo               run the demo app that ships with aim (its pages, users, API and
                       data in --data, default .aim-demo-data) instead of serving ROOT
  --max-streams N      event streams and long polls open at once in all (default 1024, at
                       most a quarter of the file limit; docs/security.md)
  --metrics ADDR       serve Prometheus metrics at http://ADDR/__aim/metrics, on a listener of
                       their own: PORT (on 127.0.0.1) or HOST:PORT (docs/scaling.md); off
                       by default
  --log-format F       text (default) or json: one line per request
  --quiet              no request log
  -h, --help           this help
`;

const UsersFile = z.array(z.strictObject({
  username: z.string().min(1).max(200),
  passwordHash: z.string().regex(
    /^scrypt\$\d{1,7}\$\d{1,2}\$\d{1,2}\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/,
    "is not a hash made by 'aim hash-password'",
  ),
  name: z.string().max(200).optional(),
}));

async function readText(file: string, what: string): Promise<string> {
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound
      ? "no such file"
      : error instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new CliError(`cannot read ${what} ${file}: ${reason}`);
  }
}

/** The `--upstream` URL, checked. */
function upstreamUrl(text: string): URL {
  const url = URL.parse(text);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) {
    throw new CliError(
      `--upstream must be an http(s) URL such as http://127.0.0.1:8080, got "${text}"`,
      Exit.Usage,
    );
  }
  return url;
}

/** Checks that ROOT is a folder. */
async function checkRoot(root: string): Promise<void> {
  try {
    if (!(await Deno.stat(root)).isDirectory) throw new CliError(`ROOT ${root} is not a folder`);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof Deno.errors.NotFound) throw new CliError(`ROOT ${root} does not exist`);
    throw new CliError(
      `cannot use ROOT ${root}: ${error instanceof Error ? error.message : error}`,
    );
  }
}

/** Reads and checks a users file. */
export async function loadUsers(file: string): Promise<UserRecord[]> {
  const text = await readText(file, "users file");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`users file ${file} is not valid JSON`);
  }
  const parsed = UsersFile.safeParse(json);
  if (!parsed.success) {
    throw new CliError(
      `users file ${file}: ${firstIssue(parsed.error, "top level")} ` +
        `(expected a list of {"username", "passwordHash"}; make hashes with 'aim hash-password')`,
    );
  }
  return parsed.data;
}

function formatLog(format: string, entry: RequestLogEntry): string {
  const time = new Date().toISOString();
  if (format === "json") return JSON.stringify({ time, ...entry }) + "\n";
  return `${time} ${entry.method} ${entry.path} ${entry.status} ${entry.ms}ms\n`;
}

/** The `--metrics` address, checked: never the bridge's own port (on any address). */
function metricsAddress(
  text: string,
  bridge: { hostname: string; port: number },
): MetricsListenOptions {
  const address = parseMetricsAddress(text);
  if (typeof address === "string") throw new CliError(address, Exit.Usage);
  if (address.port !== 0 && address.port === bridge.port) {
    throw new CliError(
      `--metrics must be another port than the bridge's (${bridge.port}): the metrics are ` +
        `never served where agents and browsers reach the bridge`,
      Exit.Usage,
    );
  }
  return address;
}

/** Runs `aim serve`; resolves when the server has stopped. */
export async function serveCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    port: { type: "string" },
    host: { type: "string" },
    "public-url": { type: "string" },
    redis: { type: "string" },
    cert: { type: "string" },
    key: { type: "string" },
    "trust-proxy": { type: "boolean" },
    "allowed-host": { type: "string", multiple: true },
    data: { type: "string" },
    "audit-days": { type: "string" },
    users: { type: "string" },
    demo: { type: "boolean" },
    upstream: { type: "string" },
    "upstream-host": { type: "boolean" },
    "upstream-sitemap": { type: "string" },
    "page-query": { type: "string", multiple: true },
    "no-forwarded": { type: "boolean" },
    "upstream-timeout": { type: "string" },
    "log-format": { type: "string" },
    "max-streams": { type: "string" },
    metrics: { type: "string" },
    quiet: { type: "boolean" },
  }, SERVE_USAGE);
  if (values.help) {
    io.stdout(SERVE_USAGE);
    return Exit.Ok;
  }
  if (positionals.length > 1) {
    throw new CliError(`serve takes one ROOT, got ${positionals.length}`, Exit.Usage);
  }
  if (values.demo && positionals.length) {
    throw new CliError("give either ROOT or --demo", Exit.Usage);
  }
  if (values.demo && values.users) {
    throw new CliError("--demo has its own users; --users goes with a ROOT", Exit.Usage);
  }
  const upstream = values.upstream === undefined ? undefined : upstreamUrl(values.upstream);
  if (upstream && (values.demo || positionals.length)) {
    throw new CliError("give either ROOT, --demo or --upstream", Exit.Usage);
  }
  const pageQuery = checkPageQuery(values["page-query"]);
  const sitemap = values["upstream-sitemap"];
  if (sitemap !== undefined && (!upstream || !isSitemapPath(sitemap))) {
    throw new CliError(
      upstream
        ? `--upstream-sitemap must be a path of the app such as /sitemap_index.xml, got "${sitemap}"`
        : "--upstream-sitemap goes with --upstream",
      Exit.Usage,
    );
  }
  const upstreamTimeout = values["upstream-timeout"];
  if (
    upstreamTimeout !== undefined && !(/^\d+(\.\d+)?$/.test(upstreamTimeout) &&
      Number(upstreamTimeout) > 0)
  ) {
    throw new CliError(
      `--upstream-timeout must be a positive number of seconds, got "${upstreamTimeout}"`,
      Exit.Usage,
    );
  }
  const root = values.demo ? demoSiteRoot() : positionals[0] ?? ".";
  if (!upstream) await checkRoot(root);
  const port = Number(values.port ?? "8000");
  if (!/^\d+$/.test(values.port ?? "8000") || port > 65535) {
    throw new CliError(
      `--port must be a whole number from 0 to 65535, got "${values.port}"`,
      Exit.Usage,
    );
  }
  const maxStreams = values["max-streams"];
  if (maxStreams !== undefined && (!/^\d{1,7}$/.test(maxStreams) || Number(maxStreams) < 1)) {
    throw new CliError(
      `--max-streams must be a whole number from 1, got "${maxStreams}"`,
      Exit.Usage,
    );
  }
  const metrics = values.metrics === undefined ? undefined : metricsAddress(values.metrics, {
    hostname: values.host ?? "127.0.0.1",
    port,
  });
  const format = values["log-format"] ?? "text";
  if (format !== "text" && format !== "json") {
    throw new CliError(`--log-format must be text or json, got "${format}"`, Exit.Usage);
  }
  let publicUrl: string | undefined;
  if (values["public-url"] !== undefined) {
    try {
      const url = new URL(values["public-url"]);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
      publicUrl = url.origin;
    } catch {
      throw new CliError(
        `--public-url must be an http(s) URL, got "${values["public-url"]}"`,
        Exit.Usage,
      );
    }
  }
  let redis: string | undefined;
  if (values.redis !== undefined) {
    const url = URL.parse(values.redis);
    if (!url || (url.protocol !== "redis:" && url.protocol !== "rediss:") || !url.hostname) {
      throw new CliError(
        `--redis must be a redis:// URL such as redis://127.0.0.1:6379/0, got "${values.redis}"`,
        Exit.Usage,
      );
    }
    redis = values.redis;
  }
  if (Boolean(values.cert) !== Boolean(values.key)) {
    throw new CliError("--cert and --key go together", Exit.Usage);
  }
  const cert = values.cert ? await readText(values.cert, "certificate") : undefined;
  const key = values.key ? await readText(values.key, "key") : undefined;
  const users = values.users ? createUserStore(await loadUsers(values.users)) : undefined;
  const auditDays = Number(values["audit-days"] ?? DEFAULT_AUDIT_RETENTION_DAYS);
  if (!/^\d+(\.\d+)?$/.test(values["audit-days"] ?? "90") || !(auditDays > 0)) {
    throw new CliError(
      `--audit-days must be a positive number of days, got "${values["audit-days"]}"`,
      Exit.Usage,
    );
  }
  let audit: AuditLog | undefined;
  if (values.data && !values.demo) {
    try {
      await Deno.mkdir(values.data, { recursive: true });
      audit = new AuditLog(join(values.data, "audit.sqlite"), {
        retentionDays: auditDays,
        onError: (error) =>
          io.stderr(`aim: the audit log could not be written, retrying: ${error}\n`),
      });
    } catch (error) {
      throw new CliError(
        `cannot use data folder ${values.data}: ${error instanceof Error ? error.message : error}`,
      );
    }
  }
  let served: ServedBridge;
  let stopDemo: (() => PromiseLike<void>) | undefined;
  const options = {
    port,
    hostname: values.host ?? "127.0.0.1",
    // The command owns its process: every connection holds a file, so it takes all it may.
    raiseFileLimit: true,
    cert,
    key,
    publicUrl,
    redis,
    trustProxy: values["trust-proxy"] ?? false,
    streams: maxStreams === undefined ? undefined : { total: Number(maxStreams) },
    metrics,
    allowedHosts: values["allowed-host"]?.map((h) => h.toLowerCase()),
    log: values.quiet ? undefined : (entry: RequestLogEntry) => io.stdout(formatLog(format, entry)),
    onError: (error: unknown) =>
      io.stderr(`aim: internal error: ${error instanceof Error ? error.stack : error}\n`),
    onListen: ({ url }: { url: string }) =>
      io.stdout(`aim: serving ${upstream ? upstream.origin : root} at ${url}\n`),
    onStatus: (message: string) => io.stderr(`aim: ${message}\n`),
  };
  try {
    if (values.demo) {
      // The demo app itself: its users, its API and its data, not only its pages.
      const { startDemo } = await import("../../demo/app.ts");
      const demo = await startDemo({
        ...options,
        data: values.data ?? ".aim-demo-data",
        auditRetentionDays: auditDays,
      });
      served = demo.served;
      stopDemo = () => demo[Symbol.asyncDispose]();
    } else {
      served = serve({
        ...options,
        ...(upstream
          ? {
            upstream,
            proxy: {
              preserveHost: !values["upstream-host"],
              forwarded: !values["no-forwarded"],
              trustForwarded: values["trust-proxy"] ?? false,
              ...(upstreamTimeout ? { timeoutMs: Number(upstreamTimeout) * 1000 } : {}),
            },
            ...(sitemap ? { upstreamCatalog: { sitemap } } : {}),
          }
          : { root }),
        ...(pageQuery.length ? { pageQuery } : {}),
        users,
        audit,
      });
    }
  } catch (error) {
    audit?.close();
    if (error instanceof MetricsListenError) throw new CliError(error.message);
    if (error instanceof Deno.errors.AddrInUse) {
      throw new CliError(
        `port ${port} is already in use; choose another with --port N (--port 0 picks a free one)`,
      );
    }
    if (cert && error instanceof Error && !(error instanceof URIError)) {
      throw new CliError(`cannot start HTTPS: ${error.message}`);
    }
    // An address that does not resolve or is not this machine's.
    throw new CliError(
      `cannot listen on ${values.host ?? "127.0.0.1"}:${port}: ${
        error instanceof Error ? error.message : error
      }`,
    );
  }
  // Whatever one request or socket does, the process goes on: a rejection nobody awaited is a
  // bug to log, never a reason to drop every session.
  const survive = (event: PromiseRejectionEvent | ErrorEvent) => {
    event.preventDefault();
    options.onError("reason" in event ? event.reason : event.error);
  };
  addEventListener("unhandledrejection", survive);
  addEventListener("error", survive);
  if (served.metricsUrl) {
    // The warning first: whoever reads the address has read it too.
    if (metrics && isWildcard(metrics.hostname ?? "")) {
      io.stderr(
        `aim: the metrics listen on every interface: keep port ${
          new URL(served.metricsUrl).port
        } from the internet (docs/security.md, "Metrics")\n`,
      );
    }
    io.stdout(`aim: metrics at ${served.metricsUrl}\n`);
  }
  if (redis) {
    // The address only: a URL may hold a password.
    const { host } = new URL(redis);
    served.ready.then(
      () => io.stdout(`aim: sharing sessions through Redis at ${host}\n`),
      () => {},
    );
  }
  const stop = () => {
    io.stdout("aim: shutting down\n");
    stopDemo ? stopDemo() : served.shutdown();
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await served.finished;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  removeEventListener("unhandledrejection", survive);
  removeEventListener("error", survive);
  io.stdout("aim: stopped\n");
  return Exit.Ok;
}
