/**
 * The demo's whole story in real Chromium: a person opens the control panel, an agent
 * signs in with the token, approves req-3 while the person confirms, and sees the change.
 *
 * @module
 */
import assert from "node:assert/strict";
import { decode } from "@toon-format/toon";
import type { Page } from "puppeteer-core";
import { startDemo } from "../../demo/app.ts";
import { bridgeAt } from "../helpers/bridge.ts";
import {
  Agent,
  clickPanelButton,
  launchBrowser,
  NO_CHROMIUM,
  OUTPUT_DIR,
  panelText,
  panelToken,
} from "./harness.ts";

const ALICE = { username: "alice", password: "wonderland" };

/**
 * The demo over a fresh data folder, its control panel open in Chromium (1200×900), and the
 * token the panel shows; all of it stopped and removed on dispose, whatever the test did.
 */
async function openPanel() {
  const data = Deno.makeTempDirSync({ prefix: "aim-demo-" });
  const demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  const bridge = bridgeAt(demo.served.url);
  const browser = await launchBrowser();
  const context = await browser.context();
  const page = await context.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(`${bridge.origin}/control-panel`);
  return {
    demo,
    bridge,
    page,
    token: await panelToken(page),
    async [Symbol.asyncDispose]() {
      await context[Symbol.asyncDispose]();
      await browser[Symbol.asyncDispose]();
      await demo[Symbol.asyncDispose]();
      Deno.removeSync(data, { recursive: true });
    },
  };
}

function statusOf(page: Page, id: string): Promise<string | null> {
  return page.evaluate((id) => {
    const row = [...document.querySelectorAll("#requests tbody tr")]
      .find((tr) => tr.firstElementChild?.textContent === id);
    return row ? row.children[4]!.textContent : null;
  }, id);
}

