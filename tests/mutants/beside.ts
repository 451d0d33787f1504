/**
 * Named mutants of aim beside the site's web server (issue 34, `aim proxy-config`): which
 * requests nginx and HAProxy send to aim, what they keep from the app, and how aim hands back
 * what is not its own.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const SPELLINGS = ["tests/upstream/beside_spellings_test.ts"];
const CREDENTIALS = ["tests/upstream/beside_credentials_test.ts"];
const DOWN = ["tests/upstream/beside_down_test.ts"];
const CONFIG = ["tests/upstream/beside_config_test.ts"];
const PATHS = "bridge/upstream/beside_paths.ts";
const NGINX = "bridge/upstream/beside_nginx.ts";
const HAPROXY = "bridge/upstream/beside_haproxy.ts";

export const mutants: Mutant[] = [
  {
    name: "beside-route-forgotten",
    guarantee: "The web server sends every route aim registers to aim (here ACP's /agents).",
    file: PATHS,
    find: "    bodies.push(routePattern(path));",
    replace: '    if (!path.startsWith("/agents")) bodies.push(routePattern(path));',
    tests: [...SPELLINGS, ...CONFIG],
  },
  {
    name: "beside-semicolon-spelling",
    guarantee: "A route of aim's spelled with a ;parameter (/__aim;x/session) reaches aim.",
    file: PATHS,
    find: 'const TAIL = "[. ]*(?:;[^/]*)?";',
    replace: 'const TAIL = "[. ]*";',
    tests: SPELLINGS,
  },
  {
    name: "beside-dot-dot-parameter",
    guarantee: "A path with a ..; segment (/x/..;/__aim/tab) reaches aim, which reads it as aim's.",
    file: PATHS,
    find: 'const odd = "[\\\\\\\\%\\\\x00]|/\\\\.\\\\.(?:;|/|$)";',
    replace: 'const odd = "[\\\\\\\\%\\\\x00]";',
    tests: SPELLINGS,
  },
  {
    name: "beside-credential-shape",
    guarantee: "A request carrying a token or tab credential aim issued goes to aim, not the app.",
    file: PATHS,
    find: "credential: `[A-Za-z0-9_-]{${newToken().length}}`,",
    replace: "credential: `[A-Za-z0-9_-]{${newToken().length + 1}}`,",
    tests: [...CREDENTIALS, ...CONFIG],
  },
  {
    name: "beside-nginx-cookie-kept",
    guarantee: "nginx never sends aim's cookie to the app; the app's own cookies pass.",
    file: NGINX,
    find: "    proxy_set_header Cookie $aim_app_cookie;\n",
    replace: "",
    tests: CREDENTIALS,
  },
  {
    name: "beside-nginx-two-cookies",
    guarantee: "A Cookie header with two of aim's cookies goes to aim, which removes them all.",
    file: NGINX,
    find: "  if ($aim_app_cookie = ${TWO_AIM_COOKIES}) { return ${TO_AIM_FORWARDS}; }\n",
    replace: "",
    tests: CREDENTIALS,
  },
  {
    name: "beside-nginx-tab-key",
    guarantee: "nginx never sends the tab key (X-Aim-Tab) to the app.",
    file: NGINX,
    find: '    proxy_set_header X-Aim-Tab "";\n',
    replace: "",
    tests: CREDENTIALS,
  },
  {
    name: "beside-nginx-forwarded",
    guarantee: "A client's own Forwarded header never reaches the app through nginx.",
    file: NGINX,
    find: '    proxy_set_header Forwarded "";\n',
    replace: "",
    tests: CREDENTIALS,
  },
  {
    name: "beside-nginx-second-protocol",
    guarantee: "The app gets only the Sec-WebSocket-Protocol nginx checked, never a second one.",
    file: NGINX,
    find: "    proxy_set_header Sec-WebSocket-Protocol $http_sec_websocket_protocol;`",
    replace: "`",
    tests: CREDENTIALS,
  },
  {
    name: "beside-credential-handed-back",
    guarantee:
      "A request with a credential is aim's to forward, filtered: nginx never sends it on to the app.",
    file: NGINX,
    find: "  location @aim {\n    ${toAim(options, false)}\n    error_page 502 504 = @aim_down;",
    replace: "  location @aim {\n    ${toAim(options, true)}\n    proxy_intercept_errors on;\n" +
      "    error_page ${MISDIRECTED_STATUS} = @app;\n    error_page 502 504 = @aim_down;",
    tests: CREDENTIALS,
  },
  {
    name: "beside-aim-down-to-app",
    guarantee: "While aim is down, its routes answer 503 from nginx and never reach the app.",
    file: NGINX,
    find: "    error_page ${MISDIRECTED_STATUS} = @app;\n    error_page 502 504 = @aim_down;",
    replace: "    error_page ${MISDIRECTED_STATUS} 502 504 = @app;",
    tests: DOWN,
  },
  {
    name: "beside-aim-down-body",
    guarantee: "While aim is down, its routes say so: 503 aim_unavailable with Retry-After.",
    file: NGINX,
    find: "    return 503 '${AIM_DOWN_BODY}';",
    replace: "    return 502;",
    tests: DOWN,
  },
  {
    name: "beside-haproxy-cookie-kept",
    guarantee: "HAProxy never sends aim's cookie to the app; the app's own cookies pass.",
    file: HAPROXY,
    find: "  http-request replace-header Cookie ${quoted(`(?i)${cookie}`)} '\\\\1\\\\2\\\\3'\n",
    replace: "",
    tests: CREDENTIALS,
  },
  {
    name: "beside-haproxy-tab-key",
    guarantee: "HAProxy never sends the tab key (X-Aim-Tab) to the app.",
    file: HAPROXY,
    find: "  http-request del-header X-Aim-Tab\n",
    replace: "",
    tests: CREDENTIALS,
  },
  {
    name: "beside-haproxy-sets-aim-cookie",
    guarantee: "No Set-Cookie of the app sets aim's cookie through HAProxy.",
    file: HAPROXY,
    find: "(?:__host-|__secure-)?aim_.*$`)} ${",
    replace: "(?:__host-|__secure-)?aim_NEVER.*$`)} ${",
    tests: CREDENTIALS,
  },
  {
    name: "beside-misdirected-ignored",
    guarantee: "Asked by the web server (X-Aim-Beside), aim hands back what it would forward: 421.",
    file: "bridge/upstream/proxy.ts",
    find: "    if (handsBack(request)) throw misdirected();\n",
    replace: "",
    tests: CONFIG,
  },
];
