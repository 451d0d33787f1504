/**
 * docs/a2a.md's examples, run as written against the demo (its pages, users and API),
 * whose page a test tab drives: the official client's script (sign in, then a consequential
 * approval that waits for the person) and the `curl` commands.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { TaskState } from "@a2a-js/sdk";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startDemo } from "../../demo/app.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";
import { tempDir } from "../helpers/temp.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const DOC = join(REPO, "docs/a2a.md");
const CURL = existsSync("/usr/bin/curl");
if (!CURL) {
  console.warn("curl is missing: docs/a2a.md's curl example is not run (apt-get install curl).");
}

/** The fenced blocks of `language` in docs/a2a.md. */
async function blocks(language: string): Promise<string[]> {
  const doc = await Deno.readTextFile(DOC);
  return [...doc.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((m) =>
    m[1]!
  );
}

/** The demo, a session on its control panel and a tab that offers its actions. */
async function demoWithTab(dir: string) {
  const demo = await startDemo({ data: dir, port: 0, hostname: "127.0.0.1" });
  const origin = demo.served.url.replace(/\/$/, "");
  const token = await openPageSession(origin, "/control-panel");
  const tab = await FakeTab.open(origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([
    { id: "approve_request", consequential: true, protected: true },
    {
      id: "filter_requests",
      protected: true,
      input_example: "pending",
      handler: (status) => ({ shown: status }),
    },
  ]);
  return { demo, origin, token, tab };
}

Deno.test("docs/a2a.md's client script runs as written: sign in, then follow an approval to its end", async () => {
  await using dir = await tempDir("aim-a2a-docs-");
  const { demo, origin, token, tab } = await demoWithTab(join(dir.path, "data"));
  await using _demo = demo;
  await using _tab = tab;
  const [script] = await blocks("ts");
  assert.ok(script, "docs/a2a.md has the client script");
  const file = join(REPO, `.a2a-docs-example-${crypto.randomUUID()}.ts`);
  await Deno.writeTextFile(file, script.replaceAll("http://127.0.0.1:8000", origin));
  try {
    // The person is asked in the page; they approve once the script follows the task.
    tab.answerWith = "never";
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", "--allow-env", "--config", join(REPO, "deno.json"), file],
      env: { TOKEN: token },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const invoke = await tab.next("invoke", (m) => m.actionId === "approve_request");
    tab.send({ type: "awaiting", id: invoke.id, message: "Approve req-3?" });
    let text = "";
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    while (!text.includes('"$case":"task"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    tab.send({ type: "result", id: invoke.id, ok: true, result: { approved: "req-3" } });
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += chunk.value;
    }
    const { code } = await child.status;
    assert.equal(code, 0, text + await stderr);
    const [login, ...events] = text.trim().split("\n");
    assert.equal(login, "login: TASK_STATE_COMPLETED");
    const states = events.map((line) => {
      const { payload } = JSON.parse(line);
      return payload.value.status?.state;
    });
    assert.deepEqual(
      [states[0], states.at(-1)],
      [TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_COMPLETED],
    );
    assert.match(text, /"approved":"req-3"/);
  } finally {
    await Deno.remove(file).catch(() => {});
  }
});

Deno.test({
  name: "docs/a2a.md's curl commands run as written: sign in, then an action the demo offers",
  ignore: !CURL,
  async fn() {
    await using dir = await tempDir("aim-a2a-docs-");
    const { demo, origin, token, tab } = await demoWithTab(join(dir.path, "data"));
    await using _demo = demo;
    await using _tab = tab;
    const [commands] = await blocks("sh");
    assert.ok(commands, "docs/a2a.md has the curl commands");
    const out = await new Deno.Command("bash", {
      args: ["-c", commands.replaceAll("http://127.0.0.1:8000", origin)],
      env: { TOKEN: token },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const answers = new TextDecoder().decode(out.stdout).split(/(?<=\})(?=\{"jsonrpc")/);
    assert.equal(answers.length, 2, answers.join("\n"));
    const [login, filter] = answers.map((a) => JSON.parse(a));
    assert.equal(login.result.status.state, "completed", JSON.stringify(login));
    assert.equal(filter.result.status.state, "completed", JSON.stringify(filter));
    assert.match(JSON.stringify(filter.result.artifacts), /"shown":"pending"/);
  },
});