Deno.test({
  name: "the demo: an agent signs in, approves req-3 with the person's consent, and sees it",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using panel = await openPanel();
    const { demo, bridge, page, token } = panel;
    const agent = new Agent(bridge, token);

    await t.step("signed out, the manifest offers only login and disconnect", async () => {
      const { status, body } = await agent.manifestWhen(
        "/control-panel.json",
        (m) => m.browser_connected,
      );
      assert.equal(status, 200);
      assert.equal(body.state.authenticated, false);
      assert.deepEqual(body.actions.map((a: { id: string }) => a.id), ["login", "disconnect"]);
      assert.deepEqual(body.state.requests, []);
    });

    await t.step(
      "login attaches the identity; the page and the manifest show the requests",
      async () => {
        const login = await agent.invoke("login", { username: "alice", password: "wonderland" });
        assert.equal(login.status, 200);
        await page.waitForFunction(() =>
          document.querySelectorAll("#requests tbody tr").length === 5
        );
        const { body } = await agent.manifestWhen(
          "/control-panel.json",
          (m) => m.state.requests?.length === 5,
        );
        assert.deepEqual(body.state.user, { username: "alice", name: "Alice Martin" });
        assert.deepEqual(body.actions.map((a: { id: string }) => a.id), [
          "logout",
          "disconnect",
          "approve_request",
          "reject_request",
          "add_comment",
          "filter_requests",
        ]);
        assert.equal(
          body.state.requests.find((r: { id: string }) => r.id === "req-3").status,
          "pending",
        );
      },
    );

    await t.step(
      "approving req-3 waits for the person, then changes the page and the manifest",
      async () => {
        const approved = agent.invoke("approve_request", "req-3");
        await page.waitForFunction(() =>
          document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") !== null
        );
        assert.match(await panelText(page), /The agent asks to run approve_request/);
        await Deno.mkdir(OUTPUT_DIR, { recursive: true });
        await page.screenshot({ path: new URL("demo-confirm.png", OUTPUT_DIR).pathname });
        await clickPanelButton(page, "Approve");
        const answer = await approved;
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(answer.body.result, { id: "req-3", status: "approved" });
        assert.equal(
          answer.body.state.requests.find((r: { id: string }) => r.id === "req-3").status,
          "approved",
        );
        assert.equal(await statusOf(page, "req-3"), "approved");
        const json = await agent.manifest("/control-panel.json");
        assert.equal(
          json.body.state.requests.find((r: { id: string }) => r.id === "req-3").status,
          "approved",
        );
        const toon = await bridge.fetch("/control-panel.toon", {
          headers: { Authorization: `Bearer ${token}` },
        });
        const decoded = decode(await toon.text()) as typeof json.body;
        assert.deepEqual(decoded, json.body);
        await page.screenshot({ path: new URL("demo-approved.png", OUTPUT_DIR).pathname });
      },
    );

    await t.step("the person declines rejecting req-4: 403 declined, nothing changes", async () => {
      const rejected = agent.invoke("reject_request", "req-4");
      await clickPanelButton(page, "Decline");
      const answer = await rejected;
      assert.equal(answer.status, 403);
      assert.equal(answer.body.error, "declined");
      assert.equal(await statusOf(page, "req-4"), "pending");
    });

    await t.step("bad input to every demo action gets a clear error", async () => {
      const wrapped = await agent.invoke("approve_request", { id: "req-5" });
      assert.equal(wrapped.status, 400);
      assert.match(wrapped.body.hint, /input must be the string itself, not an object/);
      const pattern = await agent.invoke("reject_request", "5");
      assert.equal(pattern.status, 400);
      assert.equal(pattern.body.error, "invalid_input");
      const again = agent.invoke("approve_request", "req-3");
      await clickPanelButton(page, "Approve");
      const conflict = await again;
      assert.equal(conflict.status, 422);
      assert.match(conflict.body.message, /already approved/);
      const unknown = agent.invoke("approve_request", "req-99");
      await clickPanelButton(page, "Approve");
      assert.match((await unknown).body.message, /There is no request "req-99"/);
      const filter = await agent.invoke("filter_requests", "lost");
      assert.equal(filter.status, 400);
      const missing = await agent.invoke("add_comment", { request_id: "req-5" });
      assert.equal(missing.status, 400);
      assert.match(missing.body.hint, /field "text" is required/);
      const long = await agent.invoke("add_comment", {
        request_id: "req-5",
        text: "x".repeat(1001),
      });
      assert.equal(long.status, 400);
      const nowhere = await agent.invoke("add_comment", { request_id: "req-77", text: "hi" });
      assert.equal(nowhere.status, 422);
      assert.match(nowhere.body.message, /There is no request "req-77"/);
    });

    await t.step("markup in a comment is shown as text, not HTML", async () => {
      const text = '<img src=x onerror="window.pwned=1"> looks fine';
      const answer = await agent.invoke("add_comment", { request_id: "req-5", text });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      await page.waitForFunction(
        (t) => document.querySelector("#requests tbody")?.textContent?.includes(t),
        {},
        text,
      );
      assert.equal(await page.evaluate(() => document.querySelectorAll("#requests img").length), 0);
      assert.equal(await page.evaluate(() => (window as { pwned?: number }).pwned), undefined);
    });

    await t.step("filter_requests changes what the page shows and the state", async () => {
      const answer = await agent.invoke("filter_requests", "pending");
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.result, { filter: "pending", shown: 2 });
      assert.deepEqual(answer.body.state.requests.map((r: { id: string }) => r.id), [
        "req-4",
        "req-5",
      ]);
      assert.equal(await page.$eval("#filter", (el) => (el as HTMLSelectElement).value), "pending");
    });

    await t.step(
      "after logout a forged snapshot unlocks nothing, and the API refuses",
      async () => {
        assert.equal((await agent.invoke("logout", {})).status, 200);
        await page.waitForFunction(() => document.body.dataset.signedIn === "no");
        await page.evaluate(() => {
          const forged = document.createElement("aim-state");
          forged.setAttribute("name", "authenticated");
          forged.setAttribute("value", "true");
          document.body.append(forged);
        });
        const { body } = await agent.manifestWhen(
          "/control-panel.json",
          (m) => m.actions.length === 2,
        );
        assert.equal(body.state.authenticated, false);
        const refused = await agent.invoke("approve_request", "req-5");
        assert.equal(refused.status, 403);
        assert.equal(refused.body.error, "login_required");
        const api = await page.evaluate(async () => {
          // The page itself, with its tab key: still no identity, so still refused.
          const { client } = await import("/__aim/elements.js");
          const res = await fetch("/api/requests/req-5/approve", {
            method: "POST",
            headers: { "X-Aim-Tab": client.session.tabKey },
          });
          return { status: res.status, body: await res.json() };
        });
        assert.equal(api.status, 403);
        assert.equal(api.body.error, "login_required");
      },
    );

    await t.step("the person signs in by hand and files a request on the second page", async () => {
      await page.type("#username", "bob");
      await page.type("#password", "builder");
      await page.click("#login button");
      await page.waitForFunction(() => document.body.dataset.signedIn === "yes");
      await page.goto(`${bridge.origin}/new-request`);
      await page.waitForFunction(() => document.body.dataset.signedIn === "yes");
      const old = await agent.manifestWhen("/control-panel.json", () => true).catch((e) => e);
      assert.ok(old instanceof Error);
      const mismatch = await agent.manifest("/control-panel.json");
      assert.equal(mismatch.status, 409);
      assert.equal(mismatch.body.connected_page, "/new-request");
      const { body } = await agent.manifestWhen(
        "/new-request.json",
        (m) => m.actions.some((a: { id: string }) => a.id === "file_request"),
      );
      assert.equal(body.state.user.username, "bob");
      const filed = await agent.invoke("file_request", {
        amount: "99.50",
        currency: "GBP",
        purpose: "Taxi",
      });
      assert.equal(filed.status, 200, JSON.stringify(filed.body));
      assert.deepEqual(filed.body.result, { id: "req-6", status: "pending" });
      assert.deepEqual(filed.body.state.last_filed, { id: "req-6", status: "pending" });
      assert.equal(demo.store.get("req-6").requester, "Bob Stone");
      const bad = await agent.invoke("file_request", {
        amount: "lots",
        currency: "GBP",
        purpose: "x",
      });
      assert.equal(bad.status, 400);
    });

    await t.step(
      "every invocation is in the session's audit trail, without the password",
      async () => {
        const res = await bridge.fetch("/__aim/activity", {
          headers: { Authorization: `Bearer ${token}` },
        });
        const { entries } = await res.json();
        assert.ok(entries.length >= 15);
        // Newest first: the person's own login (bob), then the agent's (alice).
        const logins = entries.filter((e: { actionId: string }) => e.actionId === "login");
        assert.deepEqual(logins.map((e: { input: unknown }) => e.input), [
          { username: "bob" },
          { username: "alice" },
        ]);
        assert.ok(!JSON.stringify(entries).includes("wonderland"));
        assert.ok(
          entries.some((e: { actionId: string; outcome: string }) =>
            e.actionId === "reject_request" && e.outcome === "declined"
          ),
        );
        const other = await (await bridge.fetch("/__aim/session", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ page: "/control-panel" }),
        })).json();
        const theirs = await (await bridge.fetch("/__aim/activity", {
          headers: { Authorization: `Bearer ${other.sessionToken}` },
        })).json();
        assert.deepEqual(theirs.entries, []);
      },
    );
    await t.step(
      "on a 390 px phone, the signed-in control panel never scrolls sideways",
      async () => {
        await page.setViewport({ width: 390, height: 844 });
        await page.goto(`${bridge.origin}/control-panel`);
        await page.waitForFunction(() =>
          document.querySelectorAll("#requests tbody tr").length > 0
        );
        // The table scrolls inside its own box; the page does not.
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(wide <= 390, `the page is ${wide}px wide`);
        await page.screenshot({ path: new URL("demo-phone.png", OUTPUT_DIR).pathname });
      },
    );

    await t.step(
      "when the bridge stops, the page shows nobody signed in and the panel says the session ended",
      async () => {
        assert.equal(await page.evaluate(() => document.body.dataset.signedIn), "yes");
        await demo.served.shutdown();
        await page.waitForFunction(() =>
          document.querySelector("aim-panel")?.getAttribute("status") === "ended"
        );
        assert.equal(await page.evaluate(() => document.body.dataset.signedIn), "no");
        assert.equal(await page.$eval("[data-user-name]", (el) => el.textContent), "");
        assert.match(await panelText(page), /The bridge stopped, ending this session/);
        assert.doesNotMatch(await panelText(page), /Session token/);
      },
    );
  },
});

