/**
 * `deno task bench:tokens`: what the demo costs an agent in tokens (o200k_base, the
 * encoding of GPT-4o and later, by gpt-tokenizer), over real HTTP against the demo
 * (`startDemo`) whose control panel is the fake one of bench/demo_tab.ts (the demo's requests
 * through its API, in the page's rows; the person always confirms):
 *
 * 1. the signed-in session manifest as JSON and as TOON, in bytes and tokens (TOON must be the
 *    smaller: the rows are flat, so TOON writes them as a table);
 * 2. watching the page through ten changes the person makes: polling full manifests, polling
 *    with `If-None-Match` (a `304` has no body), waiting for change documents (`Prefer: wait`
 *    and `Accept: application/merge-patch+json`), and the event stream (`GET /__aim/events`);
 * 3. the README's task (read the page signed out, sign in, approve req-3 with the person
 *    confirming, confirm it is approved) as the walkthrough does it, and the cheapest way with
 *    settled answers, change documents and conditional reads. Goal: under 1,000 tokens.
 * 4. the same task over MCP as a host runs it (bench/mcp_task.ts), beside the HTTP paths and
 *    Playwright MCP's figures for the same task (docs/mcp.md, "What a task costs").
 *
 * Counted: the bodies the agent reads and the bodies it writes. Its request lines and headers
 * (the URL, the token, an `If-None-Match`) and the status lines it reads are the same few tokens
 * whichever way it reads, and are counted apart. Lines starting `summary: ` are for
 * `deno task bench`, which runs this and repeats them in its summary.
 *
 * @module
 */
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer";
import { decode as decodeToon, encode as encodeToon } from "@toon-format/toon";
import type { JsonPatchOperation } from "../bridge/wire/json_patch.ts";
import { applyJsonPatch } from "../tests/helpers/patches.ts";
import { DEMO_PAGE } from "./demo_tab.ts";
import {
  Agent,
  ALICE,
  bytes,
  etagVersion,
  freshDemo,
  printLog,
  signIn,
  tokens,
  total,
} from "./token_agent.ts";

import { MCP_TASK_BUDGET, mcpDemoTask } from "./mcp_task.ts";
import { watching } from "./token_watching.ts";

/** A JSON value, as the change documents hold them. */
type Json = unknown;

/** The goal of the cheapest HTTP way through the demo task, in tokens. */
const TASK_GOAL = 700;
/** The goal of README's walkthrough as written, in tokens. */
const WALKTHROUGH_GOAL = 1_500;
/**
 * Playwright MCP on the same task, as docs/mcp.md gives it ("What a task costs"): its tool
 * catalog, and the whole task (catalog, snapshots and calls). Not measured here.
 */
const PLAYWRIGHT_MCP = { catalog: 4_396, task: 8_153 } as const;
const summaries: string[] = [];

/** 1. The signed-in manifest, JSON against TOON. */
async function manifestSizes(): Promise<void> {
  console.log("\n### The demo's session manifest, JSON vs TOON (o200k_base tokens)");
  await using demo = await freshDemo();
  const agent = new Agent(demo.origin, demo.panel.token);
  const rows: string[] = [];
  const measure = async (when: string) => {
    const json = await agent.get(when, `${DEMO_PAGE}.json`);
    const toon = await agent.get(when, `${DEMO_PAGE}.toon`);
    assert.deepEqual(
      decodeToon(toon.body),
      JSON.parse(json.body),
      "the TOON says what the JSON does",
    );
    const [jb, tb, jt, tt] = [
      bytes(json.body),
      bytes(toon.body),
      tokens(json.body),
      tokens(toon.body),
    ];
    console.log(
      `  ${when.padEnd(11)} JSON ${jb} B, ${jt} tokens; TOON ${tb} B, ${tt} tokens ` +
        `(TOON/JSON: ${(tb / jb).toFixed(2)} in bytes, ${(tt / jt).toFixed(2)} in tokens)`,
    );
    return { jb, tb, jt, tt, manifest: JSON.parse(json.body) as Record<string, unknown> };
  };
  await measure("signed out");
  await signIn(agent);
  await demo.panel.sync();
  const signedIn = await measure("signed in");
  // Where the tokens go: each part encoded alone (in TOON).
  const { actions, state, ...header } = signedIn.manifest as {
    actions: unknown[];
    state: Record<string, unknown>;
  };
  const { requests, ...restOfState } = state;
  console.log(
    `  signed in, TOON by part: actions ${tokens(encodeToon({ actions }))} tokens, ` +
      `state.requests ${tokens(encodeToon({ requests }))}, the rest of the state ${
        tokens(encodeToon({ state: restOfState }))
      }, the other fields ${tokens(encodeToon(header))}`,
  );
  const smaller = signedIn.tb < signedIn.jb && signedIn.tt < signedIn.jt;
  console.log(
    `  signed in, TOON is ${smaller ? "smaller" : "NOT smaller"} than JSON in bytes and tokens`,
  );
  rows.push(
    `signed-in manifest JSON ${signedIn.jb} B / ${signedIn.jt} tokens, TOON ${signedIn.tb} B / ` +
      `${signedIn.tt} tokens (${smaller ? "TOON smaller" : "TOON NOT smaller"})`,
  );
  summaries.push(...rows);
}

