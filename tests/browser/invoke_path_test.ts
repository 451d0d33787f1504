/**
 * The tab's side of an invocation in real Chromium, as the invocation benchmark
 * (bench/invoke_bench.ts) drives it: what the tab sends with its `result` (the actions the action
 * left before it, the state in it, so that the agent's answer carries them), and the panel's activity
 * log, which changes on every invocation and so must cost the page little.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import {
  Agent,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelToken,
  recordChannel,
} from "./harness.ts";

/**
 * `add` puts an item in the state and shows `extra`, an action hidden until then; `echo`
 * changes nothing; `widen` adds a field to the form of `fill`, which no observer tells.
 */
const PAGE = `<!doctype html><title>Invoke</title>${ELEMENTS}<aim-panel></aim-panel>
<aim-state name="items"></aim-state>
<aim-action name="add" description="Add an item" input-example="x"></aim-action>
<aim-action name="echo" description="Answer the input back" input-example="x"></aim-action>
<aim-action name="extra" description="Shown once an item was added" hidden></aim-action>
<aim-action name="big" description="Answer a large result" input-example="x"></aim-action>
<form id="f"><input name="a"></form>
<aim-action name="fill" form="#f" description="Fill the form"></aim-action>
<aim-action name="widen" description="Add a field to the form" input-example="b"></aim-action>
<script type="module">
  const items = document.querySelector("aim-state[name=items]");
  items.value = [];
  const action = (name) => document.querySelector("aim-action[name=" + name + "]");
  action("add").handler = (item) => {
    items.value = [...items.value, item];
    action("extra").hidden = false;
    return { added: item };
  };
  action("echo").handler = (text) => text;
  // No observer sees a form's fields: the tab reads them again after its answers.
  action("widen").handler = (name) => {
    const input = document.createElement("input");
    input.name = name;
    document.getElementById("f").append(input);
    return name;
  };
  action("fill").handler = () => "filled";
  action("extra").handler = () => "extra";
  action("big").handler = (item) => {
    items.value = [...items.value, item];
    return "y".repeat(300000);
  };
</script>`;

