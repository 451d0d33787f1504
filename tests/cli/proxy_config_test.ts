/**
 * `aim proxy-config` (bridge/cli/proxy_config.ts), imported directly and run in this process:
 * each spelling of `--listen`, `--upstream`/`--aim` and `--server-name` taken or refused with exit
 * code 2, and the configuration it prints for each web server. That nginx and HAProxy accept what
 * it prints is tests/upstream/beside_config_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { PROXY_CONFIG_USAGE, proxyConfigCommand } from "../../bridge/cli/proxy_config.ts";
import { CliError, Exit } from "../../bridge/cli/common.ts";

/** Runs the command; what it printed, or the CliError it threw. */
async function run(args: string[]): Promise<string | CliError> {
  let stdout = "";
  try {
    await proxyConfigCommand(args, {
      stdout: (text) => void (stdout += text),
      stderr: () => {},
      stdin: () => Promise.resolve(""),
      env: () => undefined,
    });
    return stdout;
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
}

const UPSTREAM = ["--upstream", "http://127.0.0.1:8080"];

/** The message of a refusal with exit code 2, or a failure. */
async function refusal(args: string[]): Promise<string> {
  const out = await run(args);
  assert.ok(out instanceof CliError, `${args.join(" ")} is refused`);
  assert.equal(out.exitCode, Exit.Usage, args.join(" "));
  return out.message;
}

Deno.test("aim proxy-config takes each --listen spelling of a port or ADDRESS:PORT, and refuses the rest", async () => {
  for (const listen of ["80", "1", "65535", "127.0.0.1:8080", "[::1]:8080", "[::]:443", "*:80"]) {
    const out = await run(["nginx", ...UPSTREAM, "--listen", listen]);
    assert.equal(typeof out, "string", listen);
    assert.ok((out as string).includes(`\n  listen ${listen};\n`), listen);
  }
  for (
    const listen of [
      "0",
      "65536",
      "",
      "host:80",
      "127.0.0.1",
      ":80",
      "80:",
      "1.2.3:80",
      "[::1]",
      "8o",
    ]
  ) {
    assert.match(
      await refusal(["nginx", ...UPSTREAM, "--listen", listen]),
      /^--listen must be a port or ADDRESS:PORT such as 80 or 127\.0\.0\.1:8080, got "/,
      listen,
    );
  }
});

Deno.test("aim proxy-config takes an http(s) origin for --upstream and --aim, and refuses every other spelling", async () => {
  for (const flag of ["--upstream", "--aim"]) {
    const other = flag === "--upstream" ? [] : UPSTREAM;
    const notUrl: string[] = ["127.0.0.1:8080", "ftp://x", "file:///x", "x", ""];
    for (const text of notUrl) {
      assert.match(
        await refusal(["nginx", ...other, flag, text]),
        new RegExp(
          `^${flag} must be an http\\(s\\) URL such as http://127\\.0\\.0\\.1:8080, got "`,
        ),
        `${flag} ${text}`,
      );
    }
    const notOrigin = [
      "http://x/app",
      "http://x/?a=1",
      "http://x/#f",
      "http://u@x",
      "http://u:p@x",
    ];
    for (const text of notOrigin) {
      assert.match(
        await refusal(["nginx", ...other, flag, text]),
        new RegExp(`^${flag} must be an origin \\(scheme, host and port, no path\\), got "`),
        `${flag} ${text}`,
      );
    }
  }
  assert.match(
    await refusal(["nginx", "--upstream", "http://127.0.0.1:8000"]),
    /^--upstream and --aim are both http:\/\/127\.0\.0\.1:8000: aim and the app listen on their own ports$/,
  );
  assert.equal(
    typeof await run(["nginx", "--upstream", "https://127.0.0.1:8000"]),
    "string",
    "another scheme is another origin",
  );
});

Deno.test("aim proxy-config takes a host name or a wildcard for --server-name, and refuses the rest", async () => {
  const taken = ["shop.example", "*.shop.example", "localhost", "a-b.c"];
  const out = await run(["nginx", ...UPSTREAM, ...taken.flatMap((n) => ["--server-name", n])]);
  assert.ok((out as string).includes(`server_name ${taken.join(" ")};`));
  for (
    const name of [
      "shop example",
      "*shop.example",
      "a.*.b",
      "shop.example;",
      "",
      "a..b",
      "x".repeat(254),
      "é.example",
    ]
  ) {
    assert.match(
      await refusal(["nginx", ...UPSTREAM, "--server-name", name]),
      /^--server-name must be a host name such as shop\.example, got "/,
      name,
    );
  }
});

Deno.test("aim proxy-config names one web server it writes for, needs --upstream, and prints each", async () => {
  const cases: [string[], RegExp][] = [
    [[...UPSTREAM], /^name the web server: aim proxy-config nginx or aim proxy-config haproxy$/],
    [["apache", ...UPSTREAM], /^proxy-config writes for nginx or haproxy, not "apache"$/],
    [["NGINX", ...UPSTREAM], /^proxy-config writes for nginx or haproxy, not "NGINX"$/],
    [
      ["nginx", "haproxy", ...UPSTREAM],
      /^proxy-config takes one web server, got 2: nginx haproxy$/,
    ],
    [["nginx"], /^--upstream URL is required: the app's origin$/],
  ];
  for (const [args, message] of cases) assert.match(await refusal(args), message, args.join(" "));
  assert.match(String(await run(["nginx", ...UPSTREAM])), /^# aim beside nginx/);
  assert.match(String(await run(["haproxy", ...UPSTREAM])), /haproxy/i);
  assert.equal(await run(["--help"]), PROXY_CONFIG_USAGE);
});
