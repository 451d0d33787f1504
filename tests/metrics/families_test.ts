import assert from "node:assert/strict";
import fc from "fast-check";
import { ROUTE_FAMILIES, routeFamily } from "../../bridge/metrics/families.ts";
import { parseMetricsAddress } from "../../bridge/metrics/endpoint.ts";

Deno.test("routeFamily() names every family of aim's routes, from the path alone", () => {
  const cases: [string, string, string?][] = [
    ["/control-panel.json", "manifest"],
    ["/control-panel.toon", "manifest"],
    ["/index.json", "manifest"],
    ["/a/b/c.json", "manifest"],
    ["/sitemap.json", "sitemap"],
    ["/sitemap.toon", "sitemap"],
    ["/__aim/session", "session"],
    ["/__aim/invoke", "invoke"],
    ["/__aim/tab", "tab"],
    ["/__aim/events", "events"],
    ["/__aim/activity", "activity"],
    ["/__aim/mcp", "mcp"],
    ["/__aim/a2a", "a2a"],
    ["/.well-known/agent-card.json", "a2a"],
    ["/ping", "acp"],
    ["/agents", "acp"],
    ["/agents/control-panel", "acp"],
    ["/runs", "acp"],
    ["/runs/1/events", "acp"],
    ["/sessions/x", "acp"],
    ["/__aim/elements.js", "assets"],
    ["/__aim/elements.0123abcd.js", "assets"],
    ["/__aim/webmcp.js", "assets"],
    ["/__aim/health", "health"],
    ["/__aim/schema.json", "aim_other"],
    ["/__aim/nope", "aim_other"],
    ["/__aim/invoked", "aim_other"],
    ["/__aim/tabs", "aim_other"],
    ["/", "static"],
    ["/control-panel", "static"],
    ["/style.css", "static"],
    ["/pings", "static"],
    ["/agentsx", "static"],
    ["/api/orders/1", "static"],
  ];
  for (const [path, family] of cases) {
    assert.equal(routeFamily(path, false), family, path);
    // In front of an app, what is not aim's went to the app.
    assert.equal(routeFamily(path, true), family === "static" ? "upstream" : family, path);
  }
  // Every family but the one of the other mode is reached by some path.
  const named = new Set(cases.map(([, family]) => family));
  for (const family of ROUTE_FAMILIES) {
    if (family !== "upstream") assert.ok(named.has(family), family);
  }
});

Deno.test("routeFamily() gives one of its fixed names for any path, never the path", () => {
  fc.assert(
    fc.property(fc.string(), fc.boolean(), (tail, upstream) => {
      const path = `/${tail}`;
      const family = routeFamily(path, upstream);
      assert.ok((ROUTE_FAMILIES as readonly string[]).includes(family), path);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("parseMetricsAddress() reads PORT, HOST:PORT and [IPv6]:PORT, and says what is wrong otherwise", () => {
  const good: [string, { hostname: string; port: number }][] = [
    ["9464", { hostname: "127.0.0.1", port: 9464 }],
    ["0", { hostname: "127.0.0.1", port: 0 }],
    ["127.0.0.1:9464", { hostname: "127.0.0.1", port: 9464 }],
    ["localhost:9464", { hostname: "localhost", port: 9464 }],
    ["10.0.0.11:9464", { hostname: "10.0.0.11", port: 9464 }],
    ["0.0.0.0:9464", { hostname: "0.0.0.0", port: 9464 }],
    ["[::1]:9464", { hostname: "::1", port: 9464 }],
    ["[::]:9464", { hostname: "::", port: 9464 }],
    ["Metrics.Internal:65535", { hostname: "metrics.internal", port: 65535 }],
  ];
  for (const [text, expected] of good) assert.deepEqual(parseMetricsAddress(text), expected, text);
  const bad = [
    "",
    "abc",
    ":9464",
    "127.0.0.1:",
    "127.0.0.1",
    "65536",
    "99999",
    "-1",
    "9464x",
    "http://127.0.0.1:9464",
    "127.0.0.1:9464/metrics",
    "::1:9464",
    "[::1]",
    "a b:9464",
    "host:123456",
  ];
  for (const text of bad) {
    const problem = parseMetricsAddress(text);
    assert.equal(typeof problem, "string", text);
    assert.match(problem as string, /^--metrics/, text);
    assert.ok((problem as string).includes(JSON.stringify(text)), text);
  }
});
