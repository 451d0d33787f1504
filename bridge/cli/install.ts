/**
 * `deno task install`: puts an `aim` command on the PATH that runs this checkout's
 * main.ts with its deno.json and its deno.lock, so it needs no network once Deno's cache holds
 * the packages (any first run fills it). It writes `$DENO_INSTALL_ROOT/bin/aim` (default
 * `~/.deno/bin/aim`), a shell script; run the task again after moving the checkout.
 *
 * The script runs the Deno that ran the task, by its path. Run through `npx -y deno@…`, that
 * path is inside npx's cache, which `npm cache clean` or a new npm may empty: the script then
 * runs `deno` from the PATH, else `npx -y deno@<the same version>` (which downloads it again
 * once). The task says which Deno it points at.
 *
 * Not `deno install --global`: that resolves every package again from the npm registry, into a
 * lockfile of its own, and so fails offline.
 *
 * @example
 * ```sh
 * deno task install
 * aim --version
 * ```
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The flags the `compile` and `start` tasks run aim with. */
const FLAGS = [
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--v8-flags=--max-semi-space-size=1,--optimize-for-size",
];

/** `value` quoted for a POSIX shell. */
function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The shell script that runs `main` with `config`: through `deno` (a path) while it is there,
 * else `deno` on the PATH, else `npx -y deno@version`.
 */
export function shim(deno: string, config: string, main: string, version: string): string {
  const args = `run --quiet --config ${quote(config)} ${FLAGS.join(" ")} ${quote(main)} "$@"`;
  return `#!/bin/sh
# aim: runs ${main} (written by 'deno task install'; run it again if the checkout moves)
DENO=${quote(deno)}
[ -x "$DENO" ] || DENO=$(command -v deno)
[ -n "$DENO" ] || exec npx -y ${quote(`deno@${version}`)} ${args}
exec "$DENO" ${args}
`;
}

/** Whether `path` is a Deno that npx fetched: a cache that may be emptied. */
function inNpxCache(path: string): boolean {
  return /[\\/](_npx|\.npm)[\\/]/.test(path);
}

if (import.meta.main) {
  const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? ".";
  const bin = join(Deno.env.get("DENO_INSTALL_ROOT") ?? join(home, ".deno"), "bin");
  const target = join(bin, "aim");
  try {
    await Deno.mkdir(bin, { recursive: true });
    await Deno.writeTextFile(
      target,
      shim(Deno.execPath(), join(root, "deno.json"), join(root, "main.ts"), Deno.version.deno),
      { mode: 0o755 },
    );
    await Deno.chmod(target, 0o755);
  } catch (error) {
    console.error(`aim install: cannot write ${target}: ${(error as Error).message}`);
    Deno.exit(1);
  }
  console.log(`aim install: ${target} runs ${join(root, "main.ts")}; try 'aim --help'`);
  const deno = Deno.execPath();
  console.log(
    `aim install: it runs Deno ${Deno.version.deno} at ${deno}` +
      (inNpxCache(deno)
        ? "; that is npx's cache: once it is cleared, aim runs deno from your PATH, else " +
          `npx -y deno@${Deno.version.deno}, which downloads it again`
        : "; if it moves, aim runs deno from your PATH, else " +
          `npx -y deno@${Deno.version.deno}`),
  );
  const path = (Deno.env.get("PATH") ?? "").split(":");
  if (!path.includes(bin)) {
    console.log(`aim install: ${bin} is not on your PATH; add it: export PATH="${bin}:$PATH"`);
  }
}
