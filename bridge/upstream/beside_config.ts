/**
 * What the nginx and HAProxy configurations of `aim proxy-config` share: their options, how aim is
 * started beside the web server, and the answer the web server gives for aim's routes while aim is
 * down.
 *
 * @module
 */
import type { BesidePatterns } from "./beside_paths.ts";

/** Options of {@linkcode nginxConfig} and {@linkcode haproxyConfig}. */
export interface WebServerConfigOptions {
  /** The app's origin, where the web server sends everything that is not aim's. */
  upstream: URL;
  /** aim's origin: `aim serve --upstream <upstream>` listening there. */
  aim: URL;
  /**
   * What the web server listens on: a port, or an address and a port.
   *
   * @default {"80"}
   */
  listen?: string | undefined;
  /**
   * The site's host names (nginx `server_name`, aim's `--allowed-host`).
   *
   * @default {[]}
   */
  serverNames?: readonly string[] | undefined;
  /** The patterns of aim's requests, from the routes aim registered (beside_paths.ts). */
  patterns: BesidePatterns;
}

/** The defaults of {@linkcode WebServerConfigOptions}, as its `@default` tags say. */
export const BESIDE_DEFAULTS: { readonly listen: string; readonly serverNames: readonly string[] } =
  {
    listen: "80",
    serverNames: [],
  };

/** The `error` code of the web server's answer for aim's routes while aim is down. */
export const AIM_DOWN_CODE = "aim_unavailable";

/** The body of the web server's 503 for aim's routes while aim is down (no quote in it). */
export const AIM_DOWN_BODY: string = JSON.stringify({
  error: AIM_DOWN_CODE,
  message: "aim is not answering right now; the site's pages still are. Retry in a few seconds.",
}).replaceAll("'", "\u2019");

/** Seconds a client is told to wait before it asks aim again. */
export const AIM_DOWN_RETRY_AFTER = 5;

/** `host:port` of an origin, the port written even when it is the scheme's default. */
export function hostPort(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
}

/** The `aim serve` command that runs aim beside the web server, for the configuration's header. */
export function aimCommand(options: WebServerConfigOptions): string {
  return [
    "aim serve",
    `--upstream ${options.upstream.origin}`,
    `--host ${options.aim.hostname.replace(/^\[(.*)\]$/, "$1")}`,
    `--port ${options.aim.port || (options.aim.protocol === "https:" ? "443" : "80")}`,
    "--trust-proxy",
    // aim allows host names one by one: a wildcard of nginx's is no name of aim's.
    ...(options.serverNames ?? BESIDE_DEFAULTS.serverNames).filter((name) => !name.startsWith("*"))
      .map((name) => `--allowed-host ${name}`),
  ].join(" ");
}
