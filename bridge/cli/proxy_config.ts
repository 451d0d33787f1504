/**
 * `aim proxy-config nginx|haproxy --upstream URL [--aim URL]`: prints the configuration of the
 * site's web server with aim beside it, off the page path (docs/upstream.md, "Production: aim
 * beside your web server"). The routes it sends to aim are the ones this aim registers.
 *
 * @module
 */
import { createBridge } from "../mod.ts";
import { besidePatterns } from "../upstream/beside_paths.ts";
import type { WebServerConfigOptions } from "../upstream/beside_config.ts";
import { nginxConfig } from "../upstream/beside_nginx.ts";
import { haproxyConfig } from "../upstream/beside_haproxy.ts";
import { CliError, type CliIO, Exit, parseFlags } from "./common.ts";

export const PROXY_CONFIG_USAGE = `Usage: aim proxy-config nginx|haproxy --upstream URL [options]

Prints the configuration of the site's web server (nginx or HAProxy) with aim beside it, off the
page path: people's pages go straight to the app, and aim's routes, manifests and requests
carrying a credential aim may have issued go to aim, which runs as
'aim serve --upstream URL --port N --trust-proxy' (docs/upstream.md, "Production: aim beside
your web server"). Write it again after upgrading aim: its routes come from aim's code.

Options:
  --upstream URL       the app (http:// or https://, an origin such as http://127.0.0.1:8080)
  --aim URL            where aim listens (default http://127.0.0.1:8000)
  --listen ADDR        where the web server listens: a port, or ADDRESS:PORT (default 80)
  --server-name NAME   the site's host name (repeatable): nginx's server_name, and aim's
                       --allowed-host in the command printed with it
  -h, --help           this help
`;

/** An http(s) origin given as `flag`, checked: no path, query, fragment or user. */
function originOf(flag: string, text: string): URL {
  const url = URL.parse(text);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) {
    throw new CliError(
      `${flag} must be an http(s) URL such as http://127.0.0.1:8080, got "${text}"`,
      Exit.Usage,
    );
  }
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    throw new CliError(
      `${flag} must be an origin (scheme, host and port, no path), got "${text}"`,
      Exit.Usage,
    );
  }
  return url;
}

/** A `--listen` value: `80`, `127.0.0.1:8080` or `[::1]:8080`. */
function listenOf(text: string): string {
  const match = /^(?:(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]|\*):)?(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) {
    throw new CliError(
      `--listen must be a port or ADDRESS:PORT such as 80 or 127.0.0.1:8080, got "${text}"`,
      Exit.Usage,
    );
  }
  return text;
}

/** Runs `aim proxy-config`. */
export function proxyConfigCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    upstream: { type: "string" },
    aim: { type: "string" },
    listen: { type: "string" },
    "server-name": { type: "string", multiple: true },
  }, PROXY_CONFIG_USAGE);
  if (values.help) {
    io.stdout(PROXY_CONFIG_USAGE);
    return Promise.resolve(Exit.Ok);
  }
  const usage = { usage: PROXY_CONFIG_USAGE };
  if (positionals.length !== 1 || !["nginx", "haproxy"].includes(positionals[0]!)) {
    throw new CliError(
      positionals.length === 0
        ? "name the web server: aim proxy-config nginx or aim proxy-config haproxy"
        : positionals.length > 1
        ? `proxy-config takes one web server, got ${positionals.length}: ${positionals.join(" ")}`
        : `proxy-config writes for nginx or haproxy, not "${positionals[0]}"`,
      Exit.Usage,
      usage,
    );
  }
  if (values.upstream === undefined) {
    throw new CliError("--upstream URL is required: the app's origin", Exit.Usage, usage);
  }
  const upstream = originOf("--upstream", values.upstream);
  const aim = originOf("--aim", values.aim ?? "http://127.0.0.1:8000");
  if (upstream.host === aim.host && upstream.protocol === aim.protocol) {
    throw new CliError(
      `--upstream and --aim are both ${aim.origin}: aim and the app listen on their own ports`,
      Exit.Usage,
    );
  }
  const serverNames = values["server-name"] ?? [];
  for (const name of serverNames) {
    if (!/^(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/.test(name) || name.length > 253) {
      throw new CliError(
        `--server-name must be a host name such as shop.example, got "${name}"`,
        Exit.Usage,
      );
    }
  }
  // The routes this aim registers, read from a bridge made as `aim serve --upstream` makes it.
  const bridge = createBridge({ upstream, allowedHosts: [] });
  const routes = bridge.routes;
  bridge.close();
  const options: WebServerConfigOptions = {
    upstream,
    aim,
    listen: values.listen === undefined ? undefined : listenOf(values.listen),
    serverNames,
    patterns: besidePatterns(routes),
  };
  io.stdout(positionals[0] === "nginx" ? nginxConfig(options) : haproxyConfig(options));
  return Promise.resolve(Exit.Ok);
}
