/**
 * The limits docs/security.md promises are the code's: each row of its "Limits" and "ACP runs"
 * tables, and the numbers of its "Login" paragraph, are written here from the constants the code
 * uses, and must read as the docs read. A bound changed in code alone (or in the docs alone) fails.
 *
 * @module
 */
import assert from "node:assert/strict";
import { AUDIT_DEFAULTS } from "../../bridge/audit/log.ts";
import { ADDRESS_CHARACTERS } from "../../bridge/core/address_budget.ts";
import { CHANNEL_BUDGETS } from "../../bridge/core/channel_budget.ts";
import { DEFAULT_LIMITS, DEFAULTS, MAX_WAIT_SECONDS } from "../../bridge/core/limits.ts";
import { ATTEMPT_DEFAULTS } from "../../bridge/core/login.ts";
import { SCHEMA_CHECK_BUDGET } from "../../bridge/core/schema_checks.ts";
import { LOGIN_DEFAULTS } from "../../bridge/core/server_actions.ts";
import { STREAM_DEFAULTS } from "../../bridge/core/streams.ts";
import { RUN_REPORTS } from "../../bridge/core/tab_messages.ts";
import { MCP_DEFAULTS } from "../../bridge/mcp/routes.ts";
import { MAX_INITIALIZE_BYTES } from "../../bridge/mcp/session.ts";
import { RUN_LIMITS } from "../../bridge/runs/registry.ts";
import { CATALOG_DEFAULTS } from "../../bridge/upstream/catalog.ts";
import { PROXY_DEFAULTS } from "../../bridge/upstream/proxy.ts";
import { RELAY_DEFAULTS } from "../../bridge/upstream/websocket.ts";
import { MAX_JSON_DEPTH } from "../../bridge/wire/json.ts";

const DOC = await Deno.readTextFile(new URL("../../docs/security.md", import.meta.url));

/** `65536` → `64 KiB`, `1048576` → `1 MiB`: how the docs write a size. */
function bytes(n: number): string {
  if (n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  assert.equal(n % 1024, 0, `${n} bytes is no whole KiB`);
  return `${n / 1024} KiB`;
}

/** `1000` → `1,000`. */
function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** `10000` → `10 s`, `120000` → `2 minutes`, `3600000` → `1 hour`. */
function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? "1 hour" : `${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0 && ms >= 120_000) return `${ms / 60_000} minutes`;
  return `${ms / 1000} s`;
}

/** The rows of the first table after `heading`: the first cell → the second. */
function table(heading: string): Map<string, string> {
  const start = DOC.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/security.md has no "${heading}"`);
  const lines = DOC.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("| "));
  const rows = new Map<string, string>();
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("| ")) break;
    const [label, value] = line.split(" | ").map((cell) => cell.replace(/^\|/, "").trim());
    rows.set(label!, value!);
  }
  return rows;
}

