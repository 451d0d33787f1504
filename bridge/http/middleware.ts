/**
 * The middleware every request goes through: the access log, who is asking (the
 * bridge's own origin as the client sees it, and the client's address), the Host check
 * against DNS rebinding, and `nosniff`.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { AimError, badRequest } from "../errors/aim_error.ts";
import type { AppEnv } from "./env.ts";
import {
  clientAddress,
  isAllowedHost,
  type OriginOptions,
  type RequestHead,
  requestOrigin,
} from "./request.ts";

/** One answered request, for the log: never a token, cookie, body or query string. */
export interface RequestLogEntry {
  /** The request's method. */
  method: string;
  /** The request's path, without its query string. */
  path: string;
  /** The status it was answered with. */
  status: number;
  /** How long the handlers took to make the response, in milliseconds (to a tenth). */
  ms: number;
}

/** The health endpoint, which load balancers ask every second or so. */
const HEALTH_PATH = "/__aim/health";

/**
 * Calls `log` once per answered request, refused ones included; never for a health check that
 * passed (`GET /__aim/health` answered 2xx), which a load balancer sends every second: it would
 * fill the log with nothing to read.
 */
export function accessLog(log: (entry: RequestLogEntry) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    if (c.req.path === HEALTH_PATH && c.res.status < 300) return;
    log({
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  };
}

/** Options of {@linkcode identify}. */
export interface IdentifyOptions extends OriginOptions {
  /** When set, only loopback names and these host names may be in `Host`. */
  allowedHosts?: readonly string[] | null;
}

/**
 * The origin a request was sent to, or the error that refuses it: 400 for a `Host` that is no
 * host (`127.0.0.1:P.evil`, `a b`), refused before any URL is made; 403 `forbidden_host` when
 * the Host check is on and the name is not one the bridge answers to.
 */
export function checkedOrigin(req: RequestHead, options: IdentifyOptions): string | AimError {
  const origin = requestOrigin(req, options);
  if (origin === null) return badRequest("The Host header is not a valid host name and port.");
  // HTTP/2 carries the host in :authority, which only the URL shows; an absolute request
  // line names a host of its own, which the origin (and so every URL in a manifest) comes
  // from: both must be allowed.
  const allowed = options.allowedHosts;
  const authority = origin.slice(origin.indexOf("//") + 2);
  if (
    allowed &&
    !(isAllowedHost(req.header("Host") ?? authority, allowed) && isAllowedHost(authority, allowed))
  ) {
    return new AimError("forbidden_host", "This bridge answers only to its own host names.");
  }
  return origin;
}

/**
 * Sets the variables `origin` and `client` (read them with `c.get`: `c.var` copies all of them
 * on every read); refuses a malformed `Host` (400) and, when the Host check is on, a host name
 * the bridge does not answer to (403 `forbidden_host`); marks every answer `nosniff`. One
 * middleware for all of it: it runs on every request.
 */
export function identify(options: IdentifyOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = checkedOrigin(c.req, options);
    if (origin instanceof AimError) return origin.getResponse();
    c.set("origin", origin);
    c.set("client", clientAddress(c, options));
    await next();
    if (!c.res.headers.has("X-Content-Type-Options")) {
      c.res.headers.set("X-Content-Type-Options", "nosniff");
    }
  };
}