/** 3. The README's task: as the walkthrough does it, and the cheapest way. */
async function task(): Promise<number> {
  console.log(
    "\n### The demo task: read the page signed out, sign in, approve req-3 (the person " +
      "confirms), confirm it is approved",
  );
  const req3 = (state: { requests?: { id: string; status: string }[] }) =>
    state.requests?.find((r) => r.id === "req-3")?.status;

  {
    await using demo = await freshDemo();
    const agent = new Agent(demo.origin, demo.panel.token);
    const toon = { Accept: "text/toon" };
    await agent.get("read the page signed out (.toon)", `${DEMO_PAGE}.toon`);
    const login = await agent.invoke("sign in (answer in TOON)", "login", ALICE, toon);
    assert.equal(login.status, 200, login.body);
    await agent.get("read the page signed in (.toon)", `${DEMO_PAGE}.toon`);
    const approved = await agent.invoke(
      "approve req-3 (answer in TOON)",
      "approve_request",
      "req-3",
      toon,
    );
    assert.equal(approved.status, 200, approved.body);
    assert.equal(req3(decodeToon(approved.body) as never), undefined);
    assert.equal(
      req3((decodeToon(approved.body) as { state: never }).state),
      "approved",
      "the approval's answer shows req-3 approved",
    );
    assert.equal(demo.store.get("req-3").status, "approved");
    const t = total(agent.log);
    console.log(`As README's walkthrough does it (whole manifests and states, in TOON):`);
    printLog(agent.log);
    console.log(
      `  total: ${t.all} tokens (wrote ${t.wrote}, read ${t.read}); with request lines ` +
        `and headers: ${t.all + t.overhead}`,
    );
    const held = t.all <= WALKTHROUGH_GOAL;
    console.log(`  goal at most ${WALKTHROUGH_GOAL}: ${held ? "held" : "MISSED"}`);
    summaries.push(
      `README walkthrough as written: ${t.all} tokens (budget ${WALKTHROUGH_GOAL}: ${
        held ? "held" : "MISSED"
      })`,
    );
  }

  await using demo = await freshDemo();
  const agent = new Agent(demo.origin, demo.panel.token);
  // Signed out: what the page is and what it offers.
  const signedOut = await agent.get("read the page signed out (.toon)", `${DEMO_PAGE}.toon`);
  assert.equal(signedOut.status, 200);
  // Sign in, on the version read: the settled answer says what changed in the page since
  // (the requests, the actions signed in), in TOON.
  let held = decodeToon(signedOut.body) as Record<string, unknown>;
  const cheap = { Accept: "text/toon", Prefer: "return=changes" };
  const login = await agent.invoke("sign in (what changed since, .toon)", "login", ALICE, {
    ...cheap,
    "If-Match": `"v${etagVersion(signedOut)}"`,
  });
  assert.equal(login.status, 200, login.body);
  const loginAnswer = decodeToon(login.body) as Record<string, unknown>;
  assert.ok(loginAnswer.changes, "the login answer holds what changed");
  held = applyJsonPatch(held, loginAnswer.changes as JsonPatchOperation[]) as Record<
    string,
    unknown
  >;
  const settled = loginAnswer.settled !== false &&
    req3(held.state as never) === "pending";
  // Approve, on the version the agent decided on; the fake person confirms.
  const approved = await agent.invoke(
    "approve req-3 (what changed since, .toon)",
    "approve_request",
    "req-3",
    {
      ...cheap,
      "If-Match": `"v${loginAnswer.state_version}"`,
    },
  );
  assert.equal(approved.status, 200, approved.body);
  const answer = decodeToon(approved.body) as Record<string, unknown>;
  assert.equal((answer.result as { status: string }).status, "approved");
  held = applyJsonPatch(held, answer.changes as JsonPatchOperation[]) as Record<
    string,
    unknown
  >;
  assert.equal(req3(held.state as never), "approved", "the settled answer shows req-3 approved");
  // Confirm: nothing changed since the answer that says approved (304, no body).
  const confirm = await agent.get(
    "confirm: unchanged since the answer (If-None-Match)",
    `${DEMO_PAGE}.toon`,
    { "If-None-Match": `"v${answer.state_version}"` },
  );
  assert.ok(confirm.status === 304 || confirm.status === 200);
  if (confirm.status === 200) assert.equal(req3(decodeToon(confirm.body) as never), "approved");
  else {
    // What the agent holds is the manifest now.
    const now = await fetch(`${demo.origin}${DEMO_PAGE}.json`, {
      headers: { Authorization: `Bearer ${demo.panel.token}` },
    });
    assert.deepEqual(held, await now.json(), "the patched manifest is the manifest now");
  }
  assert.equal(demo.store.get("req-3").status, "approved", "req-3 is approved in the data");
  const session = total(agent.log);
  console.log(
    "Session throughout, the cheapest way (settled answers in TOON holding what changed, a " +
      "conditional read):",
  );
  printLog(agent.log);
  console.log(
    `  the login answer ${
      settled
        ? "held the requests (settled)"
        : "did NOT hold the requests: the agent waited for the change"
    }`,
  );
  console.log(
    `  total: ${session.all} tokens (wrote ${session.wrote}, read ${session.read}); with ` +
      `request lines and headers: ${session.all + session.overhead}`,
  );

  const pub = await publicFirst();
  const minimal = await publicMinimal("changes");
  const leanest = await publicMinimal("minimal");
  const best = Math.min(session.all, pub.all, minimal.all, leanest.all);
  const ok = best <= TASK_GOAL;
  console.log(
    `The cheapest: ${best} tokens; budget at most ${TASK_GOAL}: ${ok ? "held" : "MISSED"}`,
  );
  summaries.push(
    `demo task over HTTP, session throughout: ${session.all} tokens; public page first: ` +
      `${pub.all}; public page first, sign-in minimal: ${minimal.all}; answers minimal: ` +
      `${leanest.all} (the cheapest ${best}: ` +
      `budget ${TASK_GOAL} ${ok ? "held" : "MISSED"})`,
  );
  return best;
}