const LIMITS: [label: string, value: string][] = [
  ["request body", bytes(DEFAULT_LIMITS.maxBodyBytes)],
  ["time for a body to arrive", duration(DEFAULT_LIMITS.bodyTimeoutMs)],
  ["JSON nesting", `${MAX_JSON_DEPTH} levels`],
  ["channel message", bytes(DEFAULT_LIMITS.maxMessageBytes)],
  [
    "bytes of a relayed WebSocket (`--upstream`) waiting for either side to read",
    bytes(PROXY_DEFAULTS.webSocketBufferBytes),
  ],
  ["state snapshot", bytes(DEFAULT_LIMITS.maxStateBytes)],
  ["invocations in flight per session", `${DEFAULT_LIMITS.maxInFlight}`],
  ["tabs per session", `${DEFAULTS.maxTabs}`],
  ["time for a new channel to say hello", duration(DEFAULTS.helloTimeoutMs)],
  [
    "runs of an in-browser agent (WebMCP) one tab may report",
    `${RUN_REPORTS.burst} at once, then ${RUN_REPORTS.perMinute} a minute`,
  ],
  [
    "channel messages of one kind, and characters of all, per session's tabs",
    `a burst, then so many a second: e.g. \`navigate\` ${CHANNEL_BUDGETS.navigate.burst}, then ${CHANNEL_BUDGETS.navigate.perSecond} a second`,
  ],
  [
    "the bridge's time checking actions it has not seen, per session's tabs",
    `${count(SCHEMA_CHECK_BUDGET.burst)} ms, then ${SCHEMA_CHECK_BUDGET.perSecond} ms a second`,
  ],
  [
    "characters of channel messages, all the tabs of one client address together",
    `${ADDRESS_CHARACTERS.burst / (1 << 20)} Mi, then ${
      ADDRESS_CHARACTERS.perSecond / (1 << 20)
    } Mi a second`,
  ],
  [
    "a new tab socket of a session (or address) that spent its characters",
    `half a burst (${
      CHANNEL_BUDGETS.characters.burst / 2 / (1 << 20)
    } Mi) back in the budget, and a \`hello\` token`,
  ],
  [
    "session mints (`POST /__aim/session`) per client address",
    `${DEFAULTS.mintRate.burst}, then ${DEFAULTS.mintRate.perSecond} a second; ${DEFAULTS.maxMintsPerClient} under way`,
  ],
  [
    "requests waiting in line for their client's turn at costly work (mints, password checks, ACP runs)",
    `${duration(DEFAULTS.lineWaitMs)} each; ${DEFAULTS.maxWaitingPerClient} per client address, ${
      count(DEFAULTS.maxWaiting)
    } in all, per line`,
  ],
  ["sessions held", count(DEFAULTS.maxSessions)],
  ["idle time of a session nobody used and no tab bound", duration(DEFAULTS.freshIdleMs)],
  ["unused sessions per client address", count(DEFAULTS.maxFreshPerClient)],
  ["idle time of a session in use", duration(DEFAULTS.idleMs)],
  ["tab lease", duration(DEFAULTS.leaseMs)],
  ["wait for the tab's answer", duration(DEFAULTS.tabTimeoutMs)],
  ["wait for the person's confirmation", duration(DEFAULTS.confirmTimeoutMs)],
  ["`Idempotency-Key`s kept per session", `${DEFAULTS.maxIdempotencyKeys}`],
  ["bytes of idempotent answers kept per session", bytes(DEFAULTS.maxIdempotencyBytes)],
  ["audit log retention", `${AUDIT_DEFAULTS.retentionDays} days`],
  [
    "wait for the page to settle after an action (`settled: false` past it)",
    duration(DEFAULTS.settleTimeoutMs),
  ],
  ["long poll on a manifest (`Prefer: wait=N`)", `${MAX_WAIT_SECONDS} s at most`],
  [
    "event streams and long polls waiting at once, per session",
    `${DEFAULTS.maxWaitingRequests}`,
  ],
  [
    "computing change documents, per session / per client address",
    `${DEFAULTS.changeBudget.session.msPerSecond} / ${DEFAULTS.changeBudget.client.msPerSecond} ms a second`,
  ],
  [
    "MCP sessions per aim session / per client address / in all",
    `${MCP_DEFAULTS.maxPerSession} / ${MCP_DEFAULTS.maxPerClient} / ${
      count(MCP_DEFAULTS.maxSessions)
    }`,
  ],
  ["MCP `initialize` request, as JSON", bytes(MAX_INITIALIZE_BYTES)],
  [
    "refused calls written to the audit log one by one, a minute",
    `${AUDIT_DEFAULTS.maxRefusals.perSession} / session, ${AUDIT_DEFAULTS.maxRefusals.perClient} / address`,
  ],
  [
    "event streams and long polls (every protocol) open at once, per client address",
    `${STREAM_DEFAULTS.perClient}`,
  ],
  [
    "event streams and long polls (every protocol) open at once, in all",
    `${
      count(STREAM_DEFAULTS.total)
    }, at most a quarter of the file limit (256 when it cannot be read)`,
  ],
];

Deno.test("every row of docs/security.md's Limits table reads as the code's defaults", () => {
  const rows = table("## Limits");
  for (const [label, value] of LIMITS) {
    assert.ok(rows.has(label), `docs/security.md's Limits table has no row "${label}"`);
    assert.equal(rows.get(label), value, label);
  }
  assert.equal(rows.size, LIMITS.length, "a row of the Limits table is not checked here");
  // What the table and the code use beside each other must agree too.
  assert.equal(PROXY_DEFAULTS.webSocketBufferBytes, RELAY_DEFAULTS.bufferBytes);
  assert.deepEqual(ADDRESS_CHARACTERS, CHANNEL_BUDGETS.characters);
});

Deno.test("every row of docs/security.md's ACP runs table reads as the run store's limits", () => {
  const rows = table("### ACP runs");
  const expected: [string, string][] = [
    [
      "runs under way per session",
      `${RUN_LIMITS.maxActiveRunsPerSession}`,
    ],
    ["runs under way per client address", `${RUN_LIMITS.maxActiveRunsPerClient}`],
    [
      "a run's wait in line for a place",
      `${
        duration(RUN_LIMITS.lineWaitMs)
      } (\`lineWaitMs\`); ${RUN_LIMITS.maxWaitingPerClient} waiting per client address, ${
        count(RUN_LIMITS.maxWaiting)
      } in all`,
    ],
    ["bytes kept per session", bytes(RUN_LIMITS.maxSessionBytes)],
    ["bytes kept in all", bytes(RUN_LIMITS.maxBytes)],
    [
      "runs kept",
      `${RUN_LIMITS.maxRunsPerSession} per session, ${count(RUN_LIMITS.maxRuns)} in all`,
    ],
  ];
  for (const [label, value] of expected) assert.equal(rows.get(label), value, label);
});

