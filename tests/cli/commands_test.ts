import assert from "node:assert/strict";
import { join } from "node:path";
import { decode } from "@toon-format/toon";
import { createUserStore, hashPassword, verifyPassword } from "../../bridge/mod.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { runAim } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("aim --version and --help work on every command", async () => {
  const version = await runAim(["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^aim \d+\.\d+\.\d+\n$/);
  const help = await runAim(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: aim <command>/);
  for (const command of ["serve", "check", "manifest", "invoke", "hash-password", "proxy-config"]) {
    const result = await runAim([command, "--help"]);
    assert.equal(result.code, 0, command);
    assert.match(result.stdout, new RegExp(`Usage: aim ${command}`), command);
    const v = await runAim([command, "--version"]);
    assert.equal(v.code, 0, command);
    assert.match(v.stdout, /^aim \d/, command);
  }
});

Deno.test("aim answers an unknown command or flag with usage and exit 2", async () => {
  const unknown = await runAim(["frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /aim: unknown command "frobnicate"/);
  assert.match(unknown.stderr, /Usage: aim <command>/);
  for (
    const command of [
      "serve",
      "check",
      "manifest",
      "invoke",
      "mcp",
      "hash-password",
      "proxy-config",
    ]
  ) {
    const result = await runAim([command, "--frob"]);
    assert.equal(result.code, 2, command);
    assert.match(
      result.stderr,
      new RegExp(`^aim: unknown option --frob\n\nUsage: (AIM_TOKEN=<token> )?aim ${command}`),
    );
  }
});

Deno.test("aim with a flag and no command prints the general usage, in aim's own words", async () => {
  // Serve is the implied command, but its usage would not tell what aim takes.
  const cases: [string[], string][] = [
    [["--bogus"], "unknown option --bogus"],
    [["-x"], "unknown option -x"],
    [["--port"], "--port needs a value"],
    [["--quiet=yes"], "--quiet takes no value"],
  ];
  for (const [args, message] of cases) {
    const result = await runAim(args);
    assert.equal(result.code, 2, args.join(" "));
    assert.ok(
      result.stderr.startsWith(`aim: ${message}\n\nUsage: aim <command> [options]\n`),
      result.stderr,
    );
  }
  const named = await runAim(["check", "--format"]);
  assert.equal(named.code, 2);
  assert.ok(named.stderr.startsWith("aim: --format needs a value\n\nUsage: aim check "));
});

Deno.test("aim manifest prints a page's public manifest offline, in JSON or TOON", async () => {
  const json = await runAim(["manifest", "demo/site/control-panel.html"]);
  assert.equal(json.code, 0, json.stderr);
  const body = JSON.parse(json.stdout);
  assert.equal(body.page, "/control-panel");
  assert.equal(body.state_scope, "public_schema_only");
  assert.equal(body.invoke_url, "http://127.0.0.1:8000/__aim/invoke");
  const toon = await runAim([
    "manifest",
    "demo/site/control-panel.html",
    "--toon",
    "--origin",
    "https://aim.example",
  ]);
  assert.equal(toon.code, 0);
  const decoded = decode(toon.stdout.trim()) as Record<string, unknown>;
  assert.deepEqual(decoded, {
    ...body,
    sitemap: "https://aim.example/sitemap.json",
    invoke_url: "https://aim.example/__aim/invoke",
  });
  const index = await runAim(["manifest", "demo/site/index.html"]);
  assert.equal(JSON.parse(index.stdout).page, "/");
  assert.equal(json.stderr + toon.stderr + index.stderr, "");
});

Deno.test("aim manifest reports the declarations it leaves out and exits 1, as aim check does", async () => {
  await using temp = await tempDir("aim-cli-");
  const dir = temp.path;
  const file = join(dir, "orders.html");
  Deno.writeTextFileSync(
    file,
    `<title>Orders</title><script type="module" src="/__aim/elements.js"></script>
<aim-action name="refresh" description="Reload the list of orders"></aim-action>
<aim-action name="Bad Name" description="Cancel an order"></aim-action>
<aim-action name="refresh" description="Reload again"></aim-action>
`,
  );
  const result = await runAim(["manifest", file]);
  assert.equal(result.code, 1);
  // The manifest is still printed, with what could be read.
  const ids = JSON.parse(result.stdout).actions.map((a: { id: string }) => a.id);
  assert.deepEqual(ids.filter((id: string) => !["login", "logout", "disconnect"].includes(id)), [
    "refresh",
  ]);
  const lines = result.stderr.split("\n");
  assert.match(lines[0] ?? "", new RegExp(`^${file}:3:1: action "Bad Name" is not valid: id: `));
  assert.equal(lines[1], `${file}:4:1: action "refresh" is declared twice`);
  assert.equal(
    lines[2],
    `aim manifest: 2 declarations left out of the manifest; 'aim check ${file}' checks the page`,
  );
});

Deno.test("aim manifest reports a missing file, a plain page and bad arguments", async () => {
  await using temp = await tempDir("aim-cli-");
  const dir = temp.path;
  Deno.writeTextFileSync(join(dir, "plain.html"), "<p>Nothing here</p>");
  const cases: [string[], number, RegExp][] = [
    [["manifest", join(dir, "nope.html")], 1, /nope\.html does not exist/],
    [["manifest", join(dir, "plain.html")], 1, /declares no <aim-action> or <aim-state>/],
    [["manifest", "notes.txt"], 2, /is not an \.html file/],
    [["manifest"], 2, /give one FILE\.html/],
    [["manifest", join(dir, "plain.html"), "--origin", "::"], 2, /--origin must be a URL/],
  ];
  for (const [args, code, message] of cases) {
    const result = await runAim(args);
    assert.equal(result.code, code, args.join(" "));
    assert.match(result.stderr, message);
  }
});

Deno.test("aim invoke prints the manifest and invokes actions as an agent", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([
    { id: "search", handler: (q) => ({ found: q }) },
    { id: "pay", consequential: true, handler: (bill) => ({ paid: bill }) },
    {
      id: "add_comment",
      input_schema: {
        type: "object",
        properties: { request_id: { type: "string" }, text: { type: "string" } },
        required: ["request_id", "text"],
        additionalProperties: false,
      },
      input_example: { request_id: "req-3", text: "ok" },
      handler: (input) => input,
    },
  ]);
  const page = `${bridge.origin}/control-panel`;
  const toon = await runAim(["invoke", page], { env: { AIM_TOKEN: token } });
  assert.equal(toon.code, 0, toon.stderr);
  const manifest = decode(toon.stdout.trim()) as { state_scope: string };
  assert.equal(manifest.state_scope, "session");
  const publicJson = await runAim(["invoke", `${page}.json`, "--json"]);
  assert.equal(JSON.parse(publicJson.stdout).state_scope, "public_schema_only");
  const search = await runAim(["invoke", page, "search", "pending", "--token", token]);
  assert.equal(search.code, 0, search.stderr);
  assert.deepEqual(JSON.parse(search.stdout).result, { found: "pending" });
  assert.equal(search.stderr, "");
  // A consequential action says it waits for the person, rather than seem to hang.
  const pay = await runAim(["invoke", page, "pay", "bill-7"], { env: { AIM_TOKEN: token } });
  assert.equal(pay.code, 0, pay.stderr);
  assert.deepEqual(JSON.parse(pay.stdout).result, { paid: "bill-7" });
  assert.equal(pay.stderr, "aim: pay waits for the person to confirm it in the page; waiting…\n");
  const comment = await runAim(
    ["invoke", page, "add_comment", '{"request_id":"req-3","text":"fine"}'],
    // Pasted with a space before and a line break after: still the token.
    { env: { AIM_TOKEN: ` ${token}\n` } },
  );
  assert.equal(comment.code, 0, comment.stderr);
  assert.deepEqual(JSON.parse(comment.stdout).result, { request_id: "req-3", text: "fine" });
});

Deno.test("aim invoke reports protocol errors, bad input and unreachable bridges", async () => {
  // With users, so that the site offers login, whose input is an object.
  const users = createUserStore([
    { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }) },
  ]);
  await using bridge = await startBridge({ users });
  const token = await bridge.openSession("/control-panel");
  const page = `${bridge.origin}/control-panel`;
  const cases: [string[], Record<string, string>, number, RegExp][] = [
    [["invoke", page, "search", "x"], { AIM_TOKEN: token }, 1, /409 browser_not_connected: /],
    [
      ["invoke", page, "nope", "x"],
      { AIM_TOKEN: token },
      1,
      /^aim: 404 unknown_action: No action "nope" .*\navailable actions: (\w+, )*disconnect\n$/,
    ],
    [
      ["invoke", page, "login", '{"username": "a"'],
      { AIM_TOKEN: token },
      2,
      /INPUT looks like JSON but is not valid JSON/,
    ],
    [
      ["invoke", page, "login", '{"username":"a"}'],
      { AIM_TOKEN: token },
      1,
      /400 invalid_input: .*field "password" is required\.\n$/,
    ],
    [["invoke", page, "search", "x"], {}, 2, /needs the session token: --token or AIM_TOKEN/],
    [["invoke", page, "search", "x"], { AIM_TOKEN: "bogus" }, 1, /401 invalid_token/],
    [["invoke", `${bridge.origin}/missing`], {}, 1, /404 not_found/],
    [["invoke", "not a url"], {}, 2, /is not a URL/],
    [["invoke", "ftp://x/y"], {}, 2, /is not an http\(s\) URL/],
    [
      ["invoke", "http://127.0.0.1:1/page", "x", "y"],
      { AIM_TOKEN: token },
      1,
      /cannot reach http:\/\/127\.0\.0\.1:1/,
    ],
    [["invoke"], {}, 2, /give URL/],
    [
      ["invoke", page, "search", "x"],
      { AIM_TOKEN: "a\nb" },
      2,
      /^aim: AIM_TOKEN holds characters a token never has/,
    ],
    [
      ["invoke", page, "search", "x", "--token", "a b"],
      {},
      2,
      /^aim: --token holds characters a token never has/,
    ],
    [
      ["invoke", page, "search", "x"],
      { AIM_TOKEN: "" },
      2,
      /^aim: AIM_TOKEN is empty: set it to the token the page shows in its Agent access panel \(export AIM_TOKEN=<token>\), or unset it to read the public manifest\n$/,
    ],
    [["invoke", page], { AIM_TOKEN: " " }, 2, /^aim: AIM_TOKEN is empty: /],
    [["invoke", page, "search", "x", "--token", ""], { AIM_TOKEN: token }, 2, /--token is empty/],
  ];
  for (const [args, env, code, message] of cases) {
    const result = await runAim(args, { env });
    assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(" "));
    assert.ok(!result.stderr.includes(token));
  }
});

