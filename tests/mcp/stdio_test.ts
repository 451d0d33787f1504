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

Deno.test("aim mcp takes the token from AIM_TOKEN only, and never prints it", async () => {
  await using bridge = await startBridge();
  const url = `${bridge.origin}/control-panel`;
  const onArgv = recordingIO({});
  assert.equal(await main(["mcp", url, "--token", "x".repeat(43)], onArgv.io), 2);
  assert.match(onArgv.out.stderr, /AIM_TOKEN only/);
  const none = recordingIO({});
  assert.equal(await main(["mcp", url], none.io), 2);
  assert.match(none.out.stderr, /set AIM_TOKEN/);
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
