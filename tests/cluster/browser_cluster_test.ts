/**
 * Real Chromium holding a session through HAProxy in front of three `aim serve`
 * processes on one Redis: the agent's requests spread over every instance; the instance holding
 * the tab is killed mid-invocation; the page comes back through another with its session; the
 * lease, the person's confirmation and idempotency hold throughout.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { NO_CLUSTER, startCluster } from "../helpers/cluster.ts";
import { bridgeAt } from "../helpers/bridge.ts";
import {
  Agent,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelToken,
  pointAtApprove,
} from "../browser/harness.ts";
import type { ElementHandle } from "puppeteer-core";

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bills</title>
${ELEMENTS}</head><body><aim-panel confirm="consequential"></aim-panel>
<p id="paid">none</p><p id="count">0</p>
<aim-action name="pay" description="Pay one bill now" input-example="bill-1" consequential></aim-action>
<aim-action name="note" description="Note one bill" input-example="bill-1"></aim-action>
<aim-state name="paid" from="#paid"></aim-state>
<aim-state name="count" from="#count"></aim-state>
<script type="module">
  const [pay, note] = document.querySelectorAll("aim-action");
  let count = 0;
  pay.handler = (bill) => {
    document.getElementById("paid").textContent = bill;
    document.getElementById("count").textContent = String(++count);
    return { paid: bill, count };
  };
  // Never answers: the instance holding the tab is killed while the agent waits.
  note.handler = () => {
    window.noted = true;
    return new Promise(() => {});
  };
</script></body></html>`;

const promptShown = () =>
  (document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") ?? null) !== null;

async function approve(page: import("puppeteer-core").Page): Promise<void> {
  await page.waitForFunction(promptShown);
  const button = await page.waitForFunction(() => {
    const root = document.querySelector("aim-panel")?.shadowRoot;
    const buttons = [...root?.querySelectorAll(".confirm button") ?? []];
    return buttons.find((b) => /approve|allow|confirm|yes/i.test(b.textContent ?? "")) ?? false;
  }) as unknown as ElementHandle<HTMLButtonElement>;
  // Approve works once the prompt has been read (elements/prompt.ts).
  await pointAtApprove(page, button);
  await button.click();
}

Deno.test({
  name: "Chromium keeps its session through the balancer while the instance holding its tab dies",
  ignore: NO_CHROMIUM || NO_CLUSTER,
  async fn(t) {
    const root = await Deno.makeTempDir({ prefix: "aim-cluster-browser-" });
    await Deno.writeTextFile(join(root, "bills.html"), PAGE);
    await using cluster = await startCluster({ root, inProcess: false });
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${cluster.origin}/bills`);
    const token = await panelToken(page);
    await panelStatus(page, "connected");
    const lb = bridgeAt(cluster.origin);
    const agent = new Agent(lb, token);
    await agent.manifestWhen(
      "/bills.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "pay"),
    );

    await t.step(
      "the agent's requests spread over every instance and all see the tab",
      async () => {
        const seen = new Set<string>();
        for (let i = 0; i < 6; i++) {
          const res = await fetch(`${cluster.origin}/bills.json`, {
            headers: { Authorization: `Bearer ${token}` },
          });
          assert.equal(res.status, 200);
          assert.equal((await res.json()).browser_connected, true);
          seen.add(res.headers.get("X-Aim-Instance")!);
        }
        assert.equal(seen.size, 3);
      },
    );

    await t.step(
      "a consequential action waits for the person, wherever the agent's call lands",
      async () => {
        const answer = lb.invoke(token, "pay", "bill-1");
        await approve(page);
        const res = await answer;
        assert.equal(res.status, 200);
        assert.deepEqual((await res.json()).result, { paid: "bill-1", count: 1 });
      },
    );

    let holder = -1;
    await t.step(
      "the instance holding the tab is killed mid-invocation: a clear error",
      async () => {
        // Which instance holds the tab: the one the lease in Redis names.
        const { createClient } = await import("@redis/client");
        const redis = createClient({ url: cluster.redis.url });
        await redis.connect();
        const leases = await redis.keys("aim:l:*");
        const owner = await redis.get(leases[0]!);
        await redis.close();
        for (const [index, instance] of cluster.instances.entries()) {
          const res = await fetch(`${instance.url}/sitemap.json`);
          await res.body?.cancel();
          if (res.headers.get("X-Aim-Instance") === owner) holder = index;
        }
        assert.ok(holder >= 0, "the lease names a running instance");
        const other = cluster.instances[(holder + 1) % 3]!;
        const pending = fetch(`${other.url}/__aim/invoke`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ actionId: "note", input: "bill-2" }),
        });
        await page.waitForFunction(() => (window as unknown as { noted?: boolean }).noted === true);
        await cluster.instances[holder]!.stop("SIGKILL");
        const res = await pending;
        const body = await res.json();
        assert.equal(res.status, 409, JSON.stringify(body));
        assert.equal(body.error, "browser_not_connected");
      },
    );

    await t.step("the page reconnects through another instance with its session", async () => {
      await panelStatus(page, "connected", 30_000);
      assert.equal(await panelToken(page), token, "the same session");
      const answer = await agent.manifestWhen(
        "/bills.json",
        (m) => m.browser_connected && m.actions.some((a: { id: string }) => a.id === "pay"),
        30_000,
      );
      assert.equal(answer.body.state.count, "1");
    });

    await t.step("idempotency and confirmation hold after the move", async () => {
      const key = { "Idempotency-Key": "bill-3" };
      const first = fetch(`${cluster.origin}/__aim/invoke`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...key },
        body: JSON.stringify({ actionId: "pay", input: "bill-3" }),
      });
      await approve(page);
      const res = await first;
      assert.equal(res.status, 200);
      const again = await fetch(`${cluster.origin}/__aim/invoke`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...key },
        body: JSON.stringify({ actionId: "pay", input: "bill-3" }),
      });
      assert.equal(again.status, 200);
      assert.deepEqual((await again.json()).result, { paid: "bill-3", count: 2 });
      assert.equal(await page.$eval("#count", (el) => el.textContent), "2", "paid once");
    });
  },
});

/** Two pages, each with a form that loads the other: where a tab lands is the balancer's choice. */
function formPage(name: string, other: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title>
${ELEMENTS}</head><body><aim-panel></aim-panel>
<form id="go" action="/${other}"><input name="n"><button>Go</button></form>
<aim-action name="go" description="Go to the other page" form="#go"></aim-action>
<aim-state name="here"></aim-state>
<script type="module">
  const n = new URLSearchParams(location.search).get("n");
  document.querySelector("aim-state").value = { page: "${name}", n };
</script></body></html>`;
}

Deno.test({
  name:
    "an action that loads another page answers with it, even when its tab lands on another instance",
  ignore: NO_CHROMIUM || NO_CLUSTER,
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "aim-cluster-leaving-" });
    await Deno.writeTextFile(join(root, "x.html"), formPage("x", "y"));
    await Deno.writeTextFile(join(root, "y.html"), formPage("y", "x"));
    await using cluster = await startCluster({ root, inProcess: false });
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${cluster.origin}/x`);
    await panelStatus(page, "connected");
    const token = await panelToken(page);
    const agent = new Agent(bridgeAt(cluster.origin), token);
    const { createClient } = await import("@redis/client");
    const redis = createClient({ url: cluster.redis.url });
    await redis.connect();
    try {
      /** The instance whose socket holds the session's tab now. */
      const holder = async () => await redis.get((await redis.keys("aim:l:*"))[0]!);
      let here = "x";
      let crossed = 0;
      for (let n = 1; n <= 8; n++) {
        await agent.manifestWhen(
          `/${here}.json`,
          (m) => m.browser_connected && m.actions.some((a: { id: string }) => a.id === "go"),
          15_000,
        );
        const before = await holder();
        // The balancer takes turns over all the requests it gets: a page's own requests may come
        // back in step with the instances, so 0 to 2 more requests put the next page's channel
        // on a turn of another phase each time.
        for (let extra = 0; extra < n % 3; extra++) {
          await (await fetch(`${cluster.origin}/__aim/health`)).body?.cancel();
        }
        const to = here === "x" ? "y" : "x";
        const answer = await agent.invoke("go", { n: String(n) });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.result.page, `/${to}`, JSON.stringify(answer.body));
        assert.deepEqual(answer.body.state.here, { page: to, n: String(n) });
        assert.equal(answer.body.settled, true);
        if ((await holder()) !== before) crossed++;
        here = to;
      }
      // The balancer spreads the pages' connections: some next pages came through another one.
      assert.ok(crossed > 0, "no next page landed on another instance");
    } finally {
      await redis.close();
    }
  },
});
