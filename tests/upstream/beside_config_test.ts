/**
 * `aim proxy-config nginx|haproxy`: the configurations it prints pass `nginx -t` and
 * `haproxy -c`, follow the routes aim registers, and refuse bad arguments with a clear message;
 * and aim's side of the hand-back (`X-Aim-Beside`, 421 `misdirected`).
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { main } from "../../main.ts";
import { createBridge } from "../../bridge/mod.ts";
import { besidePatterns } from "../../bridge/upstream/beside_paths.ts";
import { newToken } from "../../bridge/core/tokens.ts";
import { runAim } from "../helpers/cli.ts";
import { startApp, startFront } from "../helpers/upstream.ts";
import { checkConfig, INSTALLED } from "../helpers/web_server.ts";
import { AIM_DOWN_BODY } from "../../bridge/upstream/beside_config.ts";

/** Runs `aim ARGS` in this process; what it printed and its exit code. */
async function aim(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: () => Promise.resolve(""),
    env: () => undefined,
  });
  return { code, stdout, stderr };
}

/** The routes `aim serve --upstream` registers. */
function routes(): readonly { method: string; path: string }[] {
  const bridge = createBridge({ upstream: "http://127.0.0.1:9", allowedHosts: [] });
  try {
    return bridge.routes;
  } finally {
    bridge.close();
  }
}

const UPSTREAMS = [
  ["--upstream", "http://127.0.0.1:8080"],
  ["--upstream", "https://app.internal", "--aim", "http://10.0.0.5:8001"],
  ["--upstream", "http://[::1]:8080", "--listen", "[::]:8443", "--server-name", "shop.example"],
  ["--upstream", "http://app:8080", "--listen", "127.0.0.1:80", "--server-name", "*.shop.example"],
];

for (const kind of ["nginx", "haproxy"] as const) {
  Deno.test({
    name: `aim proxy-config ${kind} prints a configuration ${kind} accepts, for every setup`,
    ignore: !INSTALLED[kind],
    async fn() {
      for (const args of UPSTREAMS) {
        const out = await aim(["proxy-config", kind, ...args]);
        assert.equal(out.code, 0, out.stderr);
        assert.equal(out.stderr, "");
        // Resolving `app` needs a resolver: a name that resolves nowhere is the site's to fix.
        const config = out.stdout.replaceAll("app:8080", "127.0.0.1:8080")
          .replaceAll("app.internal", "127.0.0.1");
        const check = checkConfig(kind, config);
        assert.ok(check.ok, `${args.join(" ")}\n${check.output}\n${config}`);
        assert.match(out.stdout, /aim serve --upstream \S+ --host \S+ --port \d+ --trust-proxy/);
      }
    },
  });
}

