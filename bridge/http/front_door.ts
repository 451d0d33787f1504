/**
 * The front door: one handler before hono's routing that decides, per request, whether it is a
 * repeated manifest read it answers at once (bridge/http/fast_reads.ts), a request for the app
 * behind aim that it forwards (`aim serve --upstream`), a spelling of one of aim's routes that
 * servers read differently (refused, 400), or the router's. One Host verdict per scheme,
 * authority and `Host`, remembered for the few a bridge sees, serves every answer it gives
 * itself, and one call logs each of them. What it leaves (undefined) goes to the router, which
 * answers every case, refusals of a Host included.
 *
 * @module
 */
import { AimError, badRequest, serverError } from "../errors/aim_error.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import type { BridgeCore } from "../core/bridge.ts";
import { checkedOrigin, type IdentifyOptions, type RequestLogEntry } from "./middleware.ts";
import { manifestReads, type ManifestReadsOptions } from "./fast_reads.ts";
import { addressOf } from "./request.ts";

/** Who sent a request: the origin it was sent to (as the client sees aim), and its addresses. */
export interface RequestFrom {
  /** The origin the client reached aim at. */
  origin: string;
  /** The client's address: the socket's peer, or with `trustProxy` the last forwarded hop. */
  client: string;
  /** The socket's peer: the client, or the proxy in front of aim. */
  peer: string;
}

/**
 * What a request path is in front of an app (bridge/upstream/routes.ts): one of aim's routes
 * spelled plainly, a plain `.json` path (a manifest, or the app's own JSON once the manifest
 * route has looked), a spelling of one of aim's routes servers read differently, or the app's.
 */
export type PathVerdict = "aim" | "manifest" | "ambiguous" | "app";

/** What the front door needs of the app behind aim. */
export interface AppDoor {
  /** What a request path is. */
  verdict(path: string): PathVerdict;
  /** Forwards a request to the app; rejects with an `AimError` the client gets. */
  forward(request: Request, from: RequestFrom): Promise<Response>;
}

/** The defaults of {@linkcode FrontDoorOptions}, as its `@default` tags say. */
export const FRONT_DOOR_DEFAULTS: { readonly fastReads: boolean } = { fastReads: true };

/** Options of {@linkcode frontDoor}. */
export interface FrontDoorOptions extends IdentifyOptions, ManifestReadsOptions {
  /**
   * Answer repeated manifest reads before routing.
   *
   * @default {true}
   */
  fastReads?: boolean | undefined;
  /** In front of an app: which paths are the app's, and how to forward to it. */
  app?: AppDoor | undefined;
  /** Called once per request the front door answers (the router logs the others). */
  log?: ((entry: RequestLogEntry) => void) | undefined;
  /** Called for errors that are not the proxy's own answers (bugs), without request data. */
  onError?: ((error: unknown) => void) | undefined;
}

/** The front door's handler: an answer, or undefined for the router. */
export type FrontDoor = (
  request: Request,
  info?: Deno.ServeHandlerInfo,
) => Response | Promise<Response> | undefined;

/** Host verdicts remembered: a bridge answers to a few names; anyone may send others. */
const KEPT_HOSTS = 256;

/** The verdict on a Host, and the scheme and authority (and forwarded headers) it holds for. */
interface HostVerdict {
  prefix: string;
  forwarded: string;
  /** The origin, or null when the check refuses the request. */
  origin: string | null;
}

/**
 * The front door of a bridge. It answers itself only:
 *
 * - a repeated manifest read (a plain `GET` of `<page>.json` or `.toon`) whose answer is known;
 * - in front of an app, a request whose path is the app's (forwarded), and a spelling of one of
 *   aim's routes that servers read differently (400 `bad_request`, never forwarded);
 *
 * each only from a Host the bridge answers to.
 */
