/**
 * The nginx configuration of aim beside the site's web server (`aim proxy-config nginx`,
 * docs/upstream.md, "Production: aim beside your web server"): people's pages go from nginx
 * straight to the app, aim's routes to aim, and nothing of aim's reaches the app.
 *
 * - **aim's routes** (every spelling some server reads as one, beside_paths.ts) go to aim, which
 *   answers its own, refuses ambiguous spellings, and hands the rest back with 421
 *   (`X-Aim-Beside`, bridge/upstream/beside.ts): nginx then sends them to the app.
 * - **`<page>.json`** goes to aim first in the same way; while aim is down, to the app (whose own
 *   JSON keeps answering).
 * - **A request carrying a credential aim may have issued** (in `Authorization` or
 *   `Sec-WebSocket-Protocol`), or more of aim's cookies than nginx removes, goes to aim, which
 *   recognises its credentials by lookup, removes them and forwards the rest to the app.
 * - **Everything else** goes to the app without aim's cookie (by name), the tab key, a client's
 *   `Forwarded`/`X-Real-IP`, or a second `Sec-WebSocket-Protocol` that nginx did not check.
 * - **While aim is down**, aim's routes answer 503 `aim_unavailable` from nginx; pages answer.
 *
 * @module
 */
import {
  AIM_DOWN_BODY,
  AIM_DOWN_RETRY_AFTER,
  aimCommand,
  hostPort,
  type WebServerConfigOptions,
} from "./beside_config.ts";
import { BESIDE_HEADER, MISDIRECTED_STATUS } from "./beside.ts";

