/**
 * What an agent reads over MCP on the demo (its control panel held by the benchmarks' fake tab,
 * bench/demo_tab.ts): the demo task costs at most its budget in tokens (o200k_base: a count, not
 * a timing), and the texts alone still let the agent do the task and see a failure (a declined
 * confirmation, a change the person made, a version it cannot hold).
 *
 * @module
 */
import assert from "node:assert/strict";
import { decode as decodeToon } from "@toon-format/toon";
import { startDemo } from "../../demo/app.ts";
import { type DemoTab, openDemoTab } from "../../bench/demo_tab.ts";
import { MCP_TASK_BUDGET, mcpDemoTask } from "../../bench/mcp_task.ts";
import { connectClient, type TestClient } from "./helpers.ts";

/** A fresh demo with its control panel held, and an MCP client on its session. */
async function demoSession(): Promise<
  AsyncDisposable & { origin: string; panel: DemoTab; demo: Awaited<ReturnType<typeof startDemo>> }
> {
  const data = Deno.makeTempDirSync({ prefix: "aim-mcp-tokens-" });
  const demo = await startDemo({ data, hostname: "127.0.0.1", port: 0 });
  const panel = await openDemoTab(demo.served.url);
  return {
    origin: demo.served.url,
    panel,
    demo,
    async [Symbol.asyncDispose]() {
      await panel.close();
      await demo[Symbol.asyncDispose]();
      Deno.removeSync(data, { recursive: true });
    },
  };
}

/** The result's text, read as TOON. */
function read(result: { content: { text?: string }[] }): Record<string, unknown> {
  return decodeToon(result.content[0]?.text ?? "") as Record<string, unknown>;
}

async function signIn(client: TestClient): Promise<Record<string, unknown>> {
  const changed = client.nextListChanged();
  const login = await client.callTool("login", { username: "alice", password: "wonderland" });
  assert.notEqual(login.isError, true, login.content[0]?.text);
  await changed;
  return read(login);
}

Deno.test("the demo task over MCP costs at most its budget in tokens, as a host counts them", async () => {
  await using session = await demoSession();
  const task = await mcpDemoTask(session.origin, session.panel.token);
  assert.equal(session.demo.store.get("req-3").status, "approved");
  assert.deepEqual(task.steps.map((s) => s.step), [
    "tools/list signed out",
    "login",
    "tools/list signed in (after list_changed)",
    "approve_request",
    "aim_read_page (since the answer)",
  ]);
  assert.ok(
    task.total <= MCP_TASK_BUDGET,
    `${task.total} tokens: ${task.steps.map((s) => `${s.step} ${s.tokens}`).join(", ")}`,
  );
});

Deno.test("over MCP, a declined approval is a tool error the text names, and nothing changed", async () => {
  await using session = await demoSession();
  await using client = await connectClient("v2", session.origin, session.panel.token);
  const signedIn = await signIn(client);
  session.panel.tab.answerWith = "decline";
  const declined = await client.callTool("approve_request", { input: "req-3" });
  assert.equal(declined.isError, true);
  assert.match(declined.content[0]?.text ?? "", /^declined: /);
  const now = read(await client.callTool("aim_read_page", { since: signedIn.state_version }));
  assert.deepEqual(now.changes, [], "the state is as the agent holds it");
  assert.equal(session.demo.store.get("req-3").status, "pending");
});

Deno.test("over MCP, what the person changed shows in the agent's next answer", async () => {
  await using session = await demoSession();
  await using client = await connectClient("v2", session.origin, session.panel.token);
  const signedIn = await signIn(client);
  await session.panel.pick("pending");
  const approved = read(await client.callTool("approve_request", { input: "req-3" }));
  assert.equal(approved.changes_since, signedIn.state_version);
  const changes = approved.changes as { op: string; path: string; value?: unknown }[];
  assert.ok(
    changes.some((c) => c.path === "/filter" && c.value === "pending"),
    `the person's filter is in the changes: ${JSON.stringify(changes)}`,
  );
});

Deno.test("over MCP, a since the agent cannot hold is answered with the whole state and why", async () => {
  await using session = await demoSession();
  await using client = await connectClient("v2", session.origin, session.panel.token);
  const signedIn = await signIn(client);
  const version = signedIn.state_version as number;
  const ahead = read(await client.callTool("aim_read_page", { since: version + 5 }));
  assert.equal(
    ahead.note,
    `Version ${version + 5} is ahead of the page's state_version ${version}: this is the ` +
      `whole state at ${version}.`,
  );
  assert.deepEqual(ahead.state, signedIn.state);
  const bad = await client.callTool("aim_read_page", { since: "latest" });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0]?.text ?? "", /^invalid_input: since must be a state_version/);
});