Deno.test("docs/security.md's Login paragraph states the code's numbers", () => {
  const start = DOC.indexOf("\n### Login\n");
  const text = DOC.slice(start, DOC.indexOf("\n### ACP runs\n")).replace(/\s+/g, " ");
  const maxAll = LOGIN_DEFAULTS.maxConcurrentLogins;
  const sentences = [
    `The first ${ATTEMPT_DEFAULTS.max} failures cost nothing; then the client waits ${
      duration(ATTEMPT_DEFAULTS.baseDelayMs)
    }, ${duration(2 * ATTEMPT_DEFAULTS.baseDelayMs)}, ${
      duration(4 * ATTEMPT_DEFAULTS.baseDelayMs)
    } … at most ${duration(ATTEMPT_DEFAULTS.maxDelayMs)}`,
    `failures are forgotten after ${
      ATTEMPT_DEFAULTS.windowMs / 60_000
    } quiet minutes, and at most ${count(ATTEMPT_DEFAULTS.maxKeys)} keys are remembered`,
    `At most ${maxAll} password checks run at once, at most ${LOGIN_DEFAULTS.maxConcurrentLoginsPerClient} per (client address, account), ${LOGIN_DEFAULTS.maxConcurrentLoginsPerClient} per session and ${
      Math.max(1, Math.floor(maxAll / 2))
    } per client address`,
    `one client address starts at most ${LOGIN_DEFAULTS.loginRatePerAddress.burst} checks at once and then one a second`,
    `waits in line for its turn, at most ${
      duration(LOGIN_DEFAULTS.loginQueueMs)
    } and ${DEFAULTS.maxWaitingPerClient} of it at once (${count(DEFAULTS.maxWaiting)} in all;`,
  ];
  assert.equal(LOGIN_DEFAULTS.loginRatePerAddress.perSecond, 1, "the docs say one a second");
  for (const sentence of sentences) assert.ok(text.includes(sentence), sentence);
});

Deno.test("docs/channel.md's budget table reads as CHANNEL_BUDGETS", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/channel.md", import.meta.url));
  const rows = new Map<string, string[]>();
  for (const line of doc.slice(doc.search(/^\| messages +\| burst/m)).split("\n").slice(2)) {
    if (!line.startsWith("| ")) break;
    const cells = line.split(" | ").map((cell) => cell.replace(/^\||\|$/g, "").trim());
    rows.set(cells[0]!, cells.slice(1));
  }
  const { characters } = CHANNEL_BUDGETS;
  const expected: [string, string[]][] = [
    ["`hello` (each socket of the session)", CHANNEL_BUDGETS.hello],
    ["`navigate`", CHANNEL_BUDGETS.navigate],
    ["`heartbeat`", CHANNEL_BUDGETS.heartbeat],
    ["`register`", CHANNEL_BUDGETS.register],
    ["`state`", CHANNEL_BUDGETS.state],
    ["`result`, `awaiting`, `settled`", CHANNEL_BUDGETS.answer],
    ["`run`", CHANNEL_BUDGETS.run],
  ].map(([label, rate]) => {
    const { burst, perSecond } = rate as (typeof CHANNEL_BUDGETS)["hello"];
    return [label as string, [`${burst}`, `${perSecond}`]];
  });
  expected.push([
    "characters of every message, all together",
    [
      `${characters.burst / (1 << 20)} Mi (${count(characters.burst)})`,
      `${characters.perSecond / (1 << 20)} Mi (${count(characters.perSecond)})`,
    ],
  ]);
  for (const [label, cells] of expected) assert.deepEqual(rows.get(label), cells, label);
  assert.equal(rows.size, Object.keys(CHANNEL_BUDGETS).length);
});

Deno.test("docs/security.md's bounds in front of an app are the catalog's and the relay's", () => {
  const text = DOC.replace(/\s+/g, " ");
  const sentences = [
    `reads are bounded (${bytes(CATALOG_DEFAULTS.maxBytes)}, ${
      duration(CATALOG_DEFAULTS.timeoutMs)
    }, ${CATALOG_DEFAULTS.maxPages} pages, one read per page at a time) and cached ${
      duration(CATALOG_DEFAULTS.freshMs)
    } per page path`,
    `The paths sessions visited are listed (bounded at ${CATALOG_DEFAULTS.maxPages})`,
    `never wait more than \`upstreamCatalog.listWaitMs\` (${
      duration(CATALOG_DEFAULTS.listWaitMs)
    }) for the app`,
    `Background reads go at most ${CATALOG_DEFAULTS.readers} at a time (\`upstreamCatalog.readers\`)`,
    `the pages a list reads are at most ${CATALOG_DEFAULTS.maxPages} (the app's site map first`,
    `costs the app ${CATALOG_DEFAULTS.readers} reads at once`,
    `stay within ${bytes(RELAY_DEFAULTS.bufferBytes)} with it`,
  ];
  for (const sentence of sentences) assert.ok(text.includes(sentence), sentence);
});
