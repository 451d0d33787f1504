import assert from "node:assert/strict";
import { join } from "node:path";

const DENO_VERSION = Deno.version.deno;

/** Where `deno compile` finds its runtime without downloading it. */
function runtimeAvailable(): string | null {
  const bin = Deno.env.get("DENORT_BIN");
  if (bin) return `DENORT_BIN=${bin}`;
  const home = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno");
  const cached = join(
    home,
    "dl/release",
    `v${DENO_VERSION}`,
    "denort-x86_64-unknown-linux-gnu.zip",
  );
  try {
    Deno.statSync(cached);
    return cached;
  } catch {
    return null;
  }
}

const runtime = runtimeAvailable();
if (!runtime) {
  console.log(
    "compile_test: skipped, deno compile needs its runtime (denort) and none is here: " +
      "set DENORT_BIN or run 'deno task compile' once on a machine with internet",
  );
}

Deno.test({
  name: "deno task compile builds a binary that serves the embedded demo site and elements",
  ignore: runtime === null,
  async fn() {
    const compile = await new Deno.Command(Deno.execPath(), {
      args: ["task", "compile"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(compile.code, 0, new TextDecoder().decode(compile.stderr));
    const child = new Deno.Command("dist/aim", {
      args: ["serve", "--demo", "--port", "0", "--quiet"],
      stdout: "piped",
      stderr: "piped",
      cwd: Deno.makeTempDirSync(),
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let output = "";
    while (!/at (http\S+)/.test(output)) {
      const { value, done } = await reader.read();
      if (done) break;
      output += value;
    }
    const url = /at (http\S+)/.exec(output)?.[1];
    assert.ok(url, output);
    const sitemap = await (await fetch(`${url}/sitemap.json`)).json();
    assert.ok(sitemap.pages.some((p: { path: string }) => p.path === "/control-panel"));
    const bundle = await fetch(`${url}/__aim/elements.js`);
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get("content-type") ?? "", /javascript/);
    await bundle.body?.cancel();
    child.kill("SIGTERM");
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel();
  },
});