/** A string in nginx's double quotes: its backslashes and quotes escaped. */
function quoted(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** Internal statuses that pick a named location (never sent: `error_page` redirects them). */
const TO = { aim: 418, first: 419, manifest: 420 } as const;

/** How a location reaches one upstream: HTTP/1.1 with keep-alive, or a WebSocket upgrade. */
function passTo(name: string, url: URL): string {
  const tls = url.protocol === "https:";
  return [
    `proxy_pass ${tls ? "https" : "http"}://${name};`,
    ...(tls ? ["proxy_ssl_server_name on;", `proxy_ssl_name ${url.hostname};`] : []),
    "proxy_http_version 1.1;",
    "proxy_set_header Host $http_host;",
    "proxy_set_header Upgrade $http_upgrade;",
    "proxy_set_header Connection $aim_connection;",
    "proxy_set_header X-Forwarded-For $remote_addr;",
    "proxy_set_header X-Forwarded-Proto $scheme;",
    "proxy_set_header X-Forwarded-Host $http_host;",
  ].join("\n    ");
}

/** The directives of a location that sends a request to the app. */
function toApp(options: WebServerConfigOptions): string {
  return `${passTo("aim_app", options.upstream)}
    # What nginx checked is what the app gets: one Sec-WebSocket-Protocol, one Authorization.
    proxy_set_header Sec-WebSocket-Protocol $http_sec_websocket_protocol;
    proxy_set_header Authorization $http_authorization;
    # aim's cookies (by name) and the tab key never reach the app.
    proxy_set_header Cookie $aim_app_cookie;
    proxy_set_header X-Aim-Tab "";
    proxy_set_header ${BESIDE_HEADER} "";
    # A client's own forwarding headers are not the app's to believe.
    proxy_set_header Forwarded "";
    proxy_set_header X-Real-IP "";`;
}

/** The directives of a location that sends a request to aim; `first`: aim hands back what is not its own. */
function toAim(options: WebServerConfigOptions, first: boolean): string {
  return `${passTo("aim_bridge", options.aim)}
    proxy_set_header ${BESIDE_HEADER} ${first ? '"1"' : '""'};
    # Event streams and long polls pass as they come; a long poll waits up to 60 s.
    proxy_buffering off;
    proxy_read_timeout 75s;`;
}

/** The nginx configuration: a file for nginx's `http` block (`/etc/nginx/conf.d/aim.conf`). */
export function nginxConfig(options: WebServerConfigOptions): string {
  const { patterns } = options;
  const listen = options.listen ?? "80";
  const names = options.serverNames?.length ? options.serverNames.join(" ") : "_";
  return `# aim beside nginx, written by \`aim proxy-config nginx\` (docs/upstream.md, "Production:
# aim beside your web server"). People's pages go straight to the app; aim's routes, manifests
# and requests carrying a credential aim may have issued go to aim, started as:
#
#   ${aimCommand(options)}
#
# This file goes in nginx's http block (/etc/nginx/conf.d/aim.conf). To merge it into the site's
# own server block, keep the part marked "server level" at that level (it runs before any
# location, the site's regular-expression locations included), the named locations beside the
# site's own, and put the directives of "location /" in every location that sends to the app.
# Write the configuration again after upgrading aim: its routes come from aim's code.

upstream aim_app {
  server ${hostPort(options.upstream)};
  keepalive 64;
}
upstream aim_bridge {
  server ${hostPort(options.aim)};
  keepalive 16;
}

# "upgrade" for a WebSocket; otherwise none, which keeps the connection to the upstream alive.
map $http_upgrade $aim_connection {
  "" "";
  default upgrade;
}

# What a path is to aim, read on nginx's $uri (decoded, dot segments resolved): one of aim's
# routes in any spelling a server may read as one, or a page's manifest.
map $uri $aim_path {
  ${quoted(`~*${patterns.routes}`)} route;
  ${quoted(`~${patterns.odd}`)} route;
  ${quoted(`~*${patterns.manifest}`)} manifest;
  default "";
}

# A credential aim may have issued: only aim can tell by lookup whether it is aim's.
map "$http_authorization $http_sec_websocket_protocol" $aim_credential {
  ${quoted(`~${patterns.credential}`)} 1;
  default "";
}

# The Cookie header without aim's cookies (aim_session, __Host-aim_session, any aim_*), two
# removed; a request with more goes to aim, which removes any number.
map $http_cookie $aim_cookie_1 {
  ${quoted(`~*${patterns.aimCookie}`)} $aim_before$aim_after;
  default $http_cookie;
}
map $aim_cookie_1 $aim_cookie_2 {
  ${quoted(`~*${patterns.aimCookie}`)} $aim_before$aim_after;
  default $aim_cookie_1;
}
map $aim_cookie_2 $aim_cookies_left {
  ${quoted(`~*${patterns.aimCookie}`)} 1;
  default "";
}
map $aim_cookie_2 $aim_app_cookie {
  "~^[; \\t]*(?<aim_kept>.*?)[; \\t]*$" $aim_kept;
}

# Where a request goes: aim (it forwards, filtered), aim first (it hands back what is not its
# own), aim first for a manifest (the app while aim is down), or the app.
map "$aim_credential$aim_cookies_left$aim_path" $aim_target {
  "~^1" aim;
  route first;
  manifest manifest;
  default "";
}

server {
  listen ${listen};
  server_name ${names};

  # --- server level: runs before any location ---
  # A request aim hands back (421) is redirected once more, to the app.
  recursive_error_pages on;
  error_page ${TO.aim} = @aim;
  error_page ${TO.first} = @aim_first;
  error_page ${TO.manifest} = @aim_manifest;
  if ($aim_target = aim) { return ${TO.aim}; }
  if ($aim_target = first) { return ${TO.first}; }
  if ($aim_target = manifest) { return ${TO.manifest}; }
  # --- end of the server level ---

  location / {
    ${toApp(options)}
  }

  location @app {
    ${toApp(options)}
  }

  location @aim {
    ${toAim(options, false)}
    error_page 502 504 = @aim_down;
  }

  location @aim_first {
    ${toAim(options, true)}
    proxy_intercept_errors on;
    error_page ${MISDIRECTED_STATUS} = @app;
    error_page 502 504 = @aim_down;
  }

  location @aim_manifest {
    ${toAim(options, true)}
    proxy_intercept_errors on;
    error_page ${MISDIRECTED_STATUS} 502 504 = @app;
  }

  location @aim_down {
    default_type application/json;
    add_header Cache-Control "no-store" always;
    add_header Retry-After ${AIM_DOWN_RETRY_AFTER} always;
    return 503 '${AIM_DOWN_BODY}';
  }
}
`;
}
