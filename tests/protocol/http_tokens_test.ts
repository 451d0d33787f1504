/**
 * What the cheapest documented HTTP way through the demo task costs an agent (README, "The same
 * task in fewer tokens"), counted in o200k_base tokens (a count, not a timing): the public
 * manifest, a sign-in and an approval answered with their result and version only
 * (`Prefer: return=minimal`; the approval decided on the sign-in's version), and a conditional
 * read that confirms nothing changed since; the demo's control panel is the benchmarks' fake tab.
 *
 * @module
 */
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer";
import { decode as decodeToon } from "@toon-format/toon";
import { startDemo } from "../../demo/app.ts";
import { DEMO_PAGE, openDemoTab } from "../../bench/demo_tab.ts";

/** The budget of the cheapest HTTP way, in tokens. */
const BUDGET = 700;

Deno.test("the cheapest HTTP way through the demo task costs at most its budget in tokens", async () => {
  const data = Deno.makeTempDirSync({ prefix: "aim-http-tokens-" });
  await using _data = { [Symbol.asyncDispose]: () => Deno.remove(data, { recursive: true }) };
  await using demo = await startDemo({ data, hostname: "127.0.0.1", port: 0 });
  await using panel = await openDemoTab(demo.served.url);
  const origin = demo.served.url;
  let spent = 0;
  const count = (text: string) => spent += text ? countTokens(text) : 0;
  const invoke = async (actionId: string, input: unknown, headers: Record<string, string>) => {
    const sent = JSON.stringify({ actionId, input });
    count(sent);
    const res = await fetch(`${origin}/__aim/invoke`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${panel.token}`,
        "Content-Type": "application/json",
        Accept: "text/toon",
        ...headers,
      },
      body: sent,
    });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    count(body);
    return decodeToon(body) as Record<string, unknown>;
  };

  const page = await (await fetch(`${origin}${DEMO_PAGE}.toon`)).text();
  count(page);
  assert.match(page, /id: approve_request/);
  const login = await invoke("login", { username: "alice", password: "wonderland" }, {
    Prefer: "return=minimal",
  });
  assert.equal(login.settled, true);
  // Decided on the sign-in's version; the page's own result names req-3 and its new status.
  const approved = await invoke("approve_request", "req-3", {
    Prefer: "return=minimal",
    "If-Match": `"v${login.state_version}"`,
  });
  assert.deepEqual(approved.result, { id: "req-3", status: "approved" });
  assert.equal(approved.state, undefined);
  const confirm = await fetch(`${origin}${DEMO_PAGE}.toon`, {
    headers: {
      Authorization: `Bearer ${panel.token}`,
      "If-None-Match": `"v${approved.state_version}"`,
    },
  });
  assert.equal(confirm.status, 304);
  await confirm.body?.cancel();
  assert.equal(demo.store.get("req-3").status, "approved");
  assert.ok(spent <= BUDGET, `${spent} tokens`);
});
