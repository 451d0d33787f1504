/**
 * The HAProxy configuration of aim beside the site's web server (`aim proxy-config haproxy`,
 * docs/upstream.md, "Production: aim beside your web server"): people's pages go from HAProxy
 * straight to the app, aim's routes to aim, and nothing of aim's reaches the app.
 *
 * HAProxy reads the path as sent: the patterns are tested on it decoded once (`url_dec`), and a
 * path that no pattern can vouch for (a `..` segment, an escape left, one `url_dec` cannot
 * decode) goes to aim. HAProxy cannot send a request on to the app after aim answered it, so aim
 * forwards what it does not claim (no `X-Aim-Beside`): manifests (`.json`) and the app's own
 * `.json` go through aim, and while aim is down the app's `.json` answers 503 too. What HAProxy
 * can do that nginx cannot: it removes a `Set-Cookie` of aim's cookie from the app's answers.
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
import { BESIDE_HEADER } from "./beside.ts";

/** What replaces a `Set-Cookie` of aim's cookie in the app's answer: a cookie that sets nothing. */
export const REFUSED_COOKIE = "__Host-aim-removed=; Max-Age=0";

/** A string in HAProxy's single quotes, which take everything literally but a quote. */
function quoted(text: string): string {
  if (text.includes("'")) throw new TypeError(`A quote cannot be written in '${text}'`);
  return `'${text}'`;
}

/** `bind` of a `--listen` value: a port alone listens on every address. */
function bindAddress(listen: string): string {
  return /^\d+$/.test(listen) ? `:${listen}` : listen;
}

/** A `server` line, over TLS (checked against the system's CAs) for an https upstream. */
function server(name: string, url: URL, extra = ""): string {
  const tls = url.protocol === "https:"
    ? ` ssl verify required ca-file @system-ca sni str(${url.hostname})`
    : "";
  return `server ${name} ${hostPort(url)}${tls}${extra}`;
}

/** The HAProxy configuration: a whole file (`/etc/haproxy/haproxy.cfg`), or its sections to merge. */
export function haproxyConfig(options: WebServerConfigOptions): string {
  const { patterns } = options;
  // HAProxy numbers the groups: the header without aim's cookie is `\1\2\3`.
  const cookie = patterns.aimCookie.replace(/\?<aim_[a-z]+>/g, "");
  return `# aim beside HAProxy, written by \`aim proxy-config haproxy\` (docs/upstream.md, "Production:
# aim beside your web server"). People's pages go straight to the app; aim's routes, manifests
# and requests carrying a credential aim may have issued go to aim, started as:
#
#   ${aimCommand(options)}
#
# To merge it into the site's configuration, add the acl and use_backend lines to the frontend
# that serves the site, and the two backends. Write it again after upgrading aim: its routes come
# from aim's code.

defaults
  mode http
  timeout connect 5s
  # Longer than the longest long poll (Prefer: wait=60).
  timeout client 75s
  timeout server 75s
  # A WebSocket (aim's tab channel, the app's own) is a tunnel once upgraded.
  timeout tunnel 1h

frontend site
  bind ${bindAddress(options.listen ?? BESIDE_DEFAULTS.listen)}
  # One of aim's routes in any spelling a server may read as one, read on the path decoded once,
  # or a page's manifest (.json: aim answers it, or forwards the app's own JSON); and a path
  # url_dec cannot decode.
  acl aim_path path,url_dec -m reg -i ${quoted(patterns.path)}
  acl aim_path path -m reg ${quoted("%(?![0-9A-Fa-f]{2})")}
  # A credential aim may have issued: only aim can tell by lookup whether it is aim's.
  acl aim_credential req.hdr(authorization) -m reg ${quoted(patterns.credential)}
  acl aim_credential req.hdr(sec-websocket-protocol) -m reg ${quoted(patterns.credential)}
  # Two or more of aim's cookies, more than the app's backend removes: aim removes any number.
  acl aim_cookies req.fhdr(cookie) -m reg -i ${quoted(patterns.aimCookies)}
  use_backend aim if aim_path || aim_credential || aim_cookies
  default_backend app

backend aim
  # aim forwards what is not its own, its credentials removed.
  http-request del-header ${BESIDE_HEADER}
  http-request set-header X-Forwarded-For %[src]
  http-request set-header X-Forwarded-Proto https if { ssl_fc }
  http-request set-header X-Forwarded-Proto http if !{ ssl_fc }
  http-request set-header X-Forwarded-Host %[req.hdr(host)]
  # While aim is down, its routes say so; the app's pages still answer.
  http-error status 503 content-type application/json string ${
    quoted(AIM_DOWN_BODY)
  } hdr Retry-After ${AIM_DOWN_RETRY_AFTER} hdr Cache-Control no-store
  option httpchk GET /__aim/health
  ${server("aim", options.aim, " check inter 1s fall 1 rise 1")}

backend app
  # aim's cookies (by name: aim_session, __Host-aim_session, any aim_*) never reach the app.
  http-request replace-header Cookie ${quoted(`(?i)${cookie}`)} '\\1\\2\\3'
  http-request del-header Cookie if { req.fhdr_cnt(cookie) eq 1 } { req.fhdr(cookie) -m len 0 }
  # Nor does the tab key, or a client's own forwarding headers.
  http-request del-header X-Aim-Tab
  http-request del-header ${BESIDE_HEADER}
  http-request del-header Forwarded
  http-request del-header X-Real-IP
  http-request set-header X-Forwarded-For %[src]
  http-request set-header X-Forwarded-Proto https if { ssl_fc }
  http-request set-header X-Forwarded-Proto http if !{ ssl_fc }
  http-request set-header X-Forwarded-Host %[req.hdr(host)]
  # No answer of the app sets aim's cookie: such a Set-Cookie becomes one that sets nothing
  # (expired, and a __Host- cookie without Secure, which browsers refuse).
  http-response replace-header Set-Cookie ${quoted(`(?i)^[ \\t]*(?:__host-|__secure-)?aim_.*$`)} ${
    quoted(REFUSED_COOKIE)
  }
  ${server("app", options.upstream)}
`;
}
