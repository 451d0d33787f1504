/**
 * Test helper: the PHP app of tests/apps/php (notes with a login and CSRF-protected forms, and a
 * single-page app under /spa/) on PHP's built-in server, with its data in a temporary folder.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const APP = fileURLToPath(new URL("../apps/php/", import.meta.url));

/** Whether `php` can be run here. */
export const NO_PHP: boolean = await new Deno.Command("php", {
  args: ["--version"],
  stdout: "null",
})
  .output().then((out) => !out.success, () => true);

/** The PHP app, listening. */
export interface PhpApp extends AsyncDisposable {
  readonly url: string;
}

/** Starts `php -S` on a free port; resolves once it says it listens. */
export async function startPhp(): Promise<PhpApp> {
  const data = await Deno.makeTempDir({ prefix: "aim-php-" });
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const child = new Deno.Command("php", {
    args: ["-S", `127.0.0.1:${port}`, join(APP, "router.php")],
    cwd: APP,
    stdout: "null",
    stderr: "piped",
    env: { NOTES_DATA: join(data, "notes.json"), NOTES_SESSIONS: data },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes("started")) {
    const { value, done } = await reader.read();
    if (done) {
      await Deno.remove(data, { recursive: true });
      throw new Error(`php -S did not start: ${output}`);
    }
    output += value;
  }
  // The server logs every request on stderr: keep reading, so that it never blocks.
  const drained = (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();
  return {
    url: `http://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
      await Deno.remove(data, { recursive: true }).catch(() => {});
    },
  };
}
