/**
 * One contract for an action that leaves the page (issue 33, items 2 and 6), in real Chromium:
 * a link, a `click=` on a button whose listener sets `location`, a handler that does, a `form=`,
 * a `fill=` committed by a click, a WebMCP `<form toolname toolautosubmit>` (with and without
 * Chromium's WebMCP flag) and a single-page app's route all answer once the next page holds the
 * session and reported its state, with `navigating_to` and `page`, over HTTP, MCP, A2A and ACP;
 * a page that hosts no session answers `page: null`, never the old state as settled. And 200
 * navigating calls in a row: none answers `browser_not_connected`.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { clusterSize, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { connectClient as connectMcp } from "../mcp/helpers.ts";
import {
  action as a2aAction,
  answerOf,
  asTask,
  connectClient as connectA2a,
} from "../a2a/helpers.ts";
import { jsonPart, message, postRun } from "../acp/helpers.ts";
import {
  Agent,
  type AgentAnswer,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelToken,
} from "./harness.ts";

/**
 * Page `name` of two alike, each leading to `other` every way an action can; its state names it
 * and how the tab came (the query). The WebMCP form is declared read-only by the site owner, so
 * that the loop below needs no person.
 */
function side(name: string, other: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title>
<script src="/__aim/webmcp.js"></script></head><body><aim-panel></aim-panel>
<a id="link" href="/${other}?via=link">To ${other}</a>
<button id="button">Go</button>
<form id="form" action="/${other}"><input name="via" value="form"><button>Send</button></form>
<form id="tool" toolname="go_tool" tooldescription="Go to ${other}" toolautosubmit
  action="/${other}"><input name="via" value="tool"><button>Go</button></form>
<form id="search" action="/${other}"><input id="q" name="q"><button id="find">Find</button></form>
<a id="plain" href="/plain.html">A page without aim</a>
<a id="secret" href="/${other}?via=secret&amp;token=s3cr3t&amp;session_id=42">Signed link</a>
<aim-action name="go_link" description="Follow the link" click="#link"></aim-action>
<aim-action name="go_button" description="Press Go" click="#button"></aim-action>
<aim-action name="go_form" description="Send the form" form="#form"></aim-action>
<aim-action name="go_handler" description="Go by script" input-example="x"></aim-action>
<aim-action name="go_fill" description="Search" fill="#q" commit="click:#find"
  input-example="pens"></aim-action>
<aim-action name="go_route" description="Show the other page in place"></aim-action>
<aim-action name="go_plain" description="Leave for a page without aim" click="#plain"></aim-action>
<aim-action name="go_secret" description="Follow a signed link" click="#secret"></aim-action>
<aim-action name="go_hang" description="Go by script, never answering"></aim-action>
<aim-tool name="go_tool" read-only></aim-tool>
<aim-state name="here"></aim-state>
<script type="module">
  const query = Object.fromEntries(new URLSearchParams(location.search));
  document.querySelector("aim-state").value = { page: "${name}", ...query };
  document.getElementById("button").addEventListener("click", () => {
    location.href = "/${other}?via=button";
  });
  document.querySelector("aim-action[name=go_handler]").handler = (word) => {
    location.assign("/${other}?via=handler");
    return word;
  };
  // The page leaves before the handler answers: the tab answers as it is hidden.
  document.querySelector("aim-action[name=go_hang]").handler = () => {
    location.assign("/${other}?via=hang");
    return new Promise(() => {});
  };
  document.querySelector("aim-action[name=go_route]").handler = () => {
    history.pushState({}, "", "/${other}?via=route");
    document.querySelector("aim-state").value = { page: "${other}", via: "route" };
    return null;
  };
</script></body></html>`;
}

const SITE = {
  "a.html": side("a", "b"),
  "b.html": side("b", "a"),
  "plain.html": "<!doctype html><title>Plain</title><p>No aim here.</p>",
};

/** Where the tab is: the manifest path of `name` (a or b). */
const json = (name: string) => `/${name}.json`;

/** Opens page a with a session; returns the page and its agent. */
async function openA(page: Page, bridge: TestBridge): Promise<Agent> {
  await page.goto(`${bridge.origin}/a`);
  await panelStatus(page, "connected");
  const agent = new Agent(bridge, await panelToken(page));
  await agent.manifestWhen(
    json("a"),
    (m) => m.actions.some((a: { id: string }) => a.id === "go_tool"),
    15_000,
  );
  return agent;
}

/** Checks an answer is the next page's: where the tab went, that page, its state, settled. */
function assertArrived(answer: AgentAnswer, to: string, via: string, origin: string): void {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const { result, state, settled } = answer.body;
  assert.equal(result.page, `/${to}`, JSON.stringify(answer.body));
  assert.equal(result.navigating_to, `${origin}/${to}?via=${via}`);
  assert.deepEqual(state.here, { page: to, via });
  assert.equal(settled, true);
}

Deno.test({
  name: "every action that leaves the page answers with the next page, on every protocol",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE });
    await using context = await browser.context();
    const page = await context.newPage();
    const agent = await openA(page, bridge);
    let here = "a";
    const next = () => here === "a" ? "b" : "a";
    /** Waits until the tab shows `name` with its actions (the next call names them). */
    const at = async (name: string) => {
      here = name;
      await agent.manifestWhen(
        json(name),
        (m) => m.browser_connected && m.actions.some((a: { id: string }) => a.id === "go_tool"),
      );
    };

    for (
      const [actionId, input, via] of [
        ["go_link", {}, "link"],
        ["go_button", {}, "button"],
        ["go_form", { via: "form" }, "form"],
        ["go_tool", { via: "tool" }, "tool"],
      ] as const
    ) {
      await t.step(`${actionId} over HTTP: the next page's answer`, async () => {
        const to = next();
        assertArrived(await agent.invoke(actionId, input), to, via, bridge.origin);
        await at(to);
      });
    }

    await t.step(
      "a handler that sets location: its result, where it went, the next page",
      async () => {
        const to = next();
        const answer = await agent.invoke("go_handler", "bye");
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        // A result that is no object is kept as its value, beside where the tab went.
        assert.deepEqual(answer.body.result, {
          value: "bye",
          navigating_to: `${bridge.origin}/${to}?via=handler`,
          page: `/${to}`,
        });
        assert.deepEqual(answer.body.state.here, { page: to, via: "handler" });
        await at(to);
      },
    );

    await t.step(
      "a handler that never answers before its page leaves: answered all the same",
      async () => {
        const to = next();
        const answer = await agent.invoke("go_hang", {});
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(answer.body.result, {
          navigating_to: `${bridge.origin}/${to}?via=hang`,
          page: `/${to}`,
        });
        assert.deepEqual(answer.body.state.here, { page: to, via: "hang" });
        await at(to);
      },
    );

    await t.step("where the tab went never names what looks like a secret", async () => {
      const to = next();
      const answer = await agent.invoke("go_secret", {});
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.result.navigating_to, `${bridge.origin}/${to}?via=secret`);
      assert.equal(answer.body.result.page, `/${to}`);
      await at(to);
    });

    await t.step("fill= committed by a click on a submit button", async () => {
      const to = next();
      const answer = await agent.invoke("go_fill", "pens");
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.result.page, `/${to}`);
      assert.equal(answer.body.result.navigating_to, `${bridge.origin}/${to}?q=pens`);
      assert.deepEqual(answer.body.state.here, { page: to, q: "pens" });
      await at(to);
    });

    await t.step("a single-page app's route: the page it shows, at once", async () => {
      const to = next();
      const answer = await agent.invoke("go_route", {});
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.result, {
        navigating_to: `${bridge.origin}/${to}?via=route`,
        page: `/${to}`,
      });
      assert.deepEqual(answer.body.state.here, { page: to, via: "route" });
      // Loaded again, so that the next steps start from a page of its own.
      await page.goto(`${bridge.origin}/${to}`);
      await at(to);
    });

    await t.step("MCP: the tool's answer is the next page's", async () => {
      await using mcp = await connectMcp("v2", bridge.origin, agent.token);
      const to = next();
      const called = await mcp.callTool("go_link", {});
      assert.equal(called.isError, undefined, JSON.stringify(called));
      assertArrived({ status: 200, body: called.structuredContent }, to, "link", bridge.origin);
      await at(to);
    });

    // A2A reads tasks on the instance that ran them: deno task test runs it against one bridge.
    await t.step({
      name: "A2A: the task's answer is the next page's",
      ignore: clusterSize() >= 2,
      fn: async () => {
        const a2a = await connectA2a("v1", bridge.origin, agent.token);
        const to = next();
        const task = asTask(await a2a.sendMessage(a2aAction("go_form", { via: "form" })));
        assertArrived({ status: 200, body: answerOf(task) }, to, "form", bridge.origin);
        await at(to);
      },
    });

    await t.step("ACP: the run's answer is the next page's", async () => {
      const to = next();
      const res = await postRun(bridge, agent.token, {
        agent_name: here,
        mode: "sync",
        input: [message(jsonPart("go_button", {}))],
      });
      const run = await res.json();
      assert.equal(run.status, "completed", JSON.stringify(run));
      const body = JSON.parse(run.output[0].parts[0].content);
      assertArrived({ status: 200, body }, to, "button", bridge.origin);
      await at(to);
    });

    await t.step(
      "a page that hosts no session: page null, never the old state as settled",
      async () => {
        const answer = await agent.invoke("go_plain", {});
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(answer.body.result, {
          clicked: "#plain",
          navigating_to: `${bridge.origin}/plain.html`,
          page: null,
        });
        assert.equal(answer.body.settled, false);
      },
    );
  },
});

