import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** `deno task start ARGS`, as README runs it, with the demo's data in a temporary folder. */
function start(args: string[], data: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", "start", ...args, "--data", data],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
}

Deno.test("deno task start answers a taken port with one line that says how to choose another", async () => {
  await using data = await Deno.makeTempDir({ prefix: "aim-start-" }).then((path) => ({
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  }));
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  const out = await start(["--port", String(port)], data.path).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 1, stderr);
  // deno task echoes the command it runs; everything after is the demo's.
  const lines = stderr.split("\n").filter((line) => line && !line.startsWith("Task start"));
  assert.deepEqual(lines, [
    `aim demo: port ${port} is already in use; start on another one with ` +
    `'deno task start --port 8080' (--port 0 picks a free one)`,
  ]);
});

Deno.test("deno task start --port chooses the demo's port", async () => {
  await using data = await Deno.makeTempDir({ prefix: "aim-start-" }).then((path) => ({
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  }));
  const child = start(["--port", "0", "--quiet"], data.path);
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!/\/control-panel /.test(output)) {
    const { value, done } = await reader.read();
    if (done) break;
    output += value;
  }
  const url = /aim demo: (http:\/\/127\.0\.0\.1:(\d+)\/control-panel) /.exec(output);
  if (!url) assert.fail(`no URL in ${output}${await stderr}`);
  assert.notEqual(url[2], "8000");
  const page = await fetch(url[1]!);
  assert.equal(page.status, 200);
  await page.body?.cancel();
  child.kill("SIGTERM");
  assert.equal((await child.status).code, 0);
  await reader.cancel();
  await stderr;
});
