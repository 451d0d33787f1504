import assert from "node:assert/strict";
import { join } from "node:path";
import { PACKAGING, skipUnlessPackaging } from "../helpers/cli.ts";

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

skipUnlessPackaging("compile_test");
const runtime = runtimeAvailable();
if (PACKAGING && !runtime) {
  console.log(
    "compile_test: skipped, deno compile needs its runtime (denort) and none is here: " +
      "set DENORT_BIN or run 'deno task compile' once on a machine with internet",
  );
}

Deno.test({
  name: "deno task compile builds a binary that serves the embedded demo site and elements",
  ignore: !PACKAGING || runtime === null,
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

/** A DENO_DIR with every package of the real one but no downloaded runtime, and no network. */
async function offlineWithoutRuntime(): Promise<{ env: Record<string, string>; dir: string }> {
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  const denoDir: string = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir;
  const dir = await Deno.makeTempDir({ prefix: "aim-deno-dir-" });
  for await (const entry of Deno.readDir(denoDir)) {
    if (entry.name !== "dl") await Deno.symlink(join(denoDir, entry.name), join(dir, entry.name));
  }
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/root",
    DENO_DIR: dir,
    NO_COLOR: "1",
    HTTP_PROXY: "http://127.0.0.1:9",
    HTTPS_PROXY: "http://127.0.0.1:9",
  };
  return { env, dir };
}

async function compileWith(env: Record<string, string>): Promise<Deno.CommandOutput> {
  return await new Deno.Command(Deno.execPath(), {
    args: ["task", "compile"],
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test({
  name: "deno task compile without internet names DENORT_BIN and what to do",
  ignore: !PACKAGING,
}, async () => {
  const { env, dir } = await offlineWithoutRuntime();
  try {
    const offline = await compileWith(env);
    const stderr = new TextDecoder().decode(offline.stderr);
    assert.equal(offline.code, 1, stderr);
    const version = Deno.version.deno;
    assert.ok(
      stderr.endsWith(
        `aim compile: deno compile could not download Deno's runtime ` +
          `(denort-${Deno.build.target}.zip, Deno ${version}); without internet, set DENORT_BIN ` +
          `to a denort binary of Deno ${version} (that zip from ` +
          `https://dl.deno.land/release/v${version}/, unzipped) and run 'deno task compile' ` +
          `again, or use 'deno task install', which downloads nothing\n`,
      ),
      stderr,
    );
    const missing = join(dir, "no-such-denort");
    const wrong = await compileWith({ ...env, DENORT_BIN: missing });
    const said = new TextDecoder().decode(wrong.stderr);
    assert.equal(wrong.code, 1, said);
    assert.ok(
      said.endsWith(
        `aim compile: DENORT_BIN=${missing} did not work as Deno's runtime: it must be the ` +
          `denort binary of Deno ${version} for ${Deno.build.target}\n`,
      ),
      said,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