Deno.test({
  name:
    "the demo: README's task in fewer tokens, from the public catalog to a settled sign-in, an approval decided on a version, and a 304",
  ignore: NO_CHROMIUM,
  async fn() {
    await using panel = await openPanel();
    const { bridge, page, token } = panel;
    const auth = { Authorization: `Bearer ${token}` };
    const cheap = { ...auth, "Content-Type": "application/json", Accept: "text/toon" };
    const invoke = (body: unknown, headers: Record<string, string>) =>
      bridge.fetch("/__aim/invoke", {
        method: "POST",
        headers: { ...cheap, Prefer: "return=changes", ...headers },
        body: JSON.stringify(body),
      });

    // The public catalog names approve_request and its input before signing in.
    const catalog = decode(await (await bridge.fetch("/control-panel.toon")).text()) as {
      actions: { id: string; input_example: unknown }[];
    };
    const approve = catalog.actions.find((a) => a.id === "approve_request");
    assert.equal(approve?.input_example, "req-3");

    // Signing in answers once the page has loaded the requests.
    const login = await invoke({ actionId: "login", input: ALICE }, {});
    assert.equal(login.status, 200);
    const signedIn = decode(await login.text()) as {
      settled: boolean;
      state_version: number;
      state: { requests: { id: string; status: string }[] };
    };
    assert.equal(signedIn.settled, true);
    assert.equal(signedIn.state.requests.find((r) => r.id === "req-3")?.status, "pending");

    // Approved on that version, the person confirming; the answer says what changed.
    const approving = invoke(
      { actionId: "approve_request", input: "req-3" },
      { "If-Match": `"v${signedIn.state_version}"` },
    );
    await clickPanelButton(page, "Approve");
    const approved = await approving;
    assert.equal(approved.status, 200);
    assert.equal(approved.headers.get("preference-applied"), "return=changes");
    const answer = decode(await approved.text()) as {
      state_version: number;
      changes: { op: string; path: string; value?: unknown }[];
    };
    const index = signedIn.state.requests.findIndex((r) => r.id === "req-3");
    assert.deepEqual(
      answer.changes.find((op) => op.path.startsWith("/state/")),
      { op: "replace", path: `/state/requests/${index}/status`, value: "approved" },
    );
    assert.equal(await statusOf(page, "req-3"), "approved");

    // Nothing changed since the answer.
    const confirm = await bridge.fetch("/control-panel.toon", {
      headers: { ...auth, "If-None-Match": `"v${answer.state_version}"` },
    });
    assert.equal(confirm.status, 304);
    await confirm.body?.cancel();
  },
});