export function frontDoor(core: BridgeCore, options: FrontDoorOptions): FrontDoor {
  // With a proxy trusted, the origin of a manifest hangs on forwarded headers: the full route's.
  const reads = !(options.fastReads ?? FRONT_DOOR_DEFAULTS.fastReads) || options.trustProxy
    ? undefined
    : manifestReads(core, options);
  const app = options.app;
  if (!reads && !app) return () => undefined;
  const trust = options.trustProxy ?? false;
  const log = options.log;
  const instance = options.instance;
  /** An error's answer, as the router gives it (which instance answered, when several share). */
  const errorAnswer = (error: AimError): Response => {
    const response = error.getResponse();
    if (instance) response.headers.set("X-Aim-Instance", instance);
    return response;
  };
  const hosts = new BoundedMap<string, HostVerdict>(KEPT_HOSTS);

  /** The origin of a request, or null when the Host check refuses it: one cache for all. */
  function originOf(request: Request, url: string, pathStart: number): string | null {
    const headers = request.headers;
    const host = headers.get("Host") ?? "";
    const forwarded = trust
      ? `${headers.get("X-Forwarded-Proto")}\n${headers.get("X-Forwarded-Host")}`
      : "";
    let known = hosts.get(host);
    if (
      known === undefined || known.prefix.length !== pathStart || !url.startsWith(known.prefix) ||
      known.forwarded !== forwarded
    ) {
      const verdict = checkedOrigin(
        { url, header: (name) => headers.get(name) ?? undefined },
        options,
      );
      known = {
        prefix: url.slice(0, pathStart),
        forwarded,
        origin: verdict instanceof AimError ? null : verdict,
      };
      hosts.set(host, known);
    }
    return known.origin;
  }

  function logged(request: Request, path: string, started: number, response: Response) {
    log?.({
      method: request.method,
      path,
      status: response.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
    return response;
  }

  function forward(
    door: AppDoor,
    request: Request,
    from: RequestFrom,
    path: string,
    started: number,
  ): Promise<Response> {
    const answered = door.forward(request, from).catch((error) => {
      if (!(error instanceof AimError)) {
        // A bug (the proxy answers the app's failures itself): logged, answered as the router does.
        options.onError?.(error);
        error = serverError(error);
      }
      return errorAnswer(error);
    });
    return log ? answered.then((response) => logged(request, path, started, response)) : answered;
  }

  return (request, info) => {
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    if (pathStart < 0) return undefined;
    const query = url.indexOf("?", pathStart);
    const path = query < 0 ? url.slice(pathStart) : url.slice(pathStart, query);
    const verdict = app ? app.verdict(path) : "manifest";
    if (verdict === "aim" || verdict === "manifest") {
      if (!reads || query >= 0 || request.method !== "GET") return undefined;
      if (!path.endsWith(".json") && !path.endsWith(".toon")) return undefined;
      const started = log ? performance.now() : 0;
      const origin = originOf(request, url, pathStart);
      if (origin === null) return undefined;
      const answer = reads(request, url, pathStart, origin);
      return answer && (log ? logged(request, path, started, answer) : answer);
    }
    const started = log ? performance.now() : 0;
    const origin = originOf(request, url, pathStart);
    // Refused: the router answers the refusal as it does for every route.
    if (origin === null) return undefined;
    if (verdict === "ambiguous") {
      return logged(request, path, started, errorAnswer(ambiguousPath(path)));
    }
    const peer = (info?.remoteAddr as Deno.NetAddr | undefined)?.hostname ?? "unknown";
    const client = trust ? addressOf(request.headers.get("X-Forwarded-For"), peer) : peer;
    return forward(app!, request, { origin, client, peer }, path, started);
  };
}

/** 400 `bad_request` for a spelling of one of aim's routes that servers may read differently. */
export function ambiguousPath(path: string): AimError {
  return badRequest(
    `The path ${
      path.slice(0, 200)
    } spells one of aim's routes in a way servers read differently (an escape, a ';' parameter, ` +
      "a doubled slash, a dot segment or another case); send it as the route is named.",
  );
}

/**
 * The front door of a bridge that stands in front of no app: repeated manifest reads only
 * (tests call it to see what the hot path answers).
 */
export function fastReads(
  core: BridgeCore,
  options: Omit<FrontDoorOptions, "app">,
): (request: Request) => Response | undefined {
  const door = frontDoor(core, options);
  return (request) => door(request) as Response | undefined;
}
