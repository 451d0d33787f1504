import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { ROUTE_FAMILIES } from "../../bridge/metrics/families.ts";
import { INVOCATION_PROTOCOLS } from "../../bridge/metrics/metrics.ts";
import { ERROR_CODES } from "../../bridge/wire/errors.ts";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { connectClient } from "../mcp/helpers.ts";
import { type Scrape, scrape } from "./scrape.ts";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);

/** What a family of the bridge's metrics is, by name. */
const FAMILIES: Record<string, ParsedType> = {
  aim_http_requests_total: "COUNTER",
  aim_http_request_duration_seconds: "HISTOGRAM",
  aim_invocations_total: "COUNTER",
  aim_confirmations_pending: "GAUGE",
  aim_confirmation_wait_seconds: "HISTOGRAM",
  aim_upstream_failures_total: "COUNTER",
  aim_sessions: "GAUGE",
  aim_sessions_unused: "GAUGE",
  aim_tabs_connected: "GAUGE",
  aim_tabs_holding: "GAUGE",
  aim_streams_open: "GAUGE",
  aim_streams_max: "GAUGE",
};
type ParsedType = "COUNTER" | "GAUGE" | "HISTOGRAM";

/** Every value each label may take: fixed lists, never anything a request or a page sent. */
const LABEL_VALUES: Record<string, (value: string) => boolean> = {
  family: (v) => (ROUTE_FAMILIES as readonly string[]).includes(v),
  status: (v) => /^[1-5]xx$/.test(v),
  protocol: (v) => (INVOCATION_PROTOCOLS as readonly string[]).includes(v),
  outcome: (v) => v === "ok" || v === "other" || (ERROR_CODES as string[]).includes(v),
  code: (v) => v === "bad_gateway" || v === "gateway_timeout",
  le: (v) => v === "+Inf" || Number.isFinite(Number(v)),
  command: (v) => /^[A-Z][A-Z.]{0,31}$/.test(v),
};

/** A bridge with metrics, a session on the control panel and its tab with three actions. */
async function withTab(bridge: TestBridge): Promise<{ token: string; tab: FakeTab }> {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([
    { id: "search", input_example: "pending", handler: (q) => ({ found: [q] }) },
    { id: "confirm_me", consequential: true, handler: (q) => ({ done: q }) },
  ]);
  return { token, tab };
}

/** One HTTP/1.1 request as bytes on a socket, with the Host given; the whole answer. */
async function raw(port: number, target: string, host = `127.0.0.1:${port}`): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    ),
  );
  let answer = "";
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(65536);
  for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
    answer += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
  conn.close();
  return answer;
}

function metricsUrl(bridge: TestBridge): string {
  const url = bridge.served.metricsUrl;
  assert.ok(url, "the bridge serves metrics");
  return url;
}

Deno.test("a bridge serves no metrics unless asked: /__aim/metrics is 404 and no listener is opened", async () => {
  await using bridge = await startBridge();
  assert.equal(bridge.served.metricsUrl, undefined);
  assert.equal(bridge.served.bridge.metrics, undefined);
  for (const method of ["GET", "HEAD", "POST"]) {
    const res = await bridge.fetch("/__aim/metrics", { method });
    if (method === "HEAD") {
      assert.equal(res.status, 404);
      await res.body?.cancel();
    } else await expectError(res, 404, "not_found");
  }
});

Deno.test("the bridge's own port never answers /__aim/metrics, even with metrics on", async () => {
  await using bridge = await startBridge({ metrics: { port: 0 } });
  await expectError(await bridge.fetch("/__aim/metrics"), 404, "not_found");
  const url = new URL(metricsUrl(bridge));
  assert.notEqual(Number(url.port), bridge.port);
  assert.equal(url.hostname, "127.0.0.1");
  assert.equal(url.pathname, "/__aim/metrics");
});

Deno.test("the metrics listener answers GET and HEAD of /__aim/metrics only, to loopback Host names only", async () => {
  await using bridge = await startBridge({ metrics: { port: 0 } });
  const url = metricsUrl(bridge);
  const origin = new URL(url).origin;
  await expectError(await fetch(`${origin}/`), 404, "not_found");
  await expectError(await fetch(`${origin}/metrics`), 404, "not_found");
  await expectError(await fetch(`${origin}/__aim/metrics/x`), 404, "not_found");
  for (const method of ["POST", "PUT", "DELETE"]) {
    const res = await fetch(url, { method });
    await expectError(res, 405, "method_not_allowed");
    assert.equal(res.headers.get("allow"), "GET, HEAD");
  }
  const head = await fetch(url, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
  // DNS rebinding: a page of another site whose name now points at 127.0.0.1.
  const port = Number(new URL(url).port);
  for (const host of ["evil.example", "evil.example:9464", "127.0.0.1.evil.example", "10.0.0.1"]) {
    const response = await raw(port, "/__aim/metrics", host);
    assert.match(response, /^HTTP\/1\.1 403/, host);
    assert.match(response, /forbidden_host/, host);
    assert.doesNotMatch(response, /aim_/, host);
  }
  const absolute = await raw(port, "http://evil.example/__aim/metrics");
  assert.match(absolute, /^HTTP\/1\.1 403/);
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
    assert.match(await raw(port, "/__aim/metrics", host), /^HTTP\/1\.1 200[^]*aim_sessions /, host);
  }
});

