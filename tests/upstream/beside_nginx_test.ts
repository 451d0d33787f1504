/**
 * The nginx configuration of aim beside the site's web server (bridge/upstream/beside_nginx.ts),
 * imported directly and read as text: each header the app must never get is cleared in each
 * location that sends to the app, aim's hand-back header is set only where aim may hand back,
 * each route of the map goes where it should, TLS upstreams keep their name, and a pattern's
 * quotes and backslashes are escaped. That nginx accepts it and behaves so is
 * tests/upstream/beside_config_test.ts's and the `test:beside` run's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { nginxConfig } from "../../bridge/upstream/beside_nginx.ts";
import { besidePatterns } from "../../bridge/upstream/beside_paths.ts";
import type { WebServerConfigOptions } from "../../bridge/upstream/beside_config.ts";
import { AIM_DOWN_BODY, AIM_DOWN_RETRY_AFTER } from "../../bridge/upstream/beside_config.ts";
import { BESIDE_HEADER, MISDIRECTED_STATUS } from "../../bridge/upstream/beside.ts";

const OPTIONS: WebServerConfigOptions = {
  upstream: new URL("http://127.0.0.1:8080"),
  aim: new URL("http://127.0.0.1:8001"),
  patterns: besidePatterns([{ path: "/sitemap.json" }, { path: "/agents/:name" }, { path: "*" }]),
};

/** The directives of location `name` of a configuration. */
function location(config: string, name: string): string {
  const start = config.indexOf(`  location ${name} {\n`);
  assert.ok(start >= 0, `location ${name} is there`);
  return config.slice(start, config.indexOf("\n  }\n", start));
}

Deno.test("nginxConfig() clears each header the app must never get, in both locations that send to the app", () => {
  const config = nginxConfig(OPTIONS);
  const cleared = ["X-Aim-Tab", BESIDE_HEADER, "Forwarded", "X-Real-IP"];
  for (const name of ["/", "@app"]) {
    const directives = location(config, name);
    assert.match(directives, /proxy_pass http:\/\/aim_app;/, name);
    assert.match(directives, /proxy_set_header Cookie \$aim_app_cookie;/, name);
    for (const header of cleared) {
      assert.ok(directives.includes(`proxy_set_header ${header} "";`), `${name} clears ${header}`);
    }
    assert.match(directives, /proxy_set_header X-Forwarded-For \$remote_addr;/, name);
  }
  // Only the WebSocket location passes an upgrade on, with the one protocol nginx checked.
  assert.match(location(config, "@app"), /proxy_set_header Upgrade \$http_upgrade;/);
  assert.match(
    location(config, "@app"),
    /proxy_set_header Sec-WebSocket-Protocol \$http_sec_websocket_protocol;/,
  );
  assert.doesNotMatch(location(config, "/"), /Upgrade|Sec-WebSocket-Protocol/);
  assert.match(location(config, "/"), /proxy_set_header Connection "";/);
});

Deno.test("nginxConfig() lets aim hand back only from @aim_first and @aim_manifest, and answers 503 while aim is down", () => {
  const config = nginxConfig(OPTIONS);
  const cases: [string, string, RegExp[]][] = [
    ["@aim", '""', [/error_page 502 504 = @aim_down;/]],
    ["@aim_first", '"1"', [
      new RegExp(`error_page ${MISDIRECTED_STATUS} = @app;`),
      /error_page 502 504 = @aim_down;/,
      /proxy_intercept_errors on;/,
    ]],
    ["@aim_manifest", '"1"', [new RegExp(`error_page ${MISDIRECTED_STATUS} 502 504 = @app;`)]],
  ];
  for (const [name, beside, rules] of cases) {
    const directives = location(config, name);
    assert.match(directives, /proxy_pass http:\/\/aim_bridge;/, name);
    assert.ok(directives.includes(`proxy_set_header ${BESIDE_HEADER} ${beside};`), name);
    assert.match(directives, /proxy_buffering off;/, name);
    for (const rule of rules) assert.match(directives, rule, name);
  }
  const down = location(config, "@aim_down");
  assert.ok(down.includes(`return 503 '${AIM_DOWN_BODY}';`));
  assert.ok(down.includes(`add_header Retry-After ${AIM_DOWN_RETRY_AFTER} always;`));
  assert.ok(down.includes('add_header Cache-Control "no-store" always;'));
});

Deno.test("nginxConfig() sends each kind of request where it goes: aim, aim first, a manifest, the app's WebSocket, the app", () => {
  const config = nginxConfig(OPTIONS);
  const map = config.slice(config.indexOf('map "$aim_headers:$aim_path" $aim_location {'));
  const routes: [string, string][] = [
    ['":"', '"";'],
    ['"u:"', "@app;"],
    ['":r"', "@aim_first;"],
    ['"u:r"', "@aim_first;"],
    ['":rjson"', "@aim_manifest;"],
    ['"u:rjson"', "@aim_manifest;"],
    ["default", "@aim;"],
  ];
  for (const [key, target] of routes) {
    assert.match(map, new RegExp(`\\n  ${key.replace(/[$]/g, "\\$")} ${target}\\n`), key);
  }
  assert.match(config, /if \(\$aim_app_cookie = two-aim-cookies\) \{ return 417; \}/);
  assert.match(config, /error_page 417 = @aim;/);
  assert.match(config, /if \(\$aim_location\) \{ return 418; \}/);
  assert.match(config, /error_page 418 = \$aim_location;/);
});

Deno.test("nginxConfig() listens where asked, names the servers, and keeps a TLS upstream's name", () => {
  const plain = nginxConfig(OPTIONS);
  assert.ok(plain.includes("\n  listen 80;\n  server_name _;\n"));
  assert.ok(plain.includes("upstream aim_app {\n  server 127.0.0.1:8080;"));
  assert.doesNotMatch(plain, /proxy_ssl/);
  const tls = nginxConfig({
    ...OPTIONS,
    upstream: new URL("https://app.internal"),
    listen: "[::]:8443",
    serverNames: ["shop.example", "*.shop.example"],
  });
  assert.ok(tls.includes("\n  listen [::]:8443;\n  server_name shop.example *.shop.example;\n"));
  assert.ok(tls.includes("upstream aim_app {\n  server app.internal:443;"));
  for (const name of ["/", "@app"]) {
    const directives = location(tls, name);
    assert.match(directives, /proxy_pass https:\/\/aim_app;/, name);
    assert.match(directives, /proxy_ssl_server_name on;/, name);
    assert.match(directives, /proxy_ssl_name app\.internal;/, name);
  }
  assert.match(location(tls, "@aim"), /proxy_pass http:\/\/aim_bridge;/);
});

Deno.test("nginxConfig() escapes each backslash and quote of a pattern inside nginx's double quotes", () => {
  const config = nginxConfig({
    ...OPTIONS,
    patterns: { ...OPTIONS.patterns, path: 'a\\.b"c', credential: '\\"x' },
  });
  assert.ok(config.includes('  "~*a\\\\.b\\"c" r$'), "the path's pattern");
  assert.ok(config.includes('  "~\\\\\\"x" 1;'), "the credential's pattern");
});
