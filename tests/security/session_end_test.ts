/**
 * Every way a session ends ends everything that waits on it at once: a disconnect,
 * an expiry and a bridge shutdown each answer a waiting long poll with 401 (never a 304), end
 * the event stream with `ended`, end the MCP client's stream, answer a call waiting for the tab
 * (over HTTP, MCP, A2A and ACP) with an error (never a late 200), and nothing answers 200 after.
 */
import assert from "node:assert/strict";
import { A2A_PATH } from "../../bridge/mod.ts";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { endpoint, postHeaders, rawSession, within } from "../mcp/helpers.ts";

/** How the session ends. */
type End = "disconnect" | "expiry" | "shutdown";

/** What one waiting surface finally said: its status and what it sent. */
interface Outcome {
  status: number;
  text: string;
}

async function outcome(res: Promise<Response>): Promise<Outcome> {
  const answer = await res;
  return { status: answer.status, text: await answer.text() };
}

function post(bridge: TestBridge, token: string, path: string, body: unknown, headers = {}) {
  return bridge.fetch(path, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** Opens an MCP session over plain HTTP, initialized; returns the headers its requests carry. */
async function mcpSession(bridge: TestBridge, token: string): Promise<Record<string, string>> {
  const headers = await rawSession(bridge.origin, token);
  const initialized = await fetch(endpoint(bridge.origin), {
    method: "POST",
    headers: postHeaders(token, headers),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await initialized.body?.cancel();
  return headers;
}

/** Starts every kind of wait on one session whose tab never answers; returns their outcomes. */
async function waitEverywhere(bridge: TestBridge, token: string, tab: FakeTab) {
  const auth = { Authorization: `Bearer ${token}` };
  const etag = (await bridge.fetch("/control-panel.json", { headers: auth })).headers.get("etag")!;
  const mcp = await mcpSession(bridge, token);
  const events = await bridge.fetch("/__aim/events", { headers: auth });
  assert.equal(events.status, 200);
  const mcpStream = await fetch(endpoint(bridge.origin), {
    headers: { ...mcp, ...auth, Accept: "text/event-stream" },
  });
  assert.equal(mcpStream.status, 200);
  const waits = {
    "long poll": outcome(bridge.fetch("/control-panel.json", {
      headers: { ...auth, "If-None-Match": etag, Prefer: "wait=30" },
    })),
    "event stream": outcome(Promise.resolve(events)),
    "MCP stream": outcome(Promise.resolve(mcpStream)),
    "HTTP invoke": outcome(bridge.invoke(token, "search", "held")),
    "MCP tools/call": outcome(fetch(endpoint(bridge.origin), {
      method: "POST",
      headers: postHeaders(token, mcp),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "search", arguments: { input: "held" } },
      }),
    })),
    "A2A stream": outcome(post(bridge, token, A2A_PATH, {
      jsonrpc: "2.0",
      id: 1,
      method: "message/stream",
      params: {
        message: {
          kind: "message",
          messageId: crypto.randomUUID(),
          role: "user",
          parts: [{ kind: "data", data: { actionId: "search", input: "held" } }],
        },
      },
    })),
    "ACP stream run": outcome(post(bridge, token, "/runs", {
      agent_name: "control-panel",
      mode: "stream",
      input: [{
        role: "user",
        parts: [{
          content_type: "application/json",
          content: JSON.stringify({ actionId: "search", input: "held" }),
        }],
      }],
    })),
  };
  // Every call has reached the bridge (the tab is sent one at a time) before the session ends.
  await tab.next("invoke", (m) => m.input === "held");
  const session = (await bridge.served.bridge.core.sessions.find(token))!;
  await until(() => session.inFlight === 4, "four calls in flight");
  return waits;
}

/** Resolves once `done()` holds, looking every few milliseconds; fails after 10 s. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Checks what each surface said when its session ended. */
function assertEnded(outcomes: Record<string, Outcome>, end: End): void {
  const said = (name: string) => JSON.stringify(outcomes[name]).slice(0, 300);
  assert.equal(outcomes["long poll"]!.status, 401, said("long poll"));
  assert.match(outcomes["long poll"]!.text, /"invalid_token"/);
  if (end !== "shutdown") {
    // A draining bridge hands its streams off without saying the session ended.
    assert.match(outcomes["event stream"]!.text, /event: ended/, said("event stream"));
  }
  assert.equal(outcomes["MCP stream"]!.status, 200);
  assert.ok(outcomes["HTTP invoke"]!.status >= 400, said("HTTP invoke"));
  assert.doesNotMatch(outcomes["HTTP invoke"]!.text, /"ok":true/);
  assert.doesNotMatch(outcomes["MCP tools/call"]!.text, /\\"ok\\":true/, said("MCP tools/call"));
  assert.match(outcomes["MCP tools/call"]!.text, /"isError":true|"error"/, said("MCP tools/call"));
  assert.doesNotMatch(outcomes["A2A stream"]!.text, /"completed"/, said("A2A stream"));
  assert.match(outcomes["A2A stream"]!.text, /"failed"|"canceled"|"error"/, said("A2A stream"));
  assert.doesNotMatch(outcomes["ACP stream run"]!.text, /run\.completed/, said("ACP stream run"));
  assert.match(
    outcomes["ACP stream run"]!.text,
    /run\.failed|run\.cancelled/,
    said("ACP stream run"),
  );
}

for (const end of ["disconnect", "expiry", "shutdown"] as const) {
  // One process: the test reads the session's calls in flight and ages it with a fake clock.
  Deno.test(
    `a session's ${end} ends every long poll, stream and waiting call at once`,
    ONE_PROCESS,
    async () => {
      let now = Date.now();
      const bridge = await startBridge({
        now: () => now,
        idleMs: 600_000,
        leaseMs: 3_600_000,
        tabTimeoutMs: 60_000,
      });
      try {
        const token = await bridge.openSession("/control-panel");
        const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
        await tab.next("lease");
        await tab.register([{ id: "search", input_example: "pending", handler: () => ({}) }]);
        tab.answerWith = "never";
        const waits = await waitEverywhere(bridge, token, tab);
        if (end === "disconnect") {
          const res = await bridge.invoke(token, "disconnect", {});
          assert.equal(res.status, 200);
          await res.body?.cancel();
        } else if (end === "expiry") {
          now += 600_001;
          bridge.served.bridge.core.sessions.sweep();
        } else {
          // The tab never answers: the bridge must not wait out the tab timeout to end the calls.
          void bridge.served.shutdown();
        }
        const outcomes: Record<string, Outcome> = {};
        for (const [name, wait] of Object.entries(waits)) {
          outcomes[name] = await within(wait, `${name} after the session's ${end}`);
        }
        assertEnded(outcomes, end);
        if (end !== "shutdown") {
          const after = await bridge.fetch("/control-panel.json", {
            headers: { Authorization: `Bearer ${token}` },
          });
          assert.equal(after.status, 401);
          await after.body?.cancel();
        }
        await tab[Symbol.asyncDispose]();
      } finally {
        await bridge[Symbol.asyncDispose]();
      }
    },
  );
}
