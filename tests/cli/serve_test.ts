/**
 * `aim serve` as a person runs it: its request log (one line per request, never a token, JSON or
 * quiet), its options (public URL, trusted proxies, HTTPS, users, data, streams, the demo), bad
 * input and a port in use said clearly, and SIGTERM stopping it. Its file limit is
 * tests/cli/file_limit_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { AuditLog, hashPassword } from "../../bridge/mod.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";
import { runAim, site, startAim } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp.ts";
import { NO_CLUSTER } from "../helpers/cluster.ts";
import { startRedis } from "../helpers/redis.ts";

async function sessionToken(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return await fetch(`${url}/__aim/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ page: "/control-panel" }),
  });
}

Deno.test("aim serve logs one line per request, never a token, and stops on SIGTERM", async () => {
  await using siteDir = await site();
  const root = siteDir.path;
  await using aim = await startAim(["serve", root, "--port", "0"]);
  const token = await openPageSession(aim.url, "/control-panel");
  const manifest = await fetch(`${aim.url}/control-panel.json`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  await manifest.body?.cancel();
  await aim.line(/GET \/control-panel\.json 200 [\d.]+ms$/);
  const tab = await FakeTab.open(aim.url, { token, page: "/control-panel" });
  await tab.next("lease");
  const ended = tab.next("ended");
  const result = await aim.stop("SIGTERM");
  assert.equal(result.code, 0);
  assert.equal((await ended).reason, "shutdown");
  assert.match(result.stdout, /POST \/__aim\/session 200/);
  assert.match(result.stdout, /aim: stopped/);
  assert.ok(!result.stdout.includes(token));
  assert.ok(!result.stderr.includes(token));
});

Deno.test("aim serve leaves passed health checks out of its log, so a balancer's every second fills nothing", async () => {
  await using siteDir = await site();
  await using aim = await startAim(["serve", siteDir.path, "--port", "0"]);
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${aim.url}/__aim/health`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  // A failed one is logged; a request after them shows every line before it was written.
  await (await fetch(`${aim.url}/__aim/health`, { method: "POST" })).body?.cancel();
  await (await fetch(`${aim.url}/control-panel.json`)).body?.cancel();
  await aim.line(/GET \/control-panel\.json 200 [\d.]+ms$/);
  const health = aim.lines.filter((line) => line.includes("/__aim/health"));
  assert.equal(health.length, 1, health.join("\n"));
  assert.match(health[0]!, /POST \/__aim\/health 40\d /);
});

Deno.test("aim serve --log-format json prints one JSON object per request; --quiet prints none", async () => {
  await using siteDir = await site();
  const root = siteDir.path;
  {
    await using aim = await startAim(["serve", root, "--port", "0", "--log-format", "json"]);
    await (await fetch(`${aim.url}/control-panel.json`)).body?.cancel();
    const line = await aim.line(/^\{/);
    const entry = JSON.parse(line);
    assert.equal(entry.method, "GET");
    assert.equal(entry.path, "/control-panel.json");
    assert.equal(entry.status, 200);
    assert.equal(typeof entry.ms, "number");
    assert.ok(Date.parse(entry.time));
  }
  {
    await using aim = await startAim(["serve", root, "--port", "0", "--quiet"]);
    await (await fetch(`${aim.url}/control-panel.json`)).body?.cancel();
    const result = await aim.stop("SIGINT");
    assert.equal(result.code, 0);
    assert.ok(!result.stdout.includes("GET /"));
  }
});

Deno.test("aim serve --public-url puts its origin in manifests", async () => {
  await using siteDir = await site();
  const root = siteDir.path;
  await using aim = await startAim([
    "serve",
    root,
    "--port",
    "0",
    "--public-url",
    "https://aim.example/ignored/path",
    "--allowed-host",
    "aim.example",
  ]);
  const body = await (await fetch(`${aim.url}/control-panel.json`)).json();
  assert.equal(body.invoke_url, "https://aim.example/__aim/invoke");
  assert.equal(body.sitemap, "https://aim.example/sitemap.json");
  // Same-origin now means the public origin.
  assert.equal((await sessionToken(aim.url, { Origin: "https://aim.example" })).status, 200);
  const cross = await sessionToken(aim.url, { Origin: aim.url });
  assert.equal(cross.status, 403);
  await cross.body?.cancel();
});

Deno.test("aim serve --trust-proxy honours X-Forwarded-Proto and X-Forwarded-Host", async () => {
  await using siteDir = await site();
  const root = siteDir.path;
  await using aim = await startAim([
    "serve",
    root,
    "--port",
    "0",
    "--trust-proxy",
    "--allowed-host",
    "proxy.example",
  ]);
  const headers = { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "proxy.example" };
  const body = await (await fetch(`${aim.url}/control-panel.json`, { headers })).json();
  assert.equal(body.invoke_url, "https://proxy.example/__aim/invoke");
  const res = await sessionToken(aim.url, headers);
  assert.match(res.headers.get("set-cookie") ?? "", /; Secure/);
  await res.body?.cancel();
  // Without the flag the headers are ignored.
  await using plain = await startAim(["serve", root, "--port", "0"]);
  const ignored = await (await fetch(`${plain.url}/control-panel.json`, { headers })).json();
  assert.equal(ignored.invoke_url, `${plain.url.replace("127.0.0.1", "127.0.0.1")}/__aim/invoke`);
});

Deno.test("aim serve --cert and --key serve HTTPS with Secure cookies", async () => {
  await using siteDir = await site();
  const root = siteDir.path;
  await using certs = await tempDir("aim-certs-");
  const dir = certs.path;
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  // A CA and a leaf certificate it signs: TLS clients refuse a CA used as the server's own.
  const ca = join(dir, "ca.pem");
  const caKey = join(dir, "ca-key.pem");
  const csr = join(dir, "leaf.csr");
  const ext = join(dir, "leaf.ext");
  Deno.writeTextFileSync(
    ext,
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
  );
  const steps = [
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      caKey,
      "-out",
      ca,
      "-days",
      "1",
      "-subj",
      "/CN=aim test CA",
    ],
    [
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      key,
      "-out",
      csr,
      "-subj",
      "/CN=localhost",
    ],
    [
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      ca,
      "-CAkey",
      caKey,
      "-CAcreateserial",
      "-out",
      cert,
      "-days",
      "1",
      "-extfile",
      ext,
    ],
  ];
  let openssl: Deno.CommandOutput | null = null;
  for (const args of steps) {
    openssl = await new Deno.Command("openssl", { args, stdout: "null", stderr: "null" }).output()
      .catch(() => null);
    if (!openssl?.success) break;
  }
  if (!openssl?.success) {
    console.log("skipped: openssl is not available to make a test certificate");
    return;
  }
  await using aim = await startAim(["serve", root, "--port", "0", "--cert", cert, "--key", key]);
  assert.match(aim.url, /^https:/);
  const client = Deno.createHttpClient({ caCerts: [Deno.readTextFileSync(ca)] });
  const init: RequestInit & { client: Deno.HttpClient } = {
    client,
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ page: "/control-panel" }),
  };
  const res = await fetch(`${aim.url}/__aim/session`, init);
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get("set-cookie") ?? "", /; Secure/);
  await res.body?.cancel();
  client.close();
});

Deno.test("aim serve --users lets login use hashes from aim hash-password", async () => {
  await using siteDir = await site();
  const root = siteDir.path;
  const hash = await runAim(["hash-password"], { stdin: "correct horse\n" });
  assert.equal(hash.code, 0);
  const users = join(root, "users.json");
  Deno.writeTextFileSync(
    users,
    JSON.stringify([{ username: "ann", passwordHash: hash.stdout.trim(), name: "Ann" }]),
  );
  await using aim = await startAim(["serve", root, "--port", "0", "--users", users]);
  const { sessionToken: token } = await (await sessionToken(aim.url)).json();
  const login = await fetch(`${aim.url}/__aim/invoke`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      actionId: "login",
      input: { username: "ann", password: "correct horse" },
    }),
  });
  assert.equal(login.status, 200);
  assert.deepEqual((await login.json()).state.user, { username: "ann", name: "Ann" });
  const result = await aim.stop();
  assert.ok(!result.stdout.includes("correct horse"));
});

Deno.test("aim serve --data keeps the audit log across restarts", async () => {
  await using siteDir = await site();
  const root = siteDir.path;
  const data = join(root, "data");
  const users = join(root, "users.json");
  const passwordHash = await hashPassword("correct horse", { N: 1024 });
  Deno.writeTextFileSync(users, JSON.stringify([{ username: "ann", passwordHash }]));
  {
    await using aim = await startAim([
      "serve",
      root,
      "--port",
      "0",
      "--data",
      data,
      "--users",
      users,
    ]);
    const { sessionToken: token } = await (await sessionToken(aim.url)).json();
    const res = await fetch(`${aim.url}/__aim/invoke`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ actionId: "login", input: { username: "x", password: "secret-pw" } }),
    });
    assert.equal(res.status, 422);
    await res.body?.cancel();
    const activity = await (await fetch(`${aim.url}/__aim/activity`, {
      headers: { Authorization: `Bearer ${token}` },
    })).json();
    assert.equal(activity.entries.length, 1);
    assert.deepEqual(activity.entries[0].input, { username: "x" });
  }
  using log = new AuditLog(join(data, "audit.sqlite"));
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(join(data, "audit.sqlite"));
  const rows = db.prepare("SELECT action_id, input, status FROM audit").all();
  db.close();
  assert.deepEqual(rows.map((r) => [r.action_id, r.status]), [["login", 422]]);
  // The deepEqual above leaves exactly one row.
  assert.ok(!String(rows[0]!.input).includes("secret-pw"));
  assert.ok(log);
});

Deno.test("aim serve --max-streams bounds the streams held in all, as the health endpoint says", async () => {
  await using siteDir = await site();
  await using aim = await startAim(["serve", siteDir.path, "--port", "0", "--max-streams", "3"]);
  const health = await (await fetch(`${aim.url}/__aim/health`)).json();
  assert.equal(health.listening, true);
  assert.equal(health.streams.max, 3);
});

Deno.test("aim serve reports bad input with a clear message and exit code", async () => {
  await using siteDir = await site();
  const root = siteDir.path;
  const notJson = join(root, "users.txt");
  Deno.writeTextFileSync(notJson, "not json");
  const badHash = join(root, "users-hash.json");
  Deno.writeTextFileSync(
    badHash,
    JSON.stringify([{ username: "a", passwordHash: "scrypt$garbage" }]),
  );
  const wrongShape = join(root, "users-shape.json");
  Deno.writeTextFileSync(wrongShape, JSON.stringify([{ username: "a", password: "plain" }]));
  const cases: [string[], number, RegExp][] = [
    [["serve", "/no/such/root", "--port", "0"], 1, /ROOT \/no\/such\/root does not exist/],
    [["serve", join(root, "control-panel.html"), "--port", "0"], 1, /is not a folder/],
    [["serve", root, "--port", "99999"], 2, /--port must be a whole number/],
    [["serve", root, "--port", "abc"], 2, /--port must be a whole number/],
    [
      ["serve", root, "--cert", join(root, "missing.pem"), "--key", join(root, "k.pem")],
      1,
      /cannot read certificate .*missing\.pem: no such file/,
    ],
    [["serve", root, "--cert", join(root, "x.pem")], 2, /--cert and --key go together/],
    [
      ["serve", root, "--users", join(root, "nope.json")],
      1,
      /cannot read users file .*nope\.json: no such file/,
    ],
    [["serve", root, "--users", root], 1, /cannot read users file/],
    [["serve", root, "--users", notJson], 1, /users file .* is not valid JSON/],
    [["serve", root, "--users", wrongShape], 1, /passwordHash/],
    [["serve", root, "--log-format", "xml"], 2, /--log-format must be text or json/],
    [["serve", root, "--max-streams", "0"], 2, /--max-streams must be a whole number from 1/],
    [["serve", root, "--max-streams", "many"], 2, /--max-streams must be a whole number from 1/],
    [["serve", root, "--public-url", "ftp://x"], 2, /--public-url must be an http\(s\) URL/],
    [["serve", root, "--redis", "http://127.0.0.1:6379"], 2, /--redis must be a redis:\/\/ URL/],
    [["serve", root, "--redis", "redis:"], 2, /--redis must be a redis:\/\/ URL/],
    [["serve", root, "--bogus"], 2, /^aim: unknown option --bogus\n\nUsage: aim serve/],
    [["serve", root, root], 2, /serve takes one ROOT/],
    [
      ["serve", join(root, "control-panel.html", "x")],
      1,
      /cannot use ROOT .*control-panel\.html\/x/,
    ],
    [
      ["serve", root, "--host", "not..a..host", "--port", "0"],
      1,
      /cannot listen on not\.\.a\.\.host/,
    ],
    [["serve", root, "--users", badHash], 1, /is not a hash made by 'aim hash-password'/],
  ];
  for (const [args, code, message] of cases) {
    const result = await runAim(args);
    assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(" "));
    assert.match(result.stderr, /^aim: /);
  }
});

Deno.test(
  "aim serve --redis shares sessions with another aim serve on the same Redis, and never prints its password",
  {
    ignore: NO_CLUSTER,
  },
  async () => {
    await using dir = await site();
    await using redis = await startRedis();
    // A password in the URL: Redis here has none, and ignores the AUTH of the default user's.
    const url = redis.url.replace("redis://", "redis://default:secret-pass@");
    await using first = await startAim(["serve", dir.path, "--port", "0", "--redis", url]);
    await using second = await startAim(["serve", dir.path, "--port", "0", "--redis", redis.url]);
    await first.line(/^aim: sharing sessions through Redis at 127\.0\.0\.1:\d+$/);
    const token = await openPageSession(first.url, "/control-panel");
    const res = await fetch(`${second.url}/control-panel.json`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).state_scope, "session");
    const stopped = await second.stop();
    assert.equal(stopped.code, 0);
    // The session outlives the bridge that did not open it, and the one that did.
    const again = await fetch(`${first.url}/control-panel.json`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(again.status, 200);
    await again.body?.cancel();
    const quoted = await runAim(["serve", dir.path, "--port", "0", "--redis", url, "--bogus"]);
    assert.ok(!quoted.stderr.includes("secret-pass"));
    // An outage is one line when it starts and one when it ends: no stack, no "internal error".
    await redis.stop();
    const down = await fetch(`${first.url}/control-panel.json`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(down.status, 503);
    await down.body?.cancel();
    await redis.start();
    let answered = 0;
    const deadline = Date.now() + 15_000;
    while (answered !== 401) {
      assert.ok(Date.now() < deadline, `still ${answered} 15 s after Redis came back`);
      // Polled: Redis's return is announced to nobody outside the bridge.
      const res = await fetch(`${first.url}/control-panel.json`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      await res.body?.cancel();
      answered = res.status;
    }
    const { stderr, stdout } = await first.stop();
    assert.match(stderr, /^aim: Redis cannot be reached \(.*\); answering 503 until it is back$/m);
    assert.match(stderr, /^aim: Redis is reachable again$/m);
    assert.doesNotMatch(stderr, /internal error|^ {4}at /m);
    assert.ok(!(stdout + stderr).includes("secret-pass"));
  },
);

Deno.test("aim serve says so when the port is already in use", async () => {
  await using siteDir = await site();
  const root = siteDir.path;
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  const result = await runAim(["serve", root, "--port", String(port)]);
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    `aim: port ${port} is already in use; choose another with --port N (--port 0 picks a free one)\n`,
  );
});

Deno.test("aim serve --demo runs the demo app that ships with aim, with its users and API", async () => {
  await using dataDir = await tempDir("aim-demo-data-");
  const data = dataDir.path;
  {
    await using aim = await startAim(["serve", "--demo", "--port", "0", "--data", data]);
    const sitemap = await (await fetch(`${aim.url}/sitemap.json`)).json();
    assert.ok(sitemap.pages.some((p: { path: string }) => p.path === "/control-panel"));
    const { sessionToken: token } = await (await sessionToken(aim.url)).json();
    const login = await fetch(`${aim.url}/__aim/invoke`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        actionId: "login",
        input: { username: "alice", password: "wonderland" },
      }),
    });
    assert.equal(login.status, 200);
    await login.body?.cancel();
    const api = await fetch(`${aim.url}/api/requests`);
    assert.equal(api.status, 401);
    await api.body?.cancel();
  }
  assert.ok(Deno.statSync(join(data, "demo.sqlite")).isFile);
  assert.ok(Deno.statSync(join(data, "audit.sqlite")).isFile);
  const both = await runAim(["serve", "--demo", "--users", "u.json"]);
  assert.equal(both.code, 2);
});

Deno.test("aim serve exits on SIGTERM though a client holds a download open without reading it", async () => {
  await using siteDir = await site();
  // Far more than the sockets' buffers hold: the response waits on a client that never reads.
  Deno.writeFileSync(join(siteDir.path, "big.bin"), new Uint8Array(64 * 1024 * 1024));
  await using aim = await startAim(["serve", siteDir.path, "--port", "0"]);
  const { hostname, port, host } = new URL(aim.url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    await conn.write(new TextEncoder().encode(`GET /big.bin HTTP/1.1\r\nHost: ${host}\r\n\r\n`));
    // The answer has started: the request is open on the server until its body is sent.
    assert.ok((await conn.read(new Uint8Array(1024)) ?? 0) > 0);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const result = await Promise.race([
      aim.stop("SIGTERM"),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("aim did not exit within 15 s")), 15_000);
      }),
    ]).finally(() => clearTimeout(timer));
    assert.equal(result.code, 0);
    assert.match(result.stdout, /aim: stopped/);
  } finally {
    conn.close();
  }
});