/** 4. The same task over MCP, as a host runs it, beside HTTP and Playwright MCP. */
async function overMcp(http: number): Promise<void> {
  console.log(
    "\n### The demo task over MCP, as a host runs it (official client; tool lists as JSON, " +
      "arguments as JSON, result texts)",
  );
  await using demo = await freshDemo();
  const task = await mcpDemoTask(demo.origin, demo.panel.token);
  assert.equal(demo.store.get("req-3").status, "approved", "req-3 is approved in the data");
  for (const s of task.steps) {
    console.log(
      `  ${s.step.padEnd(44)} ${String(s.tokens).padStart(4)} tokens` +
        (s.wrote ? ` (wrote ${countTokens(s.wrote)})` : ""),
    );
  }
  const held = task.total <= MCP_TASK_BUDGET;
  console.log(
    `  total: ${task.total} tokens; budget at most ${MCP_TASK_BUDGET}: ${
      held ? "held" : "MISSED"
    }. Apart: the server's instructions ${task.instructions} (once, in the system prompt); ` +
      `the tool lists as a model is shown them (name, description, schema) ${task.modelFacingLists}`,
  );
  const ratio = (n: number) => (n / task.total).toFixed(1);
  console.log(
    `  Playwright MCP (docs/mcp.md, not measured here): catalog ${PLAYWRIGHT_MCP.catalog}, task ` +
      `${PLAYWRIGHT_MCP.task} tokens: ${ratio(PLAYWRIGHT_MCP.task)}× aim over MCP; the cheapest ` +
      `HTTP way ${http} tokens: MCP/HTTP ${(task.total / http).toFixed(2)}`,
  );
  summaries.push(
    `demo task over MCP: ${task.total} tokens (budget ${MCP_TASK_BUDGET}: ${
      held ? "held" : "MISSED"
    }); Playwright MCP's ${PLAYWRIGHT_MCP.task} is ${ratio(PLAYWRIGHT_MCP.task)}×`,
  );
}

/**
 * The task reading the public manifest first: it lists every action the page can offer,
 * those that need signing in too, so the sign-in answer need only hold the state (settled),
 * and the approval answers what changed since it.
 */