Deno.test("aim hash-password prints an scrypt hash of stdin that verifies", async () => {
  const result = await runAim(["hash-password"], { stdin: "s3cret words\n" });
  assert.equal(result.code, 0, result.stderr);
  const hash = result.stdout.trim();
  assert.match(hash, /^scrypt\$16384\$8\$1\$/);
  assert.ok(!result.stdout.includes("s3cret"));
  assert.equal(await verifyPassword("s3cret words", hash), true);
  assert.equal(await verifyPassword("s3cret words\n", hash), false);
  const empty = await runAim(["hash-password"], { stdin: "" });
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /no password on stdin/);
  const short = await runAim(["hash-password"], { stdin: "hunter2\n" });
  assert.equal(short.code, 1);
  assert.match(short.stderr, /^aim: the password is under 8 characters: choose a longer one/);
  assert.equal(short.stdout, "");
  const eight = await runAim(["hash-password"], { stdin: "hunter22\n" });
  assert.equal(eight.code, 0, eight.stderr);
  const arg = await runAim(["hash-password", "oops"], { stdin: "" });
  assert.equal(arg.code, 2);
  assert.match(arg.stderr, /read on stdin, never from arguments/);
});

Deno.test("aim invoke --text sends an input that looks like JSON as the string itself", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: (q) => ({ found: q }) }]);
  const page = `${bridge.origin}/control-panel`;
  const result = await runAim(["invoke", page, "search", "[draft] urgent", "--text"], {
    env: { AIM_TOKEN: token },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout).result, { found: "[draft] urgent" });
  const without = await runAim(["invoke", page, "search", "[draft] urgent"], {
    env: { AIM_TOKEN: token },
  });
  assert.equal(without.code, 2);
  assert.match(without.stderr, /use --text/);
});
