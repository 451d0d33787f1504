/**
 * `aim invoke` as a command (bridge/cli/invoke.ts), imported directly and run in this process
 * against a fake bridge (Deno.serve on port 0) that records each request: each spelling of the
 * page URL read as the page, the manifest's format, the token sent as Bearer, each INPUT read as
 * JSON or as text, the wait for a consequential action said, and each failure worded with its
 * status, code, hint and actions. The real bridge's answers are tests/cli/commands_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { INVOKE_USAGE, invokeCommand } from "../../bridge/cli/invoke.ts";
import { CliError, Exit } from "../../bridge/cli/common.ts";

interface Seen {
  method: string;
  path: string;
  auth: string | null;
  body: unknown;
}

/** A fake bridge; `answer` overrides its answer to a path. */
function bridge(answer: (path: string) => Response | undefined = () => undefined) {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    async (request): Promise<Response> => {
      const path = new URL(request.url).pathname + new URL(request.url).search;
      const text = await request.text();
      seen.push({
        method: request.method,
        path,
        auth: request.headers.get("authorization"),
        body: text ? JSON.parse(text) : undefined,
      });
      const own = answer(path);
      if (own) return own;
      if (path.endsWith(".toon")) return new Response("page: /x");
      if (path.endsWith(".json")) {
        return Response.json({
          page: "/x",
          actions: [{ id: "approve", consequential: true }, { id: "search" }],
        });
      }
      if (path === "/__aim/invoke") {
        return Response.json({
          ok: true,
          actionId: "search",
          result: 1,
        });
      }
      return new Response("no", { status: 404 });
    },
  );
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    seen,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Runs `aim invoke ARGS` with `env`; its exit code and what it printed. */
async function invoke(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await invokeCommand(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: () => Promise.resolve(""),
    env: (name) => env[name],
  });
  return { code, stdout, stderr };
}

