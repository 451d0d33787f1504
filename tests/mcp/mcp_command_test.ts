/**
 * `aim mcp` as a command (bridge/cli/mcp.ts), imported directly and run in this process up to the
 * point where it would serve stdio: each spelling of URL read as the bridge's MCP endpoint, each
 * refusal with exit code 2, and a session the bridge refuses reported without the token, even
 * where the bridge's answer echoes it. Serving over stdio is tests/mcp/stdio_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { endpointOf, MCP_USAGE, mcpCommand } from "../../bridge/cli/mcp.ts";
import { CliError, Exit } from "../../bridge/cli/common.ts";
import { MCP_PATH } from "../../bridge/mcp/routes.ts";

/** Runs `aim mcp ARGS` with `env`, up to serving. */
function mcp(args: string[], env: Record<string, string> = {}) {
  return mcpCommand(args, {
    stdout: () => {},
    stderr: () => {},
    stdin: () => Promise.resolve(""),
    env: (name) => env[name],
  });
}

Deno.test("endpointOf() reads a page, the bridge or its endpoint as the bridge's MCP endpoint", () => {
  for (
    const raw of [
      "http://127.0.0.1:8000/control-panel",
      "http://127.0.0.1:8000",
      "http://127.0.0.1:8000/__aim/mcp",
      "http://127.0.0.1:8000/a/b.json?x=1#h",
    ]
  ) {
    assert.equal(endpointOf(raw).href, `http://127.0.0.1:8000${MCP_PATH}`, raw);
  }
  assert.equal(endpointOf("https://shop.example/x").href, `https://shop.example${MCP_PATH}`);
  for (
    const [raw, message] of [["nope", '"nope" is not a URL'], [
      "ws://x/",
      '"ws://x/" is not an http(s) URL',
    ]]
  ) {
    assert.throws(
      () => endpointOf(raw!),
      (e) => e instanceof CliError && e.exitCode === Exit.Usage && e.message === message,
    );
  }
});

Deno.test("aim mcp refuses each bad argument with exit code 2 before it connects", async () => {
  const refusals: [string[], Record<string, string>, string][] = [
    [[], { AIM_TOKEN: "t" }, "give one URL"],
    [["http://x", "http://y"], { AIM_TOKEN: "t" }, "give one URL"],
    [["http://x"], {}, "set AIM_TOKEN (or --token) to the session token the page shows"],
    [
      ["http://x", "--token", ""],
      {},
      "--token is empty: give the token the page shows in its Agent access panel",
    ],
    [
      ["http://x"],
      { AIM_TOKEN: "a\u0000b" },
      "AIM_TOKEN holds characters a token never has: copy it again from the page",
    ],
  ];
  for (const [args, env, message] of refusals) {
    await assert.rejects(
      mcp(args, env),
      (e) => e instanceof CliError && e.exitCode === Exit.Usage && e.message === message,
      args.join(" "),
    );
  }
  let help = "";
  const code = await mcpCommand(["--help"], {
    stdout: (text) => void (help += text),
    stderr: () => {},
    stdin: () => Promise.resolve(""),
    env: () => undefined,
  });
  assert.deepEqual([code, help], [Exit.Ok, MCP_USAGE]);
});

Deno.test("aim mcp reports a session the bridge refuses, with the token left out even where the answer echoes it", async () => {
  const token = "aim_secret_token_1234567890";
  await using bridge = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (request) => new Response(`refused ${request.headers.get("authorization")}`, { status: 401 }),
  );
  const endpoint = `http://127.0.0.1:${bridge.addr.port}${MCP_PATH}`;
  const error = await mcp([`http://127.0.0.1:${bridge.addr.port}/page`], { AIM_TOKEN: token })
    .catch((e) => e);
  assert.ok(error instanceof CliError);
  assert.equal(error.exitCode, Exit.Failure);
  assert.ok(error.message.startsWith(`cannot open an MCP session at ${endpoint}: `), error.message);
  assert.ok(!error.message.includes(token), error.message);
});