async function publicFirst(): Promise<{ all: number }> {
  await using demo = await freshDemo();
  const agent = new Agent(demo.origin, demo.panel.token);
  const page = await agent.getPublic("read the public page (.toon, no token)", `${DEMO_PAGE}.toon`);
  assert.equal(page.status, 200);
  const catalog = decodeToon(page.body) as { actions: { id: string }[] };
  assert.ok(catalog.actions.some((a) => a.id === "approve_request"), "approve is in the catalog");
  const toon = { Accept: "text/toon", Prefer: "return=changes" };
  const login = await agent.invoke("sign in (.toon: the state, settled)", "login", ALICE, toon);
  assert.equal(login.status, 200, login.body);
  const signedIn = decodeToon(login.body) as { state_version: number; state: Json };
  assert.equal(
    (signedIn.state as { requests: { id: string; status: string }[] }).requests
      .find((r) => r.id === "req-3")?.status,
    "pending",
    "the login answer holds the requests (settled)",
  );
  const approved = await agent.invoke(
    "approve req-3 (what changed since, .toon)",
    "approve_request",
    "req-3",
    { ...toon, "If-Match": `"v${signedIn.state_version}"` },
  );
  assert.equal(approved.status, 200, approved.body);
  assert.equal(approved.headers.get("preference-applied"), "return=changes");
  const answer = decodeToon(approved.body) as { state_version: number; changes: Json };
  const held = applyJsonPatch(
    { state_version: signedIn.state_version, state: signedIn.state },
    answer.changes as JsonPatchOperation[],
  ) as { state: Json };
  const confirm = await agent.get(
    "confirm: unchanged since the answer (If-None-Match)",
    `${DEMO_PAGE}.toon`,
    { "If-None-Match": `"v${answer.state_version}"` },
  );
  assert.equal(confirm.status, 304);
  const now = await (await fetch(`${demo.origin}${DEMO_PAGE}.json`, {
    headers: { Authorization: `Bearer ${demo.panel.token}` },
  })).json();
  assert.deepEqual(held.state, now.state, "the state held is the state now");
  assert.equal(demo.store.get("req-3").status, "approved", "req-3 is approved in the data");
  const t = total(agent.log);
  console.log("Public page first (its catalog lists the actions signing in offers):");
  printLog(agent.log);
  console.log(
    `  total: ${t.all} tokens (wrote ${t.wrote}, read ${t.read}); with request lines and ` +
      `headers: ${t.all + t.overhead}`,
  );
  return t;
}

/**
 * The cheapest way: the public manifest (the actions), a sign-in answered with its
 * `state_version` only (`Prefer: return=minimal`), the approval decided on that version and
 * answered with what changed (the action's result names req-3 and its new status), and a
 * conditional read that confirms nothing changed since.
 */
async function publicMinimal(approval: "changes" | "minimal"): Promise<{ all: number }> {
  await using demo = await freshDemo();
  const agent = new Agent(demo.origin, demo.panel.token);
  const page = await agent.getPublic("read the public page (.toon, no token)", `${DEMO_PAGE}.toon`);
  assert.equal(page.status, 200);
  const login = await agent.invoke("sign in (.toon, return=minimal)", "login", ALICE, {
    Accept: "text/toon",
    Prefer: "return=minimal",
  });
  assert.equal(login.status, 200, login.body);
  const signedIn = decodeToon(login.body) as { state_version: number; settled: boolean };
  assert.equal(signedIn.settled, true);
  const approved = await agent.invoke(
    approval === "changes"
      ? "approve req-3 (what changed since, .toon)"
      : "approve req-3 (.toon, return=minimal: the page's result)",
    "approve_request",
    "req-3",
    {
      Accept: "text/toon",
      Prefer: `return=${approval}`,
      "If-Match": `"v${signedIn.state_version}"`,
    },
  );
  assert.equal(approved.status, 200, approved.body);
  const answer = decodeToon(approved.body) as {
    result: { id: string; status: string };
    state_version: number;
    changes?: JsonPatchOperation[];
  };
  // The page's own answer names req-3 and its new status.
  assert.deepEqual(answer.result, { id: "req-3", status: "approved" });
  if (approval === "changes") {
    assert.ok(
      answer.changes?.some((op) => op.op === "replace" && op.value === "approved"),
      "the changes hold the new status",
    );
  }
  const confirm = await agent.get(
    "confirm: unchanged since the answer (If-None-Match)",
    `${DEMO_PAGE}.toon`,
    { "If-None-Match": `"v${answer.state_version}"` },
  );
  assert.equal(confirm.status, 304);
  assert.equal(demo.store.get("req-3").status, "approved", "req-3 is approved in the data");
  const t = total(agent.log);
  console.log(
    approval === "changes"
      ? "Public page first, sign-in minimal (its state_version only), approval with changes:"
      : "Public page first, answers minimal (the result and state_version), a conditional read:",
  );
  printLog(agent.log);
  console.log(
    `  total: ${t.all} tokens (wrote ${t.wrote}, read ${t.read}); with request lines and ` +
      `headers: ${t.all + t.overhead}`,
  );
  return t;
}

console.log(`## Tokens (o200k_base, gpt-tokenizer) an agent spends on the demo`);
await manifestSizes();
await watching(summaries);
const http = await task();
await overMcp(http);
for (const line of summaries) console.log(`summary: ${line}`);