Deno.test("aim invoke reads each spelling of a page's URL as the page, and its manifest in TOON or JSON", async () => {
  await using app = bridge();
  const cases: [string, string][] = [
    ["/x", "/x.toon"],
    ["/x.json", "/x.toon"],
    ["/x.toon", "/x.toon"],
    ["/x?q=1#h", "/x.toon"],
    ["/docs/", "/docs/index.toon"],
    ["/docs/index", "/docs/index.toon"],
    ["/", "/index.toon"],
  ];
  for (const [path, manifest] of cases) {
    const out = await invoke([`${app.origin}${path}`]);
    assert.deepEqual([out.code, out.stdout], [Exit.Ok, "page: /x\n"], path);
    assert.equal(app.seen.at(-1)?.path, manifest, path);
    assert.equal(app.seen.at(-1)?.auth, null, "no token: the public manifest");
  }
  const json = await invoke([`${app.origin}/x`, "--json"], { AIM_TOKEN: " tok \n" });
  assert.equal(app.seen.at(-1)?.path, "/x.json");
  assert.equal(app.seen.at(-1)?.auth, "Bearer tok", "the token trimmed");
  assert.equal(JSON.parse(json.stdout).page, "/x");
  assert.match(json.stdout, /^\{\n {2}"page"/, "indented");
});

Deno.test("aim invoke sends INPUT as JSON when it looks like JSON, as text otherwise or with --text", async () => {
  await using app = bridge();
  const cases: [string[], unknown][] = [
    [[], { actionId: "search" }],
    [["pending"], { actionId: "search", input: "pending" }],
    [['{"q":"a"}'], { actionId: "search", input: { q: "a" } }],
    [["  [1,2]"], { actionId: "search", input: [1, 2] }],
    [["42"], { actionId: "search", input: "42" }],
    [["[draft] urgent", "--text"], { actionId: "search", input: "[draft] urgent" }],
  ];
  for (const [rest, body] of cases) {
    const out = await invoke([`${app.origin}/x`, "search", ...rest, "--token", "tok"]);
    assert.equal(out.code, Exit.Ok);
    const call = app.seen.at(-1)!;
    assert.deepEqual([call.method, call.path, call.auth, call.body], [
      "POST",
      "/__aim/invoke",
      "Bearer tok",
      body,
    ]);
    assert.deepEqual(JSON.parse(out.stdout), { ok: true, actionId: "search", result: 1 });
    assert.equal(out.stderr, "", "search is not consequential");
  }
  await assert.rejects(
    invoke([`${app.origin}/x`, "search", "[draft] urgent", "--token", "tok"]),
    (e) =>
      e instanceof CliError && e.exitCode === Exit.Usage &&
      e.message ===
        "INPUT looks like JSON but is not valid JSON: [draft] urgent (use --text to send it as a string)",
  );
});

Deno.test("aim invoke says it waits for the person when the action is consequential, and only then", async () => {
  await using app = bridge();
  const out = await invoke([`${app.origin}/x`, "approve", "r1"], { AIM_TOKEN: "tok" });
  assert.equal(
    out.stderr,
    "aim: approve waits for the person to confirm it in the page; waiting…\n",
  );
  assert.deepEqual(app.seen.map((s) => s.path), ["/x.json", "/__aim/invoke"]);
  // A manifest that cannot be read says nothing: the invocation reports what is wrong.
  await using broken = bridge((path) =>
    path.endsWith(".json") ? new Response("{", { status: 200 }) : undefined
  );
  assert.equal((await invoke([`${broken.origin}/x`, "approve"], { AIM_TOKEN: "tok" })).stderr, "");
});

Deno.test("aim invoke words each failure with its status, code, message, hint and available actions", async () => {
  const answers: [Response, string][] = [
    [
      Response.json(
        { error: "not_found", message: "No action x.", available_actions: ["a", "b"] },
        { status: 404 },
      ),
      "404 not_found: No action x.\navailable actions: a, b",
    ],
    [
      Response.json({ error: "not_found", message: "No action x.", available_actions: [] }, {
        status: 404,
      }),
      "404 not_found: No action x.\navailable actions: none",
    ],
    [
      Response.json({ error: "invalid_input", message: "Bad.", hint: "Send a string." }, {
        status: 400,
      }),
      "400 invalid_input: Bad.\nhint: Send a string.",
    ],
    [
      Response.json({
        error: "invalid_input",
        message: "Bad. Send a string.",
        hint: "Send a string.",
      }, { status: 400 }),
      "400 invalid_input: Bad. Send a string.",
    ],
    [
      new Response("<h1>Bad gateway</h1>" + "x".repeat(300), { status: 502 }),
      `502: <h1>Bad gateway</h1>${"x".repeat(180)}`,
    ],
  ];
  for (const [response, message] of answers) {
    await using app = bridge((path) => path === "/__aim/invoke" ? response : undefined);
    await assert.rejects(
      invoke([`${app.origin}/x`, "search", "--token", "t"]),
      (e) => e instanceof CliError && e.exitCode === Exit.Failure && e.message === message,
      message,
    );
  }
});

Deno.test("aim invoke refuses each bad argument with exit code 2, and says what it cannot reach", async () => {
  const refusals: [string[], Record<string, string>, string][] = [
    [[], {}, "give URL, then optionally ACTION and INPUT"],
    [["http://x/a", "b", "c", "d"], {}, "give URL, then optionally ACTION and INPUT"],
    [["not a url"], {}, '"not a url" is not a URL'],
    [["ftp://x/a"], {}, '"ftp://x/a" is not an http(s) URL'],
    [["http://x/a", "search"], {}, "invoking needs the session token: --token or AIM_TOKEN"],
    [
      ["http://x/a", "--token", ""],
      {},
      "--token is empty: give the token the page shows in its Agent access panel",
    ],
    [
      ["http://x/a", "--token", "a b"],
      {},
      "--token holds characters a token never has: copy it again from the page",
    ],
    [
      ["http://x/a"],
      { AIM_TOKEN: " " },
      "AIM_TOKEN is empty: set it to the token the page shows in its Agent access panel (export AIM_TOKEN=<token>), or unset it to read the public manifest",
    ],
  ];
  for (const [args, env, message] of refusals) {
    await assert.rejects(
      invoke(args, env),
      (e) => e instanceof CliError && e.exitCode === Exit.Usage && e.message === message,
      args.join(" "),
    );
  }
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  await assert.rejects(
    invoke([`http://127.0.0.1:${port}/x`]),
    (e) =>
      e instanceof CliError &&
      e.message.startsWith(`cannot reach http://127.0.0.1:${port}/x.toon: `),
  );
  assert.deepEqual(await invoke(["--help"]), { code: Exit.Ok, stdout: INVOKE_USAGE, stderr: "" });
});