Deno.test("a scrape holds every metric family, with its type and help, parsed by an independent parser", async () => {
  await using bridge = await startBridge({ metrics: { port: 0 } });
  const scraped = await scrape(metricsUrl(bridge));
  for (const [name, type] of Object.entries(FAMILIES)) {
    const family = scraped.families.get(name);
    assert.ok(family, `${name} is scraped`);
    assert.equal(family.type, type, name);
    assert.ok(family.help.length > 10, `${name} says what it counts`);
  }
  // Alerts on rates need the series before the first event.
  for (const protocol of INVOCATION_PROTOCOLS) {
    assert.ok(
      scraped.samples.some((s) =>
        s.name === "aim_invocations_total" && s.labels.protocol === protocol &&
        s.labels.outcome === "ok"
      ),
      protocol,
    );
  }
  for (const code of ["bad_gateway", "gateway_timeout"]) {
    assert.equal(scraped.value("aim_upstream_failures_total", { code }), 0);
  }
  assert.ok(scraped.value("aim_streams_max") > 0);
});

Deno.test(
  "metrics move: requests per family, sessions, tabs, invocation outcomes per protocol, a pending prompt and its wait",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({ metrics: { port: 0 }, users });
    const url = metricsUrl(bridge);
    const before = await scrape(url);
    assert.equal(before.value("aim_sessions"), 0);
    assert.equal(before.value("aim_tabs_connected"), 0);

    const { token, tab } = await withTab(bridge);
    await using _tab = tab;
    let now = await scrape(url);
    assert.equal(now.value("aim_sessions"), 1);
    assert.equal(now.value("aim_tabs_connected"), 1);
    assert.equal(now.value("aim_tabs_holding"), 1);
    assert.equal(now.value("aim_http_requests_total", { family: "session", status: "2xx" }), 1);
    assert.equal(now.value("aim_http_requests_total", { family: "tab", status: "1xx" }), 1);

    // A second tab of the same session waits for the lease: connected, not holding.
    const guest = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await guest.next("lease");
    now = await scrape(url);
    assert.equal(now.value("aim_tabs_connected"), 2);
    assert.equal(now.value("aim_tabs_holding"), 1);
    guest.socket.close();
    await guest.closed;

    // Requests per family, with their latencies.
    await (await bridge.fetch("/control-panel.json")).body?.cancel();
    await (await bridge.fetch("/sitemap.json")).body?.cancel();
    await (await bridge.fetch("/style.css")).body?.cancel();
    await (await bridge.fetch("/no-such-page")).body?.cancel();
    const ok = await bridge.invoke(token, "search", "pending");
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    await expectError(await bridge.invoke(token, "nope", "x"), 404, "unknown_action");
    await expectError(await bridge.invoke(token, "search", ""), 400, "invalid_input");
    now = await scrape(url);
    assert.equal(now.value("aim_http_requests_total", { family: "manifest", status: "2xx" }), 1);
    assert.equal(now.value("aim_http_requests_total", { family: "sitemap", status: "2xx" }), 1);
    assert.equal(now.value("aim_http_requests_total", { family: "static", status: "2xx" }), 1);
    assert.equal(now.value("aim_http_requests_total", { family: "static", status: "4xx" }), 1);
    assert.equal(now.value("aim_http_requests_total", { family: "invoke", status: "2xx" }), 1);
    assert.equal(now.value("aim_http_requests_total", { family: "invoke", status: "4xx" }), 2);
    assert.equal(
      now.value("aim_http_request_duration_seconds_count", { family: "invoke" }),
      3,
    );
    assert.equal(
      now.value("aim_http_request_duration_seconds_bucket", { family: "invoke", le: "+Inf" }),
      3,
    );
    assert.ok(now.value("aim_http_request_duration_seconds_sum", { family: "invoke" }) > 0);
    // Scraped again with no request between: nothing is counted twice.
    const again = await scrape(url);
    for (const family of ["manifest", "session", "invoke", "static"]) {
      for (const status of ["2xx", "4xx"]) {
        const labels = { family, status };
        assert.equal(
          again.value("aim_http_requests_total", labels),
          now.value("aim_http_requests_total", labels),
          `${family} ${status}`,
        );
      }
    }
    assert.equal(now.value("aim_invocations_total", { protocol: "http", outcome: "ok" }), 1);
    assert.equal(
      now.value("aim_invocations_total", { protocol: "http", outcome: "unknown_action" }),
      1,
    );
    assert.equal(
      now.value("aim_invocations_total", { protocol: "http", outcome: "invalid_input" }),
      1,
    );

    // Over MCP, a consequential tool waits for the person: the prompt shows as pending.
    tab.answerWith = "never";
    await using client = await connectClient("v2", bridge.origin, token);
    const asked = Promise.withResolvers<void>();
    const call = client.callTool("confirm_me", { input: "now" }, {
      onprogress: () => asked.resolve(),
    });
    const running = await tab.next("invoke", (m) => m.actionId === "confirm_me");
    tab.send({ type: "awaiting", id: running.id, message: "Asking the person." });
    await asked.promise;
    now = await scrape(url);
    assert.equal(now.value("aim_confirmations_pending"), 1);
    assert.equal(now.value("aim_confirmation_wait_seconds_count"), 0);
    tab.send({ type: "result", id: running.id, ok: true, result: { done: "now" } });
    const result = await call;
    assert.notEqual(result.isError, true);
    now = await scrape(url);
    assert.equal(now.value("aim_confirmations_pending"), 0);
    assert.equal(now.value("aim_confirmation_wait_seconds_count", { outcome: "ok" }), 1);
    assert.equal(now.value("aim_invocations_total", { protocol: "mcp", outcome: "ok" }), 1);
    assert.ok(now.value("aim_http_requests_total", { family: "mcp", status: "2xx" }) >= 2);

    // A prompt the person declines: counted with its outcome.
    const declined = bridge.invoke(token, "confirm_me", "later");
    const second = await tab.next("invoke", (m) => m.actionId === "confirm_me");
    tab.send({ type: "awaiting", id: second.id, message: "Asking the person." });
    tab.send({
      type: "result",
      id: second.id,
      ok: false,
      error: { code: "declined", message: "No." },
    });
    await expectError(await declined, 403, "declined");
    now = await scrape(url);
    assert.equal(now.value("aim_confirmation_wait_seconds_count", { outcome: "declined" }), 1);
    assert.equal(now.value("aim_invocations_total", { protocol: "http", outcome: "declined" }), 1);
    assert.equal(now.value("aim_confirmations_pending"), 0);

    // A run of the page's own agent (WebMCP), as the tab reports it; the channel keeps order,
    // so an invocation the tab answers after it was read after the report.
    tab.answerWith = "handler";
    tab.send({ type: "run", via: "webmcp", actionId: "search", outcome: "ok", durationMs: 4 });
    await (await bridge.invoke(token, "search", "after")).body?.cancel();
    now = await scrape(url);
    assert.equal(now.value("aim_invocations_total", { protocol: "webmcp", outcome: "ok" }), 1);

    // The tab leaves: the gauges fall.
    tab.socket.close();
    await tab.closed;
    await expectError(
      await bridge.invoke(token, "search", "gone"),
      409,
      "browser_not_connected",
    );
    now = await scrape(url);
    assert.equal(now.value("aim_tabs_connected"), 0);
    assert.equal(now.value("aim_tabs_holding"), 0);
    assert.equal(
      now.value("aim_invocations_total", { protocol: "http", outcome: "browser_not_connected" }),
      1,
    );
  },
);

