/**
 * The process's file limit: `aim serve` raises its soft limit to the hard one, as its health
 * endpoint says, and `serve()` in an embedding process leaves the limit as it is unless asked.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { site, startAim } from "../helpers/cli.ts";
import { fileLimit } from "../../bridge/utils/files.ts";

/** A soft file limit below the hard one, to see whether a process raises it. */
const LOW_SOFT_LIMIT = 512;

/**
 * Writes a module that lowers its process's soft file limit to {@linkcode LOW_SOFT_LIMIT}, the
 * hard one kept, by FFI (Deno itself raises the soft limit to the hard one as it starts, so a
 * shell's `ulimit -S` does not last); returns its path, or undefined where the hard limit is not
 * above it.
 */
function lowerFileLimit(dir: string): string | undefined {
  const hard = fileLimit()?.hard;
  if (hard === undefined || !Number.isFinite(hard) || hard <= LOW_SOFT_LIMIT) return undefined;
  const path = join(dir, "lower_file_limit.ts");
  Deno.writeTextFileSync(
    path,
    `const libc = Deno.dlopen("libc.so.6", {
  setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
});
libc.symbols.setrlimit(7, new BigUint64Array([${LOW_SOFT_LIMIT}n, ${hard}n]));
libc.close();
`,
  );
  return path;
}

Deno.test("aim serve raises its soft file limit to the hard one, as its health endpoint says", async (t) => {
  await using siteDir = await site();
  const preload = lowerFileLimit(siteDir.path);
  if (!preload) {
    return void t.step({ name: "(skipped: no hard limit above 512)", ignore: true, fn() {} });
  }
  await using aim = await startAim(["serve", siteDir.path, "--port", "0"], { preload });
  const health = await (await fetch(`${aim.url}/__aim/health`)).json();
  assert.equal(health.files.limit, fileLimit()!.hard);
});

Deno.test("serve() leaves an embedding process's file limit as it is, and raises it only when asked", async (t) => {
  await using siteDir = await site();
  const preload = lowerFileLimit(siteDir.path);
  if (!preload) {
    return void t.step({ name: "(skipped: no hard limit above 512)", ignore: true, fn() {} });
  }
  const hard = fileLimit()!.hard;
  const script = join(siteDir.path, "embed.ts");
  const mod = new URL("../../bridge/mod.ts", import.meta.url).href;
  const files = new URL("../../bridge/utils/files.ts", import.meta.url).href;
  Deno.writeTextFileSync(
    script,
    `import { serve } from "${mod}";
import { fileLimit } from "${files}";
const served = serve({
  root: Deno.args[0]!,
  port: 0,
  onStatus: () => {},
  ...(Deno.args[1] === "raise" ? { raiseFileLimit: true } : {}),
});
const { soft } = fileLimit()!;
console.log(JSON.stringify({ soft, streams: served.bridge.core.streams.limits.total }));
await served.shutdown();
`,
  );
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--quiet",
        `--config=${fileURLToPath(new URL("../../deno.json", import.meta.url))}`,
        `--preload=${preload}`,
        script,
        siteDir.path,
        ...args,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout));
  };
  // Off by default: the limit stays, and streams take a quarter of it.
  assert.deepEqual(await run(), { soft: LOW_SOFT_LIMIT, streams: LOW_SOFT_LIMIT / 4 });
  assert.deepEqual(await run("raise"), { soft: hard, streams: Math.min(1024, hard / 4) });
});
