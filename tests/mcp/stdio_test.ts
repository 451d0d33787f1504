/**
 * `aim mcp URL` over stdio, driven by the v1 client's `StdioClientTransport`: the same
 * tools and results as the HTTP endpoint, progress and `list_changed` passed on, and the token
 * taken from `AIM_TOKEN` only.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { fileURLToPath } from "node:url";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { main } from "../../main.ts";
import type { CliIO } from "../../bridge/cli/common.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { assertInvokeAnswer, connectClient, within } from "./helpers.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** A CliIO that records what a command writes, with `env` as its environment. */
function recordingIO(env: Record<string, string>) {
  const out = { stdout: "", stderr: "" };
  const io: CliIO = {
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    stdin: () => Promise.resolve(""),
    env: (name) => env[name],
  };
  return { io, out };
}

Deno.test("aim mcp serves the session's tools over stdio, as the endpoint does", async (t) => {
  const users = createUserStore([
    { username: "alice", passwordHash: await hashPassword("wonderland") },
  ]);
  await using bridge = await startBridge({ users });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([
    { id: "search", handler: (input) => ({ found: input }) },
    { id: "pay", consequential: true, handler: (bill) => ({ paid: bill }) },
    { id: "approve_request", protected: true, handler: (id) => ({ approved: id }) },
  ]);

  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--no-check", "main.ts", "mcp", `${bridge.origin}/control-panel`],
    cwd: REPO,
    // The token goes in the environment, never on the command line.
    env: { AIM_TOKEN: token, HOME: Deno.env.get("HOME") ?? "/root" },
    stderr: "pipe",
  });
  const client = new Client({ name: "aim-stdio-test", version: "1.0.0" });
  await client.connect(transport);
  let changed = Promise.withResolvers<void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve());
  try {
    await t.step("the tools are the endpoint's own", async () => {
      await using http = await connectClient("v2", bridge.origin, token);
      assert.deepEqual((await client.listTools()).tools, await http.listTools());
    });

    await t.step("a call's result is the endpoint's result", async () => {
      const result = await client.callTool({ name: "search", arguments: { input: "pending" } });
      const http = await (await bridge.invoke(token, "search", "pending")).json();
      assertInvokeAnswer(result.structuredContent as Record<string, unknown>, {
        ok: true,
        actionId: "search",
        result: { found: "pending" },
        state: { authenticated: false },
      }, http);
      const wrong = await client.callTool({ name: "search", arguments: { q: "x" } });
      assert.equal(wrong.isError, true);
      assert.equal((wrong.structuredContent as { error: string }).error, "invalid_input");
      await assert.rejects(
        client.callTool({ name: "no_such_action", arguments: {} }),
        (error: { code?: number }) => error.code === -32602,
      );
    });

    await t.step("progress while the person is asked is passed on", async () => {
      tab.answerWith = "never";
      const invoked = tab.next("invoke", (m) => m.input === "bill-9");
      const progressed = Promise.withResolvers<string>();
      const call = client.callTool({ name: "pay", arguments: { input: "bill-9" } }, undefined, {
        onprogress: (progress: { message?: string }) => progressed.resolve(progress.message ?? ""),
      });
      const invocation = await invoked;
      tab.send({ type: "awaiting", id: invocation.id, message: "Asking the person" });
      assert.match(
        await within(progressed.promise, "progress"),
        /Waiting for the person to confirm "pay"/,
      );
      tab.send({ type: "result", id: invocation.id, ok: true, result: { paid: "bill-9" } });
      tab.answerWith = "handler";
      const paid = (await call).structuredContent as Record<string, unknown>;
      assert.deepEqual(paid.result, { paid: "bill-9" });
    });

    await t.step("signing in is told as list_changed, and the protected tool appears", async () => {
      changed = Promise.withResolvers<void>();
      const login = await client.callTool({
        name: "login",
        arguments: { username: "alice", password: "wonderland" },
      });
      assert.equal(login.isError, undefined);
      await within(changed.promise, "notifications/tools/list_changed");
      const names = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
      assert.ok(names.includes("approve_request"), names.join());
    });
  } finally {
    await client.close();
  }
});

Deno.test("aim mcp reads the token as aim invoke does, and never prints it", async () => {
  await using bridge = await startBridge();
  const url = `${bridge.origin}/control-panel`;
  const none = recordingIO({});
  assert.equal(await main(["mcp", url], none.io), 2);
  assert.match(none.out.stderr, /^aim: set AIM_TOKEN \(or --token\) to the session token/);
  const empty = recordingIO({ AIM_TOKEN: " " });
  assert.equal(await main(["mcp", url], empty.io), 2);
  assert.match(empty.out.stderr, /^aim: AIM_TOKEN is empty: set it to the token the page shows/);
  const emptyFlag = recordingIO({});
  assert.equal(await main(["mcp", url, "--token", ""], emptyFlag.io), 2);
  assert.match(emptyFlag.out.stderr, /^aim: --token is empty: /);
  const broken = recordingIO({ AIM_TOKEN: "a\nb" });
  assert.equal(await main(["mcp", url], broken.io), 2);
  assert.match(broken.out.stderr, /^aim: AIM_TOKEN holds characters a token never has/);
  const onArgv = recordingIO({});
  const argvToken = "v".repeat(43);
  assert.equal(await main(["mcp", url, "--token", argvToken], onArgv.io), 1);
  assert.match(onArgv.out.stderr, /^aim: cannot open an MCP session at /);
  assert.doesNotMatch(onArgv.out.stderr, new RegExp(argvToken));
  const wrong = "w".repeat(43);
  const refused = recordingIO({ AIM_TOKEN: wrong });
  assert.equal(await main(["mcp", url], refused.io), 1);
  assert.match(
    refused.out.stderr,
    /^aim: cannot open an MCP session at http:\/\/127\.0\.0\.1:\d+\/__aim\/mcp/,
  );
  assert.doesNotMatch(refused.out.stderr, new RegExp(wrong));
  assert.equal(refused.out.stdout, "");
});

Deno.test("aim mcp answers a line that is not JSON with -32700 and one that is no request with -32600", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-check", "main.ts", "mcp", `${bridge.origin}/control-panel`],
    cwd: REPO,
    env: { AIM_TOKEN: token },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode('{"jsonrpc": "2.0", "id": 1, "method"\n[1, 2]\n'));
  // The host hangs up: the command answers what it read, then ends.
  await writer.close();
  const out = await child.output();
  assert.equal(out.code, 0);
  const text = new TextDecoder().decode(out.stdout);
  assert.deepEqual(text.trim().split("\n").map((line) => JSON.parse(line)), [
    {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: the line is not JSON" },
    },
    {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid request: the line is not a JSON-RPC 2.0 message" },
    },
  ]);
});
