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
  BESIDE_DEFAULTS,
  hostPort,
  type WebServerConfigOptions,
} from "./beside_config.ts";
import { BESIDE_HEADER, MISDIRECTED_STATUS } from "./beside.ts";
import { MANIFEST_GROUP } from "./beside_paths.ts";

/** A string in nginx's double quotes: its backslashes and quotes escaped. */
function quoted(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** What stands for a Cookie header with two or more of aim's cookies (sent to aim, never to the app). */
const TWO_AIM_COOKIES = "two-aim-cookies";

/**
 * The internal statuses that send a request to the named location `$aim_location` names, and to
 * @aim: `error_page` redirects them, and no client ever gets one.
 */
const TO_AIM = 418;
const TO_AIM_FORWARDS = 417;

/**
 * How a location reaches one upstream: HTTP/1.1 with keep-alive; with `upgrade`, a WebSocket
 * upgrade passed on as well.
 */
function passTo(name: string, url: URL, upgrade: boolean): string {
  const tls = url.protocol === "https:";
  return [
    `proxy_pass ${tls ? "https" : "http"}://${name};`,
    ...(tls ? ["proxy_ssl_server_name on;", `proxy_ssl_name ${url.hostname};`] : []),
    "proxy_http_version 1.1;",
    "proxy_set_header Host $http_host;",
    ...(upgrade
      ? ["proxy_set_header Upgrade $http_upgrade;", "proxy_set_header Connection $aim_connection;"]
      : ['proxy_set_header Connection "";']),
    "proxy_set_header X-Forwarded-For $remote_addr;",
    "proxy_set_header X-Forwarded-Proto $scheme;",
    "proxy_set_header X-Forwarded-Host $http_host;",
  ].join("\n    ");
}

/**
 * The directives of a location that sends a request to the app; with `upgrade`, WebSockets too
 * (the server level sends every upgrade to @app: a page load reads no header it does not need).
 */
function toApp(options: WebServerConfigOptions, upgrade: boolean): string {
  return `${passTo("aim_app", options.upstream, upgrade)}
    # aim's cookie (by name) and the tab key never reach the app.
    proxy_set_header Cookie $aim_app_cookie;
    proxy_set_header X-Aim-Tab "";
    proxy_set_header ${BESIDE_HEADER} "";
    # A client's own forwarding headers are not the app's to believe.
    proxy_set_header Forwarded "";
    proxy_set_header X-Real-IP "";${
    upgrade
      ? `
    # What nginx checked is what the app gets: one Sec-WebSocket-Protocol (nginx refuses a
    # second Authorization itself).
    proxy_set_header Sec-WebSocket-Protocol $http_sec_websocket_protocol;`
      : ""
  }`;
}

/** The directives of a location that sends a request to aim; `first`: aim hands back what is not its own. */
function toAim(options: WebServerConfigOptions, first: boolean): string {
  return `${passTo("aim_bridge", options.aim, true)}
    proxy_set_header ${BESIDE_HEADER} ${first ? '"1"' : '""'};
    # Event streams and long polls pass as they come; a long poll waits up to 60 s.
    proxy_buffering off;
    proxy_read_timeout 75s;`;
}

/** The nginx configuration: a file for nginx's `http` block (`/etc/nginx/conf.d/aim.conf`). */
export function nginxConfig(options: WebServerConfigOptions): string {
  const { patterns } = options;
  const listen = options.listen ?? BESIDE_DEFAULTS.listen;
  const names = options.serverNames?.length ? options.serverNames.join(" ") : "_";
  return `# aim beside nginx, written by \`aim proxy-config nginx\` (docs/upstream.md, "Production:
# aim beside your web server"). People's pages go straight to the app; aim's routes, manifests
# and requests carrying a credential aim may have issued go to aim, started as:
#
#   ${aimCommand(options)}
#
# This file goes in nginx's http block (/etc/nginx/conf.d/aim.conf); add "pcre_jit on;" to the top
# of nginx.conf: every request runs a regular expression or two here. To merge it into the site's
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

# What a path is to aim, read on nginx's $uri (decoded, dot segments resolved): "r" for one of
# aim's routes in any spelling a server may read as one, "rjson" for a page's manifest.
map $uri $aim_path {
  ${quoted(`~*${patterns.path}`)} r$${MANIFEST_GROUP};
  default "";
}

# A credential aim may have issued, in Authorization or (on a WebSocket) Sec-WebSocket-Protocol:
# only aim can tell by lookup whether it is aim's ("1"); a WebSocket without one is the app's
# ("u"). A map's value is read only when chosen: a request with neither header reads no more.
map "$http_authorization$http_upgrade" $aim_headers {
  "" "";
  default $aim_headers_read;
}
map "$http_authorization $http_sec_websocket_protocol|$http_upgrade" $aim_headers_read {
  ${quoted(`~${patterns.credential}`)} 1;
  "~\\|." u;
  default "";
}

# Where a request goes: aim (it forwards, filtered), aim first (it hands back what is not its
# own), aim first for a manifest (the app while aim is down), the app's WebSockets, or the app ("").
map "$aim_headers:$aim_path" $aim_location {
  ":" "";
  "u:" @app;
  ":r" @aim_first;
  "u:r" @aim_first;
  ":rjson" @aim_manifest;
  "u:rjson" @aim_manifest;
  default @aim;
}

server {
  listen ${listen};
  server_name ${names};

  # --- server level: runs before any location ---
  # A request aim hands back (421) is redirected once more, to the app.
  recursive_error_pages on;
  # The checks below allocate a little per request: one block of the request's pool holds them.
  request_pool_size 8k;
  error_page ${TO_AIM} = $aim_location;
  error_page ${TO_AIM_FORWARDS} = @aim;
  # The Cookie header the app gets: without aim's cookie (aim_session, __Host-aim_session, any
  # aim_*), the one a browser sends. A header with two or more goes to aim, which removes any
  # number.
  set $aim_app_cookie ${TWO_AIM_COOKIES};
  if ($http_cookie ~* ${quoted(patterns.aimCookie)}) {
    set $aim_app_cookie $aim_before$aim_after$aim_rest;
  }
  if ($aim_app_cookie = ${TWO_AIM_COOKIES}) { return ${TO_AIM_FORWARDS}; }
  if ($aim_location) { return ${TO_AIM}; }
  # --- end of the server level ---

  location / {
    ${toApp(options, false)}
  }

  location @app {
    ${toApp(options, true)}
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
