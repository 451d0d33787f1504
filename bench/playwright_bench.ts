/**
 * The budget of DESIGN §12 (issue 34): an invocation at least 20× faster than Playwright MCP's
 * nearest tool on the same page, in the same run. Both drive the demo's control panel, served by
 * one real aim bridge (the demo, in a process of its own, with the V8 flags it ships with), each
 * in a real Chromium, signed in as alice, and both change the page's filter back to back,
 * "pending" and "all" in turn, so that every call re-renders the table:
 *
 * - **aim**: `POST /__aim/invoke` `filter_requests` with the session token the panel shows; the
 *   bridge relays it to the tab (puppeteer's Chromium, the page in front) and answers with the
 *   result and the page's state. Timed from `fetch` to the JSON body read.
 * - **Playwright MCP** (`npm:@playwright/mcp`, the pinned version below, started by Deno's npm
 *   support and driven over stdio by the official MCP client, `@modelcontextprotocol/client`):
 *   it opens the same page in its own Chromium (headless, in-memory profile), signs in through the
 *   form, takes a snapshot for the select's ref, then `browser_select_option` on it. Timed from
 *   `callTool` to its result. Its defaults are kept (a snapshot after each action, written to a
 *   file of a temporary folder), as an agent runs it.
 *
 * The agent's side of both runs in this process; each tool runs in its own (the bridge, Playwright
 * MCP), each drives its own Chromium. Rounds alternate which goes first (aim, Playwright, then
 * Playwright, aim, …), after a warm-up round of each that is not counted, so that both see the
 * same machine. Prints each round's medians, the medians and p95s of every call, the ratio of the
 * medians and the budget, held or MISSED, and the load average (the machine's two cores are
 * shared).
 *
 * ```sh
 * deno run -A --lock=deno.test.lock --frozen=false bench/playwright_bench.ts  # 8 rounds of 50
 * deno run -A --lock=deno.test.lock --frozen=false bench/playwright_bench.ts --rounds 4 --calls 25
 * ```
 *
 * The last line, `summary: …`, is what `deno task bench` (bench/run.ts) lists. When Playwright
 * MCP cannot start (no npm registry, no Chromium), it says why and measures nothing.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CHROMIUM, launchBrowser, NO_CHROMIUM, panelToken } from "../tests/browser/harness.ts";
import { BRIDGE_V8_FLAGS, Child } from "./lib.ts";

/** Playwright MCP, pinned: the version the budget was set against. */
export const PLAYWRIGHT_MCP = "npm:@playwright/mcp@0.0.86";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "8" },
    calls: { type: "string", default: "50" },
    strict: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(flags.rounds);
const CALLS = Number(flags.calls);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds must be a whole number ≥ 1");
if (!Number.isInteger(CALLS) || CALLS < 2) throw new Error("--calls must be a whole number ≥ 2");
/** The budget: Playwright MCP's median over aim's. */
const BUDGET_RATIO = 20;
const INPUTS = ["pending", "all"] as const;
const USER = { username: "alice", password: "wonderland" };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

interface Stats {
  median: number;
  p95: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
}

const ms = (n: number) => `${n.toFixed(2)} ms`;
const both = (s: Stats) => `median ${ms(s.median)}, p95 ${ms(s.p95)}`;
const load = () => Deno.loadavg().map((n) => n.toFixed(2)).join(" ");

if (NO_CHROMIUM) {
  console.log(`playwright bench: skipped, ${CHROMIUM} is missing`);
  console.log("summary: playwright: not measured (no Chromium)");
  Deno.exit(0);
}

/** The text of a tool result, its parts joined. */
function text(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? "").join("\n");
}

/** Calls a Playwright MCP tool; throws with its text when it answers an error. */
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const said = text(result);
  if (result.isError) throw new Error(`Playwright MCP ${name}: ${said}`);
  return said;
}

/** The ref of the element of `role` and accessible `name` in a snapshot's YAML. */
function refOf(snapshot: string, role: string, name: string): string {
  const ref = new RegExp(`${role} "${name}"[^\\n]*\\[ref=(e\\d+)\\]`).exec(snapshot)?.[1];
  if (!ref) throw new Error(`no ${role} "${name}" in Playwright MCP's snapshot:\n${snapshot}`);
  return ref;
}