/** Every label value of a scrape, with the label's name. */
function labelValues(scraped: Scrape): [string, string][] {
  return scraped.samples.flatMap((s) => Object.entries(s.labels));
}

Deno.test(
  "no label holds a token, a credential, a user name, a page, its state, an input or a raw path",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({ metrics: { port: 0 }, users });
    const { token, tab } = await withTab(bridge);
    await using _tab = tab;
    const secrets = {
      token,
      state: "state-needle-4711",
      input: "input-needle-0815",
      path: "path-needle-42",
      query: "query-needle-7",
    };
    tab.setState({ requests: [{ id: secrets.state }] });
    const login = await bridge.invoke(token, "login", {
      username: "alice",
      password: "wonderland",
    });
    assert.equal(login.status, 200, await login.text());
    await (await bridge.invoke(token, "search", secrets.input)).body?.cancel();
    await (await bridge.fetch("/control-panel.toon", {
      headers: { Authorization: `Bearer ${token}` },
    })).body?.cancel();
    await (await bridge.fetch(`/${secrets.path}.json?${secrets.query}=1`)).body?.cancel();
    await (await bridge.fetch(`/__aim/${secrets.path}`)).body?.cancel();
    await (await bridge.fetch(`/${secrets.path}/x.html`)).body?.cancel();
    await (await bridge.fetch(`/agents/${secrets.path}`)).body?.cancel();
    const activity = await bridge.fetch("/__aim/activity", {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.match(await activity.text(), /alice/, "the run did sign in as alice");

    const scraped = await scrape(metricsUrl(bridge));
    const values = labelValues(scraped);
    assert.ok(values.length > 50);
    const forbidden = [
      ...Object.values(secrets),
      "alice",
      "Alice",
      "control-panel",
      "/",
      "wonderland",
    ];
    for (const [name, value] of values) {
      for (const needle of forbidden) {
        assert.ok(!value.includes(needle), `label ${name}="${value}" holds "${needle}"`);
      }
      const allowed = LABEL_VALUES[name];
      assert.ok(allowed, `label ${name} is one of the known labels`);
      assert.ok(allowed(value), `label ${name}="${value}" is one of its fixed values`);
    }
  },
);