/** How many navigating calls of each kind the loop makes: 200 in all, with the flag's 40. */
const KINDS = [
  ["go_link", {}],
  ["go_button", {}],
  ["go_form", { via: "form" }],
  ["go_tool", { via: "tool" }],
] as const;
const CALLS_PER_KIND = 40;

for (const webmcp of [false, true]) {
  const kinds = webmcp ? KINDS.filter(([id]) => id === "go_tool") : KINDS;
  const flag = webmcp ? "with Chromium's WebMCP flag" : "without the WebMCP flag";
  Deno.test({
    name: `${
      kinds.length * CALLS_PER_KIND
    } navigating calls in a row each answer with the next page, ${flag}`,
    ignore: NO_CHROMIUM,
    async fn() {
      await using browser = await launchBrowser({ webmcp });
      await using bridge = await startBridge({ site: SITE });
      await using context = await browser.context();
      const page = await context.newPage();
      const agent = await openA(page, bridge);
      let here = "a";
      const failures: string[] = [];
      for (let i = 0; i < CALLS_PER_KIND; i++) {
        if (failures.length) break;
        for (const [actionId, input] of kinds) {
          const to = here === "a" ? "b" : "a";
          const answer = await agent.invoke(actionId, input);
          if (answer.status !== 200 || answer.body.result?.page !== `/${to}`) {
            failures.push(`${actionId} #${i}: ${answer.status} ${JSON.stringify(answer.body)}`);
            // Where the tab is now is not known: the next call would wait on the wrong page.
            break;
          }
          here = to;
          // The next call names an action of the page now shown: wait until it is registered.
          await agent.manifestWhen(
            json(here),
            (m) => m.actions.some((a: { id: string }) => a.id === actionId),
            15_000,
          );
        }
      }
      assert.deepEqual(failures, []);
    },
  });
}