Deno.test("aim proxy-config runs as a command, and aim --help lists it", async () => {
  const out = await runAim(["proxy-config", "nginx", "--upstream", "http://127.0.0.1:8080"]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /^# aim beside nginx/);
  assert.match(out.stdout, /server 127\.0\.0\.1:8080;/);
  assert.match(out.stdout, /server 127\.0\.0\.1:8000;/);
  const help = await aim(["--help"]);
  assert.match(help.stdout, /proxy-config nginx\|haproxy --upstream URL/);
  const own = await aim(["proxy-config", "--help"]);
  assert.equal(own.code, 0);
  assert.match(own.stdout, /^Usage: aim proxy-config nginx\|haproxy --upstream URL/);
});

Deno.test("aim proxy-config refuses what it cannot write, with exit code 2 and the reason", async () => {
  const cases: [string[], RegExp][] = [
    [[], /name the web server: aim proxy-config nginx or aim proxy-config haproxy/],
    [["apache", "--upstream", "http://a:1"], /writes for nginx or haproxy, not "apache"/],
    [["nginx", "haproxy", "--upstream", "http://a:1"], /takes one web server, got 2/],
    [["nginx"], /--upstream URL is required/],
    [["nginx", "--upstream", "ftp://a"], /--upstream must be an http\(s\) URL/],
    [["nginx", "--upstream", "a:8080"], /--upstream must be an http\(s\) URL/],
    [["nginx", "--upstream", "http://a:1/base"], /--upstream must be an origin/],
    [["nginx", "--upstream", "http://u:p@a:1"], /--upstream must be an origin/],
    [["nginx", "--upstream", "http://a:1?x"], /--upstream must be an origin/],
    [["nginx", "--upstream", "http://a:1", "--aim", "x"], /--aim must be an http\(s\) URL/],
    [["nginx", "--upstream", "http://a:1", "--aim", "http://a:1/"], /both http:\/\/a:1/],
    [["nginx", "--upstream", "http://a:1", "--listen", "0"], /--listen must be a port/],
    [["nginx", "--upstream", "http://a:1", "--listen", "70000"], /--listen must be a port/],
    [["nginx", "--upstream", "http://a:1", "--listen", "x:80"], /--listen must be a port/],
    [["nginx", "--upstream", "http://a:1", "--listen", "80; evil"], /--listen must be a port/],
    [["nginx", "--upstream", "http://a:1", "--server-name", "a b"], /--server-name must be/],
    [["nginx", "--upstream", "http://a:1", "--server-name", "a;b"], /--server-name must be/],
    [["nginx", "--upstream", "http://a:1", "--bogus"], /unknown option --bogus/],
    [["nginx", "--upstream"], /--upstream needs a value/],
  ];
  for (const [args, message] of cases) {
    const out = await aim(["proxy-config", ...args]);
    assert.equal(out.code, 2, args.join(" "));
    assert.equal(out.stdout, "", args.join(" "));
    assert.match(out.stderr, message, args.join(" "));
    assert.match(out.stderr, /^aim: /);
  }
});

Deno.test("asked by the web server beside it, aim answers 421 misdirected for what it would forward, and its own routes as ever", async () => {
  await using app = startApp(() => new Response("the app"));
  await using front = startFront(app.url);
  for (const path of ["/page", "/api/items.json", "/x;y", "/__aimx"]) {
    for (const method of ["GET", "POST"]) {
      const res = await fetch(`${front.url}${path}`, {
        method,
        headers: { "X-Aim-Beside": "1", "Content-Type": "text/plain" },
        ...(method === "POST" ? { body: "x" } : {}),
      });
      assert.equal(res.status, 421, `${method} ${path}`);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      const body = await res.json();
      assert.equal(body.error, "misdirected");
      assert.match(body.message, /sends it to the app/);
    }
  }
  // What the app may see: the catalog's anonymous read of the page a `.json` would be the
  // manifest of, never one of the requests above.
  assert.deepEqual(app.seen.filter((seen) => seen !== "GET /api/items"), []);
  const health = await fetch(`${front.url}/__aim/health`, { headers: { "X-Aim-Beside": "1" } });
  assert.equal(health.status, 200);
  await health.body?.cancel();
  // Without the header, aim in front forwards as it always did.
  assert.equal(await (await fetch(`${front.url}/page`)).text(), "the app");
});

/** A path of one of aim's routes, its parameters filled. */
function sample(path: string): string {
  return path.replaceAll(/:[a-z]+/g, "x7").replace(/\/\*$/, "/anything");
}

Deno.test("the patterns send every route aim registers to aim, in every spelling, and no ordinary page", () => {
  const all = routes();
  const patterns = besidePatterns(all);
  const aimPath = (path: string) => new RegExp(patterns.path, "i").test(path);
  const paths = [...new Set(all.map((r) => r.path))].filter((p) => p !== "*" && p !== "/*")
    .map(sample);
  assert.ok(paths.length >= 20, `${paths.length} routes`);
  // A spelling a server may read as the same path, as nginx's $uri or url_dec shows it.
  const respell = fc.constantFrom(
    (p: string) => p,
    (p: string) => p.toUpperCase(),
    (p: string) => p.replace(/^\/([^/]+)/, "/$1;x"),
    (p: string) => p.replace(/^\/([^/]+)/, "/$1."),
    (p: string) => p.replace(/^\/([^/]+)/, "/$1 "),
    (p: string) => p.replace(/\/([^/]+)$/, "/$1;jsessionid=1"),
    (p: string) => `/;x${p}`,
    (p: string) => `/.${p}`,
    (p: string) => `//${p}`,
    (p: string) => p.replace(/\/([^/]+)$/, "//$1"),
    (p: string) => `/x/..;${p}`,
    (p: string) => p.replace("/", "\\"),
    (p: string) => p.replace(/_/g, "%5F"),
    (p: string) => `${p}/`,
  );
  fc.assert(
    fc.property(fc.constantFrom(...paths), fc.array(respell, { maxLength: 3 }), (path, fs) => {
      const spelled = fs.reduce((p, f) => f(p), path);
      assert.ok(aimPath(spelled), `${path} spelled ${spelled}`);
    }),
  );
  // Pages: segments that are none of aim's first segments, and no odd character.
  const first = new Set(paths.map((p) => p.split("/")[1]!.toLowerCase()));
  const segment = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,11}$/)
    .filter((s) =>
      !first.has(s.replace(/[. ]+$/, "")) && !/\.(?:toon|json)[. ]*$/.test(s) && s !== ".."
    );
  fc.assert(
    fc.property(fc.array(segment, { minLength: 0, maxLength: 4 }), (segments) => {
      const page = `/${segments.join("/")}`;
      assert.ok(!aimPath(page), page);
    }),
  );
});