Deno.test({
  name: "an invocation in a real browser: what the tab sends before its result, and the log",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: { "index.html": PAGE } });

    await t.step(
      "the tab sends the state and the actions an action left before its result",
      async () => {
        await using context = await browser.context();
        const page = await context.newPage();
        await recordChannel(page);
        await page.goto(bridge.origin + "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        const added = await agent.invoke("add", "first");
        assert.equal(added.status, 200, JSON.stringify(added.body));
        assert.deepEqual(added.body.state.items, ["first"]);
        // On the wire: the register listing `extra` comes before the result, and the state
        // holding the item rides in the result itself (one message, no `state` before it).
        const sent = (await page.evaluate("aimSent") as string[]).map((m) => JSON.parse(m));
        const result = sent.findIndex((m) => m.type === "result");
        const register = sent.findIndex((m) =>
          m.type === "register" && m.actions.some((a: { id: string }) => a.id === "extra")
        );
        const order = sent.map((m) => m.type).join(" ");
        assert.ok(result > 0, order);
        assert.deepEqual(sent[result].state?.items, ["first"], `the result's state: ${order}`);
        assert.ok(
          !sent.slice(0, result).some((m) => m.type === "state" && m.state.items?.[0] === "first"),
          `no state message for it before the result: ${order}`,
        );
        assert.ok(register >= 0 && register < result, `register after the result: ${order}`);
        // So the very next invocation may name the action the first one showed.
        assert.equal((await agent.invoke("extra")).body.result, "extra");
        // A large result and its state go as two messages, the state first.
        await page.evaluate("aimSent.length = 0");
        const big = await agent.invoke("big", "second");
        assert.equal(big.status, 200);
        assert.equal(big.body.result.length, 300000);
        assert.deepEqual(big.body.state.items, ["first", "second"]);
        const types = (await page.evaluate("aimSent") as string[]).map((m) => JSON.parse(m))
          .filter((m) => m.type === "state" || m.type === "result");
        assert.deepEqual(types.map((m) => m.type), ["state", "result"]);
        assert.equal(types[1].state, undefined);
      },
    );

    await t.step(
      "after its answers the tab reads again what no observer tells, at most every 250 ms while calls keep coming",
      async () => {
        await using context = await browser.context();
        const page = await context.newPage();
        await page.goto(bridge.origin + "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        // Each reading reads every action, `fill`'s form included: count those of `fill`.
        const started = await page.evaluate(() => {
          const fill = document.querySelector("aim-action[name=fill]") as unknown as {
            declaration(): unknown;
          };
          const w = window as unknown as { readings: number };
          w.readings = 0;
          const declaration = fill.declaration.bind(fill);
          fill.declaration = () => (w.readings++, declaration());
          return performance.now();
        });
        // Twenty answers, each followed by a frame: read in the frame after each, that is twenty.
        for (let i = 0; i < 20; i++) {
          assert.equal((await agent.invoke("echo", `e${i}`)).status, 200);
          await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
        }
        const { readings, intervals } = await page.evaluate((started) => ({
          readings: (window as unknown as { readings: number }).readings,
          intervals: Math.ceil((performance.now() - started) / 250),
        }), started);
        assert.ok(
          readings >= 1 && readings <= Math.min(19, intervals + 1),
          `${readings} readings after 20 answers in ${intervals} intervals of 250 ms`,
        );
        // And what no observer tells still reaches the agent: the field `widen` added.
        assert.equal((await agent.invoke("widen", "b")).status, 200);
        await agent.manifestWhen(
          "/index.json",
          (m) =>
            // deno-lint-ignore no-explicit-any
            m.actions?.find((a: any) => a.id === "fill")?.input_schema?.properties?.b !== undefined,
        );
      },
    );

    await t.step(
      "the log shows the newest 50 invocations first; an entry's line stays as newer ones come",
      async () => {
        await using context = await browser.context();
        const page = await context.newPage();
        await page.goto(bridge.origin + "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        const lines = () =>
          page.evaluate(() =>
            [...document.querySelector("aim-panel")!.shadowRoot!.querySelectorAll("li")].map((
              li,
            ) => ({
              text: li.querySelector("code")!.textContent + " " +
                li.querySelector("span")!.textContent,
              time: li.querySelector("time")!.textContent,
              expected: new Date(li.querySelector("time")!.dateTime).toLocaleTimeString(),
            }))
          );
        const count = (n: number) =>
          page.waitForFunction(
            (n) =>
              document.querySelector("aim-panel")!.shadowRoot!.querySelectorAll("li").length === n,
            {},
            n,
          );

        assert.equal((await agent.invoke("echo", "a")).status, 200);
        await count(1);
        // The line of that first invocation: the same element once the next one is logged.
        await page.evaluate(() => {
          const w = window as unknown as { firstLine: Element };
          w.firstLine = document.querySelector("aim-panel")!.shadowRoot!.querySelector("li")!;
        });
        assert.equal((await agent.invoke("nope")).status, 404);
        await count(2);
        assert.deepEqual(
          await page.evaluate(() => {
            const w = window as unknown as { firstLine: Element };
            const all: Element[] = [
              ...document.querySelector("aim-panel")!.shadowRoot!.querySelectorAll("li"),
            ];
            return [all.indexOf(w.firstLine), w.firstLine.isConnected];
          }),
          [1, true],
          "the first line was rewritten instead of kept",
        );

        for (let i = 0; i < 50; i++) {
          assert.equal((await agent.invoke(i === 49 ? "add" : "echo", `e${i}`)).status, 200);
        }
        await page.waitForFunction(() =>
          document.querySelector("aim-panel")!.shadowRoot!.querySelector("li code")!
            .textContent === "add"
        );
        const shown = await lines();
        assert.equal(shown.length, 50);
        assert.deepEqual(shown.slice(0, 2).map((l) => l.text), ["add 200 ok", "echo 200 ok"]);
        // The two first invocations fell off the end.
        assert.ok(!shown.some((l) => l.text.startsWith("nope")), JSON.stringify(shown));
        for (const line of shown) assert.equal(line.time, line.expected);

        // A burst of calls, one per frame (each answer in a task of its own), draws the log at
        // most once every 250 ms (elements/client_controller.ts), not once per call nor per frame:
        // each render is laid out and painted on the thread that takes the agent's next call.
        const renders = await page.evaluate(async () => {
          const panel = document.querySelector("aim-panel") as unknown as {
            updated(changed: unknown): void;
          };
          let count = 0;
          const updated = panel.updated.bind(panel);
          panel.updated = (changed) => {
            count++;
            updated(changed);
          };
          const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
          await frame();
          const started = performance.now();
          for (let i = 0; i < 8; i++) {
            await new Promise<void>((resolve) =>
              setTimeout(() => {
                const detail = {
                  type: "activity",
                  at: new Date().toISOString(),
                  actionId: `burst${i}`,
                  status: 200,
                  outcome: "ok",
                  durationMs: 1,
                };
                document.dispatchEvent(new CustomEvent("aim-activity", { detail }));
                resolve();
              })
            );
            await frame();
          }
          // Frames come late on a loaded machine: the burst may span several intervals.
          const intervals = Math.ceil((performance.now() - started) / 250);
          // The last entry is drawn within the interval and a frame.
          while (
            document.querySelector("aim-panel")!.shadowRoot!.querySelector("li code")!
              .textContent !== "burst7"
          ) await frame();
          return { count, intervals };
        });
        assert.ok(
          renders.count >= 1 && renders.count <= Math.min(7, renders.intervals + 1),
          `${renders.count} renders for 8 calls in ${renders.intervals} intervals of 250 ms`,
        );
        assert.equal((await lines())[0]?.text, "burst7 200 ok");
      },
    );
  },
});
