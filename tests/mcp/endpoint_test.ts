/**
 * The MCP endpoint over real HTTP with both official clients and a fake tab: tools are
 * the session's actions, calls take the invoke path, errors are tool results, progress while
 * the person is asked, `list_changed` on sign-in, and the endpoint's guards (token, Host,
 * Origin, an MCP session bound to its token). The bounds on MCP sessions are
 * tests/mcp/session_limits_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { startBridge } from "../helpers/bridge.ts";
import {
  assertInvokeAnswer,
  callBody,
  CLIENT_KINDS,
  connectClient,
  endpoint,
  heldSession,
  initializeBody,
  postHeaders,
  rawSession,
  type TestClient,
  within,
} from "./helpers.ts";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland"), name: "Alice" },
]);

for (const kind of CLIENT_KINDS) {
  Deno.test(`the ${kind} client lists the session's actions as tools and calls them`, async (t) => {
    await using bridge = await startBridge({ users });
    const { token, tab } = await heldSession(bridge);
    await using _tab = tab;
    await using client = await connectClient(kind, bridge.origin, token);

    await t.step("tools are exactly the session's actions, then the read tool", async () => {
      const manifest = await (await bridge.fetch("/control-panel.json", {
        headers: { Authorization: `Bearer ${token}` },
      })).json();
      const tools = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        [...manifest.actions.map((a: { id: string }) => a.id), "aim_read_page"],
      );
      const pay = tools.find((tool) => tool.name === "pay")!;
      assert.deepEqual(pay.inputSchema, {
        type: "object",
        properties: { input: { type: "string", minLength: 1 } },
        required: ["input"],
      });
      assert.deepEqual(pay.annotations, { destructiveHint: true });
      assert.equal(pay.title, undefined);
      assert.equal(pay.description, "Action pay");
      // Protected actions appear only once the session is signed in.
      assert.ok(!tools.some((tool) => tool.name === "approve_request"));
    });

    await t.step("a string action runs with {input}; the answer is the invoke answer", async () => {
      const result = await client.callTool("search", { input: "pending" });
      assert.equal(result.isError, undefined);
      const http = await (await bridge.invoke(token, "search", "pending")).json();
      assertInvokeAnswer(result.structuredContent, {
        ok: true,
        actionId: "search",
        result: { found: "pending" },
        state: { authenticated: false },
      }, http);
      // The text: the result, then the state (the first time this MCP session is told it).
      assert.equal(
        result.content[0]?.text,
        `result:\n  found: pending\nstate_version: ${http.state_version}\n` +
          `state:\n  authenticated: false`,
      );
      // The tab's log (the panel) hears of it, as of an HTTP invocation.
      await tab.next("activity", (m) => m.actionId === "search" && m.status === 200);
    });

    await t.step("an object action runs with its fields", async () => {
      const result = await client.callTool("add_comment", { request_id: "req-2", text: "fine" });
      assert.deepEqual(result.structuredContent.result, {
        commented: { request_id: "req-2", text: "fine" },
      });
    });

    await t.step("invalid input is a tool error with invalid_input and the hint", async () => {
      const result = await client.callTool("search", { query: "pending" });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent.error, "invalid_input");
      assert.match(result.structuredContent.hint, /\{"input": <the string>\}/);
      assert.deepEqual(result.structuredContent.input_example, { input: "x" });
      assert.match(result.content[0]?.text ?? "", /^invalid_input: /);
      const empty = await client.callTool("search", { input: "" });
      assert.equal(empty.structuredContent.error, "invalid_input");
    });

    await t.step("a throwing handler is a tool error with action_failed", async () => {
      const result = await client.callTool("explode", { input: "now" });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent.error, "action_failed");
      assert.match(result.structuredContent.message, /the printer is on fire/);
      assert.match(result.content[0]?.text ?? "", /^action_failed: .*the printer is on fire/);
    });

    await t.step("a declined action is a tool error with declined", async () => {
      tab.answerWith = "decline";
      const result = await client.callTool("pay", { input: "bill-1" });
      tab.answerWith = "handler";
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent.error, "declined");
    });

    await t.step("an unknown tool is a protocol error", async () => {
      await assert.rejects(
        client.callTool("no_such_action", {}),
        (error: { code?: number; message: string }) => {
          assert.equal(error.code, -32602);
          assert.match(error.message, /no_such_action/);
          return true;
        },
      );
    });

    await t.step("the read tool answers what the session manifest says now", async () => {
      // The tab pushes its state before it answers: once the answer is in, so is the state.
      tab.stateAfter = () => ({ requests: [{ id: "req-1" }] });
      await client.callTool("search", { input: "req-1" });
      delete tab.stateAfter;
      const result = await client.callTool("aim_read_page");
      const manifest = await (await bridge.fetch("/control-panel.json", {
        headers: { Authorization: `Bearer ${token}` },
      })).json();
      // The manifest's page, tab and state; its actions are the tool list.
      assert.deepEqual(result.structuredContent, {
        page: manifest.page,
        browser_connected: true,
        state_version: manifest.state_version,
        state: manifest.state,
      });
      assert.deepEqual(result.structuredContent.state.requests, [{ id: "req-1" }]);
    });

    await t.step(
      "a call waiting for the person sends progress to a client that asked",
      async () => {
        tab.answerWith = "never";
        const invoked = tab.next("invoke", (m) => m.input === "bill-2");
        const progressed = Promise.withResolvers<
          { progress: number; message?: string | undefined }
        >();
        const call = client.callTool("pay", { input: "bill-2" }, {
          onprogress: progressed.resolve,
        });
        const invocation = await invoked;
        assert.equal(invocation.consequential, true);
        tab.send({ type: "awaiting", id: invocation.id, message: "Asking the person" });
        const progress = await within(progressed.promise, "progress");
        assert.match(progress.message!, /person .*"pay".*Asking the person/);
        tab.send({ type: "result", id: invocation.id, ok: true, result: { paid: "bill-2" } });
        tab.answerWith = "handler";
        assert.deepEqual((await call).structuredContent.result, { paid: "bill-2" });
      },
    );

    await t.step("a cancelled call withdraws the invocation from the tab", async () => {
      tab.answerWith = "never";
      const invoked = tab.next("invoke", (m) => m.input === "bill-3");
      const abort = new AbortController();
      const call = client.callTool("pay", { input: "bill-3" }, { signal: abort.signal });
      const invocation = await invoked;
      const withdrawn = tab.next("cancel", (m) => m.id === invocation.id);
      abort.abort();
      await assert.rejects(call);
      await within(withdrawn, "the cancel message");
      tab.answerWith = "handler";
    });

    await t.step("a cancelled call that asked for progress is withdrawn too", async () => {
      tab.answerWith = "never";
      const invoked = tab.next("invoke", (m) => m.input === "bill-4");
      const abort = new AbortController();
      const call = client.callTool("pay", { input: "bill-4" }, {
        signal: abort.signal,
        onprogress: () => {},
      });
      const invocation = await invoked;
      const withdrawn = tab.next("cancel", (m) => m.id === invocation.id);
      abort.abort();
      await assert.rejects(call);
      await within(withdrawn, "the cancel message");
      tab.answerWith = "handler";
    });

    await t.step("a retry with the same idempotency key runs the action once", async () => {
      let runs = 0;
      tab.handlers.set("search", () => ++runs);
      const meta = { "aim/idempotency-key": `retry-${kind}` };
      const first = await client.callTool("search", { input: "a" }, { meta });
      const second = await client.callTool("search", { input: "a" }, { meta });
      assert.equal(runs, 1);
      assert.deepEqual(second.structuredContent, first.structuredContent);
    });

    await t.step("signing in adds the protected tools and tells the client", async () => {
      const changed = client.nextListChanged();
      const login = await client.callTool("login", { username: "alice", password: "wonderland" });
      assert.equal(login.isError, undefined, JSON.stringify(login.structuredContent));
      await changed;
      const names = (await client.listTools()).map((tool) => tool.name);
      assert.ok(names.includes("approve_request"), names.join());
      assert.ok(names.includes("logout"), names.join());
      assert.ok(!names.includes("login"), names.join());
    });

    await t.step(
      "the tab registering other actions changes the tools and tells the client",
      async () => {
        const changed = client.nextListChanged();
        await tab.register([{ id: "only_here", handler: () => "here" }]);
        await changed;
        const names = (await client.listTools()).map((tool) => tool.name);
        assert.ok(names.includes("only_here"));
        assert.ok(!names.includes("search"));
      },
    );
  });

  Deno.test(`a self-minted token's page actions answer browser_not_connected (${kind})`, async () => {
    await using bridge = await startBridge();
    const token = await bridge.openSession("/control-panel");
    await using client = await connectClient(kind, bridge.origin, token);
    const names = (await client.listTools()).map((tool) => tool.name);
    assert.deepEqual(names, ["disconnect", "aim_read_page"]);
    const result = await client.callTool("search", { input: "pending" });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error, "browser_not_connected");
    const read = await client.callTool("aim_read_page");
    assert.equal(read.structuredContent.browser_connected, false);
  });
}

Deno.test("without a token, or with a bad one, the endpoint answers 401 with a Bearer challenge", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const cases: [string, Record<string, string>, string][] = [
    ["no token", {}, "missing_token"],
    ["a bad token", { Authorization: "Bearer " + "x".repeat(43) }, "invalid_token"],
    ["a malformed header", { Authorization: "Basic abc" }, "invalid_token"],
    // The cookie the page holds is not a way in: MCP takes the Bearer header only.
    ["the session cookie", { Cookie: `aim_session=${token}` }, "missing_token"],
  ];
  for (const [what, headers, code] of cases) {
    for (const method of ["POST", "GET"]) {
      const res = await bridge.fetch("/__aim/mcp", {
        method,
        headers: { ...postHeaders(), ...headers },
        ...(method === "POST" ? { body: initializeBody() } : {}),
      });
      assert.equal(res.status, 401, `${what} ${method}`);
      assert.match(res.headers.get("WWW-Authenticate") ?? "", /^Bearer /, what);
      assert.equal((await res.json()).error, code, what);
    }
  }
  // A token in the URL is no token.
  const res = await bridge.fetch(`/__aim/mcp?token=${token}&access_token=${token}`, {
    method: "POST",
    headers: postHeaders(),
    body: initializeBody(),
  });
  assert.equal(res.status, 401);
  await res.body?.cancel();
});

Deno.test("a Host or an Origin that is not the bridge's is refused with 403", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  // DNS rebinding: a page of evil.example whose name resolves to 127.0.0.1.
  const rebound = await bridge.served.bridge.fetch(
    new Request("http://evil.example:8000/__aim/mcp", {
      method: "POST",
      headers: postHeaders(token, { Host: "evil.example:8000" }),
      body: initializeBody(),
    }),
  );
  assert.equal(rebound.status, 403);
  assert.equal((await rebound.json()).error, "forbidden_host");
  const cross = await bridge.fetch("/__aim/mcp", {
    method: "POST",
    headers: postHeaders(token, { Origin: "http://evil.example" }),
    body: initializeBody(),
  });
  assert.equal(cross.status, 403);
  assert.equal((await cross.json()).error, "forbidden_origin");
  const site = await bridge.fetch("/__aim/mcp", {
    method: "POST",
    headers: postHeaders(token, { "Sec-Fetch-Site": "cross-site" }),
    body: initializeBody(),
  });
  assert.equal(site.status, 403);
  await site.body?.cancel();
  const same = await bridge.fetch("/__aim/mcp", {
    method: "POST",
    headers: postHeaders(token, { Origin: bridge.origin }),
    body: initializeBody(),
  });
  assert.equal(same.status, 200);
  await same.body?.cancel();
});

Deno.test("an MCP session answers only the token that opened it", async () => {
  await using bridge = await startBridge();
  const mine = await bridge.openSession("/control-panel");
  const theirs = await bridge.openSession("/control-panel");
  await using client = await connectClient("v1", bridge.origin, mine);
  const list = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });
  const withToken = (token: string) =>
    bridge.fetch("/__aim/mcp", {
      method: "POST",
      headers: postHeaders(token, {
        "Mcp-Session-Id": client.sessionId!,
        "MCP-Protocol-Version": "2025-11-25",
      }),
      body: list,
    });
  const refused = await withToken(theirs);
  assert.equal(refused.status, 404);
  assert.equal((await refused.json()).error.code, -32001);
  const accepted = await withToken(mine);
  assert.equal(accepted.status, 200);
  assert.match(await accepted.text(), /aim_read_page/);
});

Deno.test("the MCP sessions of a session end with it", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using client = await connectClient("v2", bridge.origin, token);
  const result = await client.callTool("disconnect");
  assert.equal(result.isError, undefined);
  // The token no longer opens anything.
  await assert.rejects(client.listTools());
  const res = await bridge.fetch("/__aim/mcp", {
    method: "POST",
    headers: postHeaders(token),
    body: initializeBody(),
  });
  assert.equal(res.status, 401);
  await res.body?.cancel();
});

Deno.test("one session holds at most maxPerSession MCP sessions; its oldest goes first", async () => {
  await using bridge = await startBridge({ mcp: { maxPerSession: 2 } });
  const token = await bridge.openSession("/control-panel");
  const clients: TestClient[] = [];
  for (let i = 0; i < 3; i++) clients.push(await connectClient("v1", bridge.origin, token));
  await assert.rejects(clients[0]!.listTools());
  assert.equal((await clients[1]!.listTools()).at(-1)?.name, "aim_read_page");
  assert.equal((await clients[2]!.listTools()).at(-1)?.name, "aim_read_page");
  for (const client of clients) await client.close().catch(() => {});
});

Deno.test("a request without a session id that is not initialize is refused", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const res = await fetch(endpoint(bridge.origin), {
    method: "POST",
    headers: postHeaders(token),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error.code, -32000);
  const deep = await fetch(endpoint(bridge.origin), {
    method: "POST",
    headers: postHeaders(token),
    body: "[".repeat(100) + "]".repeat(100),
  });
  assert.equal(deep.status, 400);
  assert.equal((await deep.json()).error.code, -32700);
});

/** Opens an MCP session over plain HTTP and its GET stream; returns the stream's reader. */
async function openStream(origin: string, token: string) {
  const init = await fetch(endpoint(origin), {
    method: "POST",
    headers: postHeaders(token),
    body: initializeBody(),
  });
  const id = init.headers.get("Mcp-Session-Id")!;
  await init.body?.cancel();
  const headers = { "Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25" };
  const initialized = await fetch(endpoint(origin), {
    method: "POST",
    headers: postHeaders(token, headers),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  assert.equal(initialized.status, 202);
  await initialized.body?.cancel();
  const stream = await fetch(endpoint(origin), {
    headers: { ...headers, Authorization: `Bearer ${token}`, Accept: "text/event-stream" },
  });
  assert.equal(stream.status, 200);
  return stream.body!.getReader();
}

/** Resolves when `reader`'s stream ends; rejects if it is still open after `ms`. */
async function ended(reader: ReadableStreamDefaultReader<Uint8Array>, ms = 5_000): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream was still open after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([
      (async () => {
        while (!(await reader.read()).done);
      })(),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("a session that ends closes the streams of its MCP clients", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const reader = await openStream(bridge.origin, token);
  const res = await bridge.invoke(token, "disconnect");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  await ended(reader);
});

Deno.test("a bridge that stops closes the streams of its MCP clients", async () => {
  const bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const reader = await openStream(bridge.origin, token);
  const stopped = bridge[Symbol.asyncDispose]();
  await ended(reader);
  await stopped;
});

Deno.test("a cancelled request is answered, and its invocation withdrawn", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await heldSession(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const headers = await rawSession(bridge.origin, token);
  const invoked = tab.next("invoke");
  // Hung up in the end whatever happens, so that a failure fails rather than hangs.
  const hangUp = new AbortController();
  using _hangUp = { [Symbol.dispose]: () => hangUp.abort() };
  const call = fetch(endpoint(bridge.origin), {
    method: "POST",
    headers: postHeaders(token, headers),
    body: callBody(41, "pay", { input: "bill-5" }),
    signal: hangUp.signal,
  });
  const invocation = await invoked;
  const withdrawn = tab.next("cancel", (m) => m.id === invocation.id);
  const notice = await fetch(endpoint(bridge.origin), {
    method: "POST",
    headers: postHeaders(token, headers),
    body: JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 41, reason: "changed my mind" },
    }),
  });
  assert.equal(notice.status, 202);
  await notice.body?.cancel();
  await within(withdrawn, "the cancel message");
  // The HTTP exchange of the cancelled request ends: nothing waits for an answer forever.
  const answer = await within(call, "the cancelled request's answer");
  assert.equal((await answer.json()).error.code, -32000);
});

Deno.test("a client that hangs up withdraws its call from the tab", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await heldSession(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const headers = await rawSession(bridge.origin, token);
  const invoked = tab.next("invoke");
  const abort = new AbortController();
  const call = fetch(endpoint(bridge.origin), {
    method: "POST",
    headers: postHeaders(token, headers),
    body: callBody(42, "pay", { input: "bill-6" }),
    signal: abort.signal,
  });
  const invocation = await invoked;
  const withdrawn = tab.next("cancel", (m) => m.id === invocation.id);
  abort.abort();
  await assert.rejects(call);
  await within(withdrawn, "the cancel message");
});
