/** @module `aim serve --metrics`: the flag, its bad inputs, and a scrape of a running `aim`. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { freePort } from "../helpers/servers.ts";
import { runAim, startAim } from "../helpers/cli.ts";
import { scrape } from "./scrape.ts";

const ROOT = fileURLToPath(new URL("../../demo/site", import.meta.url));

Deno.test("aim serve --metrics serves the metrics on their own port and says where", async () => {
  await using aim = await startAim(["serve", ROOT, "--port", "0", "--metrics", "0"]);
  const line = await aim.line(/^aim: metrics at /);
  const url = /^aim: metrics at (http:\/\/127\.0\.0\.1:\d+\/__aim\/metrics)$/.exec(line)?.[1];
  assert.ok(url, line);
  assert.notEqual(new URL(url).port, new URL(aim.url).port);
  await (await fetch(`${aim.url}/control-panel.json`)).body?.cancel();
  const scraped = await scrape(url);
  assert.equal(scraped.value("aim_http_requests_total", { family: "manifest", status: "2xx" }), 1);
  // Never on the bridge's own port.
  const own = await fetch(`${aim.url}/__aim/metrics`);
  assert.equal(own.status, 404);
  await own.body?.cancel();
  const stopped = await aim.stop();
  assert.equal(stopped.code, 0);
  assert.equal(stopped.stderr, "");
});

Deno.test("aim serve without --metrics opens no metrics listener", async () => {
  await using aim = await startAim(["serve", ROOT, "--port", "0"]);
  const own = await fetch(`${aim.url}/__aim/metrics`);
  assert.equal(own.status, 404);
  await own.body?.cancel();
  const stopped = await aim.stop();
  assert.doesNotMatch(stopped.stdout, /^aim: metrics/m);
});

Deno.test("aim serve --metrics on every interface warns to keep the port from the internet", async () => {
  await using aim = await startAim(["serve", ROOT, "--port", "0", "--metrics", "0.0.0.0:0"]);
  const line = await aim.line(/^aim: metrics at http:\/\/0\.0\.0\.0:\d+\/__aim\/metrics$/);
  const port = new URL(line.slice("aim: metrics at ".length)).port;
  const stopped = await aim.stop();
  assert.match(
    stopped.stderr,
    new RegExp(`metrics listen on every interface: keep port ${port} from the internet`),
    JSON.stringify(stopped),
  );
});

Deno.test("aim serve --metrics reports a bad address with a clear message and exit code", async () => {
  const held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const taken = (held.addr as Deno.NetAddr).port;
  const port = freePort();
  try {
    const cases: [string[], number, RegExp][] = [
      [
        ["--metrics", "abc"],
        2,
        /--metrics must be PORT or HOST:PORT, such as 127\.0\.0\.1:9464, got "abc"/,
      ],
      [["--metrics", ""], 2, /--metrics must be PORT or HOST:PORT/],
      [["--metrics", "127.0.0.1:"], 2, /--metrics must be PORT or HOST:PORT/],
      [["--metrics", "http://127.0.0.1:9464"], 2, /--metrics must be PORT or HOST:PORT/],
      [["--metrics", "70000"], 2, /--metrics port must be from 0 to 65535, got "70000"/],
      [["--metrics"], 2, /--metrics/],
      [
        ["--port", String(port), "--metrics", `127.0.0.1:${port}`],
        2,
        new RegExp(`--metrics must be another port than the bridge's \\(${port}\\)`),
      ],
      [
        ["--port", "0", "--metrics", String(taken)],
        1,
        new RegExp(
          `cannot listen for metrics on 127\\.0\\.0\\.1:${taken}: the port is already in use`,
        ),
      ],
      [
        ["--port", "0", "--metrics", "not..a..host:0"],
        1,
        /cannot listen for metrics on not\.\.a\.\.host:0/,
      ],
    ];
    for (const [flags, code, message] of cases) {
      const result = await runAim(["serve", ROOT, ...flags]);
      assert.equal(result.code, code, `${flags.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, message, flags.join(" "));
      assert.match(result.stderr, /^aim: /, flags.join(" "));
      assert.ok(!result.stdout.includes("serving"), `${flags.join(" ")} does not serve`);
    }
  } finally {
    held.close();
  }
});

Deno.test("aim serve --help explains --metrics", async () => {
  const result = await runAim(["serve", "--help"]);
  assert.equal(result.code, 0);
  assert.match(
    result.stdout,
    /--metrics ADDR +serve Prometheus metrics at http:\/\/ADDR\/__aim\/metrics/,
  );
});
