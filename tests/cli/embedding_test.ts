import assert from "node:assert/strict";
import { join } from "node:path";
import { PACKAGING, skipUnlessPackaging } from "../helpers/cli.ts";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The program of README's "Depending on aim from another project", in a project of its own. */
const PROGRAM = `import { createUserStore, hashPassword, serve } from "@aim/bridge";
import { VERSION } from "@aim/bridge/cli";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("a long passphrase"), name: "Alice" },
]);
const served = serve({ root: "site", port: 0, users });
const manifest = await (await fetch(served.url + "/orders.json")).json();
console.log(JSON.stringify({ version: VERSION, actions: manifest.actions.map((a: { id: string }) => a.id) }));
await served.shutdown();
`;

skipUnlessPackaging("embedding_test");

Deno.test({
  name: "another Deno project depends on aim through links in its deno.json, offline",
  ignore: !PACKAGING,
}, async () => {
  const project = await Deno.makeTempDir({ prefix: "aim-embedder-" });
  try {
    await Deno.writeTextFile(
      join(project, "deno.json"),
      JSON.stringify({
        links: [ROOT],
        imports: { "@aim/bridge": "jsr:@aim/bridge@^0.1.0" },
      }),
    );
    // The versions aim is tested with, so nothing is resolved again from the registry.
    await Deno.copyFile(join(ROOT, "deno.lock"), join(project, "deno.lock"));
    await Deno.writeTextFile(join(project, "main.ts"), PROGRAM);
    await Deno.mkdir(join(project, "site"));
    await Deno.writeTextFile(
      join(project, "site", "orders.html"),
      `<title>Orders</title><script type="module" src="/__aim/elements.js"></script>
<aim-action name="refresh" description="Reload the list of orders"></aim-action>`,
    );
    // As an embedder does once, online: `deno install` puts in the cache what resolving the
    // linked package needs (the npm metadata of aim's dependencies' dependencies, which running
    // aim itself from its lockfile never fetches). Everything after it runs offline.
    const install = await new Deno.Command(Deno.execPath(), {
      args: ["install", "--entrypoint", "main.ts"],
      cwd: project,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(install.code, 0, new TextDecoder().decode(install.stderr));
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--check", "--allow-net", "--allow-read", "--allow-env", "main.ts"],
      cwd: project,
      // No network but this machine's own addresses.
      env: {
        NO_COLOR: "1",
        HTTP_PROXY: "http://127.0.0.1:9",
        HTTPS_PROXY: "http://127.0.0.1:9",
        NO_PROXY: "127.0.0.1",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(run.stderr);
    assert.equal(run.code, 0, stderr);
    const said = JSON.parse(new TextDecoder().decode(run.stdout));
    assert.equal(said.version, "0.1.0");
    assert.ok(said.actions.includes("refresh"), JSON.stringify(said));
    assert.ok(said.actions.includes("login"), JSON.stringify(said));
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});
