/**
 * The proxy before routing: a request for the app (no aim route, no manifest) is forwarded
 * without going through the bridge's router, after the same Host check; everything else, and
 * every request the check refuses, goes on to the full app.
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import { checkedOrigin, type IdentifyOptions, type RequestLogEntry } from "../http/middleware.ts";
import { type AimPaths, isAimPath } from "./routes.ts";
import { badGateway, type UpstreamProxy } from "./proxy.ts";

/** Options of {@linkcode proxyFirst}. */
export interface ProxyFirstOptions extends IdentifyOptions {
  /** Called once per answered request. */
  log?: ((entry: RequestLogEntry) => void) | undefined;
  /** Called for errors that are not the proxy's own answers (bugs). */
  onError?: ((error: unknown) => void) | undefined;
}

/** The client's address: the socket's peer, or with `trustProxy` the last forwarded hop. */
function clientOf(request: Request, info: Deno.ServeHandlerInfo | undefined, trust: boolean) {
  if (trust) {
    const hops = request.headers.get("x-forwarded-for")?.split(",");
    const last = hops?.[hops.length - 1]?.trim();
    if (last && /^[0-9A-Fa-f.:[\]]{2,64}$/.test(last)) return last.toLowerCase();
  }
  return (info?.remoteAddr as Deno.NetAddr | undefined)?.hostname ?? "unknown";
}

/**
 * A handler that forwards the app's requests before routing, or answers undefined for the
 * bridge's router: aim's routes, `.json` and `.toon` paths (manifests, or the app's own JSON
 * once the manifest route has looked), and requests whose Host the check refuses.
 */
export function proxyFirst(
  proxy: UpstreamProxy,
  paths: () => AimPaths,
  options: ProxyFirstOptions,
): (request: Request, info?: Deno.ServeHandlerInfo) => Promise<Response> | undefined {
  const origins = new BoundedMap<string, string | null>(256);
  const trust = options.trustProxy ?? false;
  return (request, info) => {
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    if (pathStart < 0) return undefined;
    const query = url.indexOf("?", pathStart);
    const path = url.slice(pathStart, query < 0 ? undefined : query);
    if (path.endsWith(".json") || path.endsWith(".toon") || isAimPath(paths(), path)) {
      return undefined;
    }
    const headers = request.headers;
    // The origin depends on Host and the URL's authority (and forwarded headers when trusted).
    const key = `${url.slice(0, pathStart)} ${headers.get("host")}` +
      (trust ? ` ${headers.get("x-forwarded-proto")} ${headers.get("x-forwarded-host")}` : "");
    let origin = origins.get(key);
    if (origin === undefined) {
      const verdict = checkedOrigin(
        { url, header: (name) => headers.get(name) ?? undefined },
        options,
      );
      origin = verdict instanceof AimError ? null : verdict;
      origins.set(key, origin);
    }
    if (origin === null) return undefined;
    const started = options.log ? performance.now() : 0;
    const answered = proxy.forwardRequest(request, {
      origin,
      client: clientOf(request, info, trust),
    }).catch((error) => {
      if (!(error instanceof AimError)) {
        options.onError?.(error);
        error = badGateway();
      }
      return error.getResponse();
    });
    if (!options.log) return answered;
    return answered.then((response) => {
      options.log!({
        method: request.method,
        path,
        status: response.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
      return response;
    });
  };
}
