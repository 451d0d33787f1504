/**
 * `aim manifest` as a command (bridge/cli/manifest.ts), imported directly and run in this
 * process: a file's page path (index is `/`; only `.html`, as aim serves pages), the origin its
 * URLs take, JSON and TOON, a broken declaration reported with exit code 1, each refusal with its
 * exit code, and a live page read from a Deno.serve app.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { decode } from "@toon-format/toon";
import { MANIFEST_USAGE, manifestCommand } from "../../bridge/cli/manifest.ts";
import { CliError, Exit } from "../../bridge/cli/common.ts";
import { BASIC_SITE, writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

/** Runs `aim manifest ARGS`; its exit code and what it printed. */
async function manifest(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await manifestCommand(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: () => Promise.resolve(""),
    env: () => undefined,
  });
  return { code, stdout, stderr };
}

Deno.test("aim manifest names a file's page by its name, index as /", async () => {
  await using dir = await tempDir();
  writeSite(dir.path, {
    ...BASIC_SITE,
    "Shop.html": '<aim-action name="buy" description="Buy" input-example="x"></aim-action>',
  });
  const cases: [string, string][] = [
    ["index.html", "/"],
    ["control-panel.html", "/control-panel"],
    ["Shop.html", "/Shop"],
  ];
  for (const [file, page] of cases) {
    const out = await manifest([join(dir.path, file)]);
    assert.equal(out.code, Exit.Ok, out.stderr);
    assert.equal(JSON.parse(out.stdout).page, page, file);
  }
});

Deno.test("aim manifest writes URLs on the origin given, and TOON when asked", async () => {
  await using dir = await tempDir();
  writeSite(dir.path);
  const file = join(dir.path, "control-panel.html");
  const json = JSON.parse((await manifest([file])).stdout);
  assert.equal(json.invoke_url, "http://127.0.0.1:8000/__aim/invoke");
  const shop = JSON.parse(
    (await manifest([file, "--origin", "https://shop.example/any/path"])).stdout,
  );
  assert.equal(shop.invoke_url, "https://shop.example/__aim/invoke", "the origin only");
  const toon = await manifest([file, "--toon"]);
  assert.deepEqual(decode(toon.stdout.trimEnd()), json);
});

Deno.test("aim manifest prints the manifest and fails with 1 when a declaration is left out, saying where", async () => {
  await using dir = await tempDir();
  writeSite(dir.path, {
    "p.html": `<aim-action name="ok" description="Fine" input-example="x"></aim-action>
<aim-action name="bad id!" description="Broken"></aim-action>`,
  });
  const file = join(dir.path, "p.html");
  const out = await manifest([file]);
  assert.equal(out.code, Exit.Failure);
  assert.deepEqual(JSON.parse(out.stdout).actions.map((a: { id: string }) => a.id), [
    "ok",
    "disconnect",
  ]);
  const lines = out.stderr.trimEnd().split("\n");
  assert.match(lines[0]!, new RegExp(`^${file}:2:1: `));
  assert.equal(
    lines[1],
    `aim manifest: 1 declaration left out of the manifest; 'aim check ${file}' checks the page`,
  );
});

Deno.test("aim manifest refuses each target it cannot read, with its exit code", async () => {
  await using dir = await tempDir();
  writeSite(dir.path);
  Deno.mkdirSync(join(dir.path, "folder.html"));
  const refusals: [string[], number, string][] = [
    [[], Exit.Usage, "give one FILE.html"],
    [["a.html", "b.html"], Exit.Usage, "give one FILE.html"],
    [
      [join(dir.path, "style.css")],
      Exit.Usage,
      `${join(dir.path, "style.css")} is not an .html file`,
    ],
    // aim serves no .htm or .HTML file as a page: said so, not "declares no <aim-action>".
    [
      [join(dir.path, "index.htm")],
      Exit.Usage,
      `${join(dir.path, "index.htm")} is not an .html file`,
    ],
    [
      [join(dir.path, "index.HTML")],
      Exit.Usage,
      `${join(dir.path, "index.HTML")} is not an .html file`,
    ],
    [[join(dir.path, "none.html")], Exit.Failure, `${join(dir.path, "none.html")} does not exist`],
    [
      [join(dir.path, "folder.html")],
      Exit.Failure,
      `${join(dir.path, "folder.html")} is not a file`,
    ],
    [
      [join(dir.path, "plain.html")],
      Exit.Failure,
      `${join(dir.path, "plain.html")} declares no <aim-action> or <aim-state>; it has no manifest`,
    ],
    [
      [join(dir.path, "index.html"), "--origin", "not a url"],
      Exit.Usage,
      '--origin must be a URL, got "not a url"',
    ],
    [
      [join(dir.path, "index.html"), "--page-query", "id"],
      Exit.Usage,
      "--page-query goes with a URL: a file is a page of its own",
    ],
  ];
  for (const [args, exitCode, message] of refusals) {
    await assert.rejects(
      manifest(args),
      (e) => e instanceof CliError && e.exitCode === exitCode && e.message === message,
      args.join(" "),
    );
  }
  assert.deepEqual(await manifest(["-h"]), { code: Exit.Ok, stdout: MANIFEST_USAGE, stderr: "" });
});

Deno.test("aim manifest URL reads the live page as an anonymous visitor, on the page's origin", async () => {
  await using server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (request) => {
      const path = new URL(request.url).pathname;
      if (request.headers.has("cookie")) return new Response("no cookie expected", { status: 400 });
      if (path === "/shop") {
        return new Response(
          '<aim-action name="buy" description="Buy" input-example="x"></aim-action>',
          {
            headers: { "content-type": "text/html" },
          },
        );
      }
      if (path === "/plain") {
        return new Response("<p>plain</p>", {
          headers: { "content-type": "text/html" },
        });
      }
      return new Response("no", { status: 404 });
    },
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const out = await manifest([`${origin}/shop`]);
  assert.equal(out.code, Exit.Ok, out.stderr);
  const read = JSON.parse(out.stdout);
  assert.equal(read.page, "/shop");
  assert.equal(read.invoke_url, `${origin}/__aim/invoke`);
  await assert.rejects(
    manifest([`${origin}/plain`]),
    (e) =>
      e instanceof CliError &&
      e.message === `${origin}/plain declares no <aim-action> or <aim-state>; it has no manifest`,
  );
});