Deno.test("the credential pattern finds every token and tab credential aim issues, in any header spelling", () => {
  const credential = new RegExp(besidePatterns(routes()).credential);
  fc.assert(
    fc.property(
      fc.constantFrom(
        (t: string) => `Bearer ${t}`,
        (t: string) => `bearer\t${t},`,
        (t: string) => `Basic abc, Bearer ${t}`,
        (t: string) => `aim-tab-v1, aim-credential.${t}`,
        (t: string) => `bearer, ${t}`,
      ),
      (spell) => {
        assert.ok(credential.test(spell(newToken())));
      },
    ),
  );
  for (const own of ["Basic dXNlcjpwYXNz", "Bearer short-token", "chat.v1, graphql-ws"]) {
    assert.ok(!credential.test(own), own);
  }
});

Deno.test("docs/upstream.md shows the configurations aim proxy-config prints, line for line", async () => {
  const docs = await Deno.readTextFile(new URL("../../docs/upstream.md", import.meta.url));
  const section = docs.slice(docs.indexOf("## Production: aim beside your web server"));
  const args = ["--upstream", "http://127.0.0.1:8080", "--aim", "http://127.0.0.1:8000"];
  for (const kind of ["nginx", "haproxy"]) {
    const block = new RegExp("```" + kind + "\\n([\\s\\S]*?)```").exec(section)?.[1];
    assert.ok(block, `docs/upstream.md shows no ${kind} configuration`);
    const printed = (await aim(["proxy-config", kind, ...args, "--server-name", "shop.example"]))
      .stdout.split("\n").map((line) => line.trim());
    for (const line of block.split("\n").map((l) => l.trim()).filter((l) => l && l !== "}")) {
      // A line cut with `…` is the start of one printed.
      const cut = line.indexOf("…");
      const found = cut < 0
        ? printed.includes(line)
        : printed.some((p) => p.startsWith(line.slice(0, cut)));
      assert.ok(found, `docs/upstream.md shows a ${kind} line aim does not print: ${line}`);
    }
  }
  const body = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)?.[1] ?? "{}");
  assert.equal(JSON.stringify(body), AIM_DOWN_BODY);
});
