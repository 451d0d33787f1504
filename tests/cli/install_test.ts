import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { shim } from "../../bridge/cli/install.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** No network: every download goes to a proxy that refuses the connection. */
const OFFLINE = {
  NO_COLOR: "1",
  HTTP_PROXY: "http://127.0.0.1:9",
  HTTPS_PROXY: "http://127.0.0.1:9",
};

Deno.test("deno task install puts an aim command that works from any folder without network", async () => {
  const home = await Deno.makeTempDir({ prefix: "aim-install-" });
  try {
    const env = { ...OFFLINE, DENO_INSTALL_ROOT: home, PATH: "/usr/bin:/bin" };
    const install = await new Deno.Command(Deno.execPath(), {
      args: ["task", "install"],
      cwd: ROOT,
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(install.stdout);
    assert.equal(install.code, 0, new TextDecoder().decode(install.stderr));
    const aim = join(home, "bin", "aim");
    assert.match(said, new RegExp(`aim install: ${aim} runs ${join(ROOT, "main.ts")}`));
    assert.match(said, /is not on your PATH; add it: export PATH=/);
    // From another project's folder, with a deno.json of its own, as a person runs it.
    const elsewhere = await Deno.makeTempDir({ dir: home });
    await Deno.writeTextFile(
      join(elsewhere, "deno.json"),
      JSON.stringify({ imports: { zod: "npm:zod@3.0.0" } }),
    );
    const run = (args: string[]) =>
      new Deno.Command(aim, { args, cwd: elsewhere, env, stdout: "piped", stderr: "piped" })
        .output();
    const version = await run(["--version"]);
    assert.equal(version.code, 0, new TextDecoder().decode(version.stderr));
    assert.equal(new TextDecoder().decode(version.stdout), "aim 0.1.0\n");
    const manifest = await run(["manifest", join(ROOT, "demo/site/control-panel.html")]);
    assert.equal(manifest.code, 0, new TextDecoder().decode(manifest.stderr));
    assert.equal(JSON.parse(new TextDecoder().decode(manifest.stdout)).page, "/control-panel");
    assert.equal(new TextDecoder().decode(manifest.stderr), "");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the installed aim survives its Deno being gone (npx's cache cleared): deno on the PATH, else npx", async () => {
  const dir = await Deno.makeTempDir({ prefix: "aim-shim-" });
  try {
    const script = join(dir, "aim");
    const gone = join(dir, "npx-cache", "_npx", "deno");
    await Deno.writeTextFile(script, shim(gone, "/repo/deno.json", "/repo/main.ts", "2.9.6"), {
      mode: 0o755,
    });
    // Stand-ins that say how they were called.
    const tools = join(dir, "tools");
    await Deno.mkdir(tools);
    const fake = async (name: string) => {
      await Deno.writeTextFile(join(tools, name), `#!/bin/sh\necho ${name} "$@"\n`, {
        mode: 0o755,
      });
    };
    // PATH holds the stand-ins only: the shim and they are sh scripts (#!/bin/sh, by its full
    // path) that use only builtins, and a real Deno in /usr/bin, /bin or anywhere else on this
    // machine must not answer for them.
    const run = async (path: string) => {
      const out = await new Deno.Command(script, {
        args: ["--version"],
        env: { PATH: path },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return new TextDecoder().decode(out.stdout);
    };
    await fake("npx");
    assert.match(
      await run(tools),
      /^npx -y deno@2\.9\.6 run --quiet --config \/repo\/deno\.json .* \/repo\/main\.ts --version\n$/,
    );
    await fake("deno");
    assert.match(
      await run(tools),
      /^deno run --quiet --config \/repo\/deno\.json .* \/repo\/main\.ts --version\n$/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
