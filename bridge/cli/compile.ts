/**
 * `deno task compile`: `deno compile` of main.ts into dist/aim, with the demo site and
 * the elements bundle embedded. `deno compile` downloads Deno's runtime (`denort`) on first use;
 * where it cannot, this says so in one line and names `DENORT_BIN`, the way to give it one.
 *
 * @example
 * ```sh
 * deno task compile
 * DENORT_BIN=/opt/denort deno task compile   # offline, with a denort of the same Deno version
 * ```
 *
 * @module
 */

/** `deno compile`'s arguments; the output is `dist/aim`. */
export const COMPILE_ARGS = [
  "compile",
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--v8-flags=--max-semi-space-size=1,--optimize-for-size",
  "--include",
  "demo/site",
  "--include",
  "elements/elements.bundle.js",
  "--include",
  "elements/elements.shared.js",
  "--include",
  "elements/elements.panel.js",
  "--include",
  "elements/elements.dialog.js",
  "--include",
  "elements/elements.bindings.js",
  "--output",
  "dist/aim",
  "main.ts",
];

/** What to do when `deno compile` failed with `stderr`; undefined when it is not the runtime. */
export function runtimeHint(stderr: string, denortBin: string | undefined): string | undefined {
  const version = Deno.version.deno;
  if (denortBin) {
    if (!stderr.includes(denortBin) && !/denort|base binary/i.test(stderr)) return undefined;
    return `aim compile: DENORT_BIN=${denortBin} did not work as Deno's runtime: it must be ` +
      `the denort binary of Deno ${version} for ${Deno.build.target}\n`;
  }
  if (!/denort|base binary/i.test(stderr)) return undefined;
  const zip = `denort-${Deno.build.target}.zip`;
  return `aim compile: deno compile could not download Deno's runtime (${zip}, Deno ${version}); ` +
    `without internet, set DENORT_BIN to a denort binary of Deno ${version} ` +
    `(that zip from https://dl.deno.land/release/v${version}/, unzipped) and run ` +
    `'deno task compile' again, or use 'deno task install', which downloads nothing\n`;
}

if (import.meta.main) {
  const child = new Deno.Command(Deno.execPath(), {
    args: COMPILE_ARGS,
    stdout: "inherit",
    stderr: "piped",
  }).spawn();
  // Deno's own messages as they come, and a copy to explain a failure with.
  let stderr = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stderr) {
    await Deno.stderr.write(chunk);
    stderr += decoder.decode(chunk, { stream: true });
  }
  const { code } = await child.status;
  const hint = code === 0 ? undefined : runtimeHint(stderr, Deno.env.get("DENORT_BIN"));
  if (hint) await Deno.stderr.write(new TextEncoder().encode(hint));
  Deno.exit(code);
}