const bridge = Child.start("./demo_alone.ts", [], [...BRIDGE_V8_FLAGS]);
const output = await Deno.makeTempDir({ prefix: "aim-playwright-mcp-" });
try {
  const { url: origin } = await bridge.read<{ url: string; pid: number }>();
  const pageUrl = `${origin}/control-panel`;

  // aim: the control panel in Chromium, in front (drawing its frames, as Playwright's page is).
  await using browser = await launchBrowser({ networkEvents: false });
  await using context = await browser.context();
  const page = await context.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  await page.goto(pageUrl);
  await page.bringToFront();
  const token = await panelToken(page);
  await page.waitForFunction(() =>
    document.querySelector("aim-panel")?.getAttribute("status") === "connected"
  );
  const invoke = async (actionId: string, input: unknown) => {
    const res = await fetch(`${origin}/__aim/invoke`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ actionId, input }),
    });
    return { status: res.status, body: await res.json() };
  };
  const login = await invoke("login", USER);
  if (login.status !== 200 || !login.body.state?.requests?.length) {
    throw new Error(`aim login: ${login.status} ${JSON.stringify(login.body)}`);
  }

  // Playwright MCP over stdio, in its own Chromium.
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-all",
      "--lock=deno.test.lock",
      "--frozen=false",
      PLAYWRIGHT_MCP,
      "--headless",
      "--isolated",
      // As the harness launches Chromium: this machine runs as root, where the sandbox fails.
      "--no-sandbox",
      "--executable-path",
      CHROMIUM,
      "--viewport-size",
      "1280x720",
      "--output-dir",
      output,
    ],
    cwd: new URL("../", import.meta.url).pathname,
    stderr: "inherit",
  });
  const client = new Client({ name: "aim-bench", version: "1.0.0" });
  // When it cannot start (no npm registry, say), the run says why and measures nothing.
  const started = await client.connect(transport).then(() => true, (error) => {
    console.log(`playwright bench: Playwright MCP (${PLAYWRIGHT_MCP}) did not start: ${error}`);
    console.log(`summary: playwright: not measured (${PLAYWRIGHT_MCP} did not start: ${error})`);
    return false;
  });
  if (started) {
    // The package's version: its server reports Playwright's own.
    const version = PLAYWRIGHT_MCP.replace(/^npm:/, "");
    try {
      await tool(client, "browser_navigate", { url: pageUrl });
      const signIn = await tool(client, "browser_snapshot", {});
      await tool(client, "browser_fill_form", {
        fields: [
          {
            name: "Username",
            type: "textbox",
            target: refOf(signIn, "textbox", "Username"),
            value: USER.username,
          },
          {
            name: "Password",
            type: "textbox",
            target: refOf(signIn, "textbox", "Password"),
            value: USER.password,
          },
        ],
      });
      await tool(client, "browser_click", {
        element: "Sign in",
        target: refOf(signIn, "button", "Sign in"),
      });
      await tool(client, "browser_wait_for", { text: "req-3" });
      const select = refOf(await tool(client, "browser_snapshot", {}), "combobox", "Show");

      const aimCall = async (i: number): Promise<number> => {
        const input = INPUTS[i % 2]!;
        const started = performance.now();
        const { status, body } = await invoke("filter_requests", input);
        const took = performance.now() - started;
        if (status !== 200 || body.result?.filter !== input || body.state?.filter !== input) {
          throw new Error(`aim filter_requests "${input}": ${status} ${JSON.stringify(body)}`);
        }
        return took;
      };
      const playwrightCall = async (i: number): Promise<number> => {
        const value = INPUTS[i % 2]!;
        const started = performance.now();
        const said = await tool(client, "browser_select_option", {
          element: "Show",
          target: select,
          values: [value],
        });
        const took = performance.now() - started;
        if (!said.includes(`selectOption('${value}')`)) {
          throw new Error(`Playwright MCP browser_select_option "${value}": ${said}`);
        }
        return took;
      };
      const round = async (call: (i: number) => Promise<number>): Promise<number[]> => {
        const samples: number[] = [];
        for (let i = 0; i < CALLS; i++) samples.push(await call(i));
        return samples;
      };

      await round(aimCall);
      await round(playwrightCall);
      const all = { aim: [] as number[], playwright: [] as number[] };
      console.log(
        `# aim's filter_requests against ${version}'s browser_select_option on the demo's ` +
          `control panel, each through its own Chromium: ` +
          `${ROUNDS} rounds of ${CALLS} calls back to back, interleaved, after a warm-up round ` +
          `of each; Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, ` +
          `load average ${load()}`,
      );
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 === 0 ? ["aim", "playwright"] as const : ["playwright", "aim"] as const;
        const medians: Record<string, number> = {};
        for (const name of order) {
          const samples = await round(name === "aim" ? aimCall : playwrightCall);
          all[name].push(...samples);
          medians[name] = stats(samples).median;
        }
        console.log(
          `round ${r + 1}: aim median ${ms(medians.aim!)}, Playwright MCP median ` +
            `${ms(medians.playwright!)} (${(medians.playwright! / medians.aim!).toFixed(1)}×)`,
        );
      }
      const aim = stats(all.aim);
      const playwright = stats(all.playwright);
      const ratio = playwright.median / aim.median;
      const ok = ratio >= BUDGET_RATIO;
      console.log(`aim filter_requests (POST /__aim/invoke):  ${both(aim)}`);
      console.log(`Playwright MCP browser_select_option:     ${both(playwright)}`);
      console.log(
        `ratio of the medians: ${ratio.toFixed(1)}× (budget ≥ ${BUDGET_RATIO}×: ` +
          `${ok ? "held" : "MISSED"}); of the p95s: ${(playwright.p95 / aim.p95).toFixed(1)}×; ` +
          `load average ${load()}`,
      );
      console.log(
        `summary: playwright: aim filter_requests ${both(aim)}; ${version} browser_select_option ${
          both(playwright)
        }; ${ratio.toFixed(1)}× faster at the median ` +
          `(≥ ${BUDGET_RATIO}×: ${ok ? "held" : "MISSED"}); ${ROUNDS} rounds of ${CALLS} ` +
          `interleaved, load average ${load()}`,
      );
      if (flags.strict && !ok) Deno.exitCode = 1;
    } finally {
      await client.close();
    }
  }
} finally {
  await bridge.stop();
  await Deno.remove(output, { recursive: true }).catch(() => {});
}
