/**
 * The demo task over MCP as a host runs it, through the official client
 * (`@modelcontextprotocol/client`): list the tools signed out, call `login`, list them again when
 * `notifications/tools/list_changed` comes, approve req-3 (the person confirms), and confirm with
 * `aim_read_page` that it is approved. The agent decides from the result texts alone (TOON, as
 * a model reads them), and every step is counted in o200k_base tokens (gpt-tokenizer): each
 * `tools/list` as the JSON of its tools, each call's arguments as JSON, each result's text.
 * The server's instructions (once, in the host's system prompt) are counted apart.
 * The agent applies the patches with an implementation independent of aim's
 * (tests/helpers/patches.ts). `deno task bench:tokens` prints it; tests/mcp/tokens_test.ts holds
 * it to its budget.
 *
 * @module
 */
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer";
import { decode as decodeToon } from "@toon-format/toon";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { JsonPatchOperation } from "../bridge/wire/json_patch.ts";
import { applyJsonPatch } from "../tests/helpers/patches.ts";

/** The budget of the demo task over MCP, in tokens (8× under Playwright MCP's). */
export const MCP_TASK_BUDGET = 1_000;

/** One step of the task: what the model read and wrote, and its tokens. */
export interface McpStep {
  step: string;
  /** What the model wrote (a call's arguments as JSON), if anything. */
  wrote: string;
  /** What the model read: a tool list's JSON, or a result's text. */
  read: string;
  tokens: number;
}

/** The task's steps and totals. */
export interface McpTask {
  steps: McpStep[];
  /** Every step: tool lists, arguments, result texts. */
  total: number;
  /** The server's instructions, read once in the host's system prompt; not in `total`. */
  instructions: number;
  /** The tool lists as a model is shown them (name, description, input schema), for reference. */
  modelFacingLists: number;
}

/** What the agent holds of the state: the version and the state, from the texts alone. */
interface Held {
  version: number;
  state: Record<string, unknown>;
}

const tokens = (text: string) => text ? countTokens(text) : 0;

/** A result text read as the agent would: TOON, holding the state whole or its changes. */
function follow(held: Held | undefined, text: string): Held {
  const answer = decodeToon(text) as {
    state_version: number;
    state?: Record<string, unknown>;
    changes_since?: number;
    changes?: JsonPatchOperation[];
  };
  if (answer.state) return { version: answer.state_version, state: answer.state };
  assert.ok(held, `changes came before any state: ${text}`);
  assert.equal(answer.changes_since, held.version, `changes since a version not held: ${text}`);
  return {
    version: answer.state_version,
    state: applyJsonPatch(held.state, answer.changes ?? []) as Record<string, unknown>,
  };
}

function statusOf(held: Held, id: string): string | undefined {
  const rows = held.state.requests as { id: string; status: string }[] | undefined;
  return rows?.find((r) => r.id === id)?.status;
}

/**
 * Runs the demo task on the bridge at `origin` with the session `token` (a tab holds the
 * session, and the person confirms), and counts what it cost.
 */
export async function mcpDemoTask(origin: string, token: string): Promise<McpTask> {
  const client = new Client({ name: "aim-bench-host", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/__aim/mcp", origin), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const steps: McpStep[] = [];
  let modelFacingLists = 0;
  let changed = () => {};
  client.setNotificationHandler("notifications/tools/list_changed", () => changed());
  try {
    const list = async (step: string) => {
      const { tools } = await client.listTools(undefined, { cacheMode: "bypass" });
      const read = JSON.stringify(tools);
      steps.push({ step, wrote: "", read, tokens: tokens(read) });
      modelFacingLists += tokens(JSON.stringify(tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema,
      }))));
      return tools.map((t) => t.name);
    };
    const call = async (step: string, name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      const read = (result.content as { type: string; text?: string }[])
        .map((c) => c.text ?? "").join("\n");
      const wrote = JSON.stringify(args);
      steps.push({ step, wrote, read, tokens: tokens(wrote) + tokens(read) });
      assert.notEqual(result.isError, true, `${name} failed: ${read}`);
      return read;
    };

    const signedOut = await list("tools/list signed out");
    assert.ok(signedOut.includes("login"), "signed out, the tools offer login");
    const listChanged = new Promise<void>((resolve) => changed = resolve);
    const login = await call("login", "login", { username: "alice", password: "wonderland" });
    let held = follow(undefined, login);
    assert.equal(statusOf(held, "req-3"), "pending", "the login answer shows req-3 pending");
    await listChanged;
    const signedIn = await list("tools/list signed in (after list_changed)");
    assert.ok(signedIn.includes("approve_request"), "signed in, the tools offer approve_request");
    const approved = await call("approve_request", "approve_request", { input: "req-3" });
    held = follow(held, approved);
    assert.equal(statusOf(held, "req-3"), "approved", "the approval answer shows req-3 approved");
    const read = await call("aim_read_page (since the answer)", "aim_read_page", {
      since: held.version,
    });
    held = follow(held, read);
    assert.equal(statusOf(held, "req-3"), "approved", "the read confirms req-3 approved");
    return {
      steps,
      total: steps.reduce((n, s) => n + s.tokens, 0),
      instructions: tokens(client.getInstructions() ?? ""),
      modelFacingLists,
    };
  } finally {
    await client.close();
  }
}
