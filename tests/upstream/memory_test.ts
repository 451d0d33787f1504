/**
 * `aim serve --upstream` as a process: an upload of 100 MB streams through it without its memory
 * growing past a bound (its peak resident size, read from /proc, before and after).
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startApp } from "../helpers/upstream.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MB = 1024 * 1024;

/** A process's peak resident size (VmHWM), in bytes. */
async function peakRss(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/^VmHWM:\s+(\d+)\s+kB/m.exec(status)![1]) * 1024;
}

Deno.test({
  name:
    "an upload of 100 MB through aim --upstream grows aim's peak memory by less than 80 MB (a buffered upload needs 100)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    let received = 0;
    await using app = startApp(async (request) => {
      for await (const part of request.body!) received += part.length;
      return Response.json({ received });
    });
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        // As aim runs when installed (deno task install, compile, start).
        "--v8-flags=--max-semi-space-size=1,--optimize-for-size",
        "--allow-all",
        "--lock=deno.lock",
        "main.ts",
        "serve",
        "--upstream",
        app.url,
        "--port",
        "0",
        "--quiet",
      ],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let output = "";
    let url: RegExpExecArray | null = null;
    while (!(url = / at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(output))) {
      const { value, done } = await reader.read();
      if (done) break;
      output += value;
    }
    try {
      if (!url) assert.fail(`no URL in ${output}${await stderr}`);
      const origin = url[1]!;
      // Warm up (code loaded and compiled), then measure the upload alone.
      await (await fetch(`${origin}/warm`, { method: "POST", body: "x".repeat(MB) })).body
        ?.cancel();
      const before = await peakRss(child.pid);
      const total = 100 * MB;
      const chunk = new Uint8Array(MB).fill(120);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= total) return controller.close();
          controller.enqueue(chunk.slice());
          sent += chunk.length;
        },
      });
      received = 0;
      const res = await fetch(`${origin}/upload`, {
        method: "POST",
        body,
        duplex: "half",
      } as RequestInit);
      assert.deepEqual(await res.json(), { received: total });
      const growth = (await peakRss(child.pid)) - before;
      if (Deno.env.get("AIM_TEST_SHOW")) console.log(`growth ${(growth / MB).toFixed(1)} MB`);
      assert.ok(growth < 80 * MB, `aim's peak memory grew by ${Math.round(growth / MB)} MB`);
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await reader.cancel();
      await stderr;
    }
  },
});
