/**
 * Fails unless `deno doc --lint` of the public entry points finds nothing to fix in the project:
 * every public symbol documented, every exported declaration with an explicit type, every type
 * the public API references exported. The one diagnostic it lets through is `private-type-ref` to
 * a type declared outside the project (hono's `Context`, zod's `ZodType`, Lit's `LitElement`):
 * deno doc reports an npm package's exported types as private (denoland/deno#27364, fixed for
 * `jsr:` and `https:` imports but not for npm packages, whose files are in Deno's cache), and
 * aim's API is built on them. Those are counted and shown, never hidden.
 *
 * @example
 * ```sh
 * deno run --allow-run --allow-read .ci/doc_lint.ts bridge/mod.ts elements/mod.ts main.ts
 * ```
 *
 * @module
 */
import { join, relative } from "node:path";

/** One diagnostic of `deno doc --lint`. */
export interface DocDiagnostic {
  /** Its code: `missing-jsdoc`, `private-type-ref`, `missing-explicit-type`… */
  code: string;
  /** Its message, as deno doc words it. */
  message: string;
  /** Where the public symbol is: `path:line:column`. */
  at: string;
  /** For `private-type-ref`: the line number and text of the referenced type's declaration. */
  referenced?: { line: number; text: string };
}

/** The diagnostics of `deno doc --lint`'s output (colours off), in order. */
export function parseDiagnostics(output: string): DocDiagnostic[] {
  const diagnostics: DocDiagnostic[] = [];
  let current: DocDiagnostic | undefined;
  let last: { line: number; text: string } | undefined;
  for (const line of output.split("\n")) {
    const head = /^error\[([a-z-]+)\]: (.*)$/.exec(line);
    if (head) {
      current = { code: head[1]!, message: head[2]!, at: "" };
      diagnostics.push(current);
      last = undefined;
      continue;
    }
    if (!current) continue;
    const at = /^\s*--> (.*)$/.exec(line);
    if (at && !current.at) {
      current.at = at[1]!;
      continue;
    }
    const source = /^\s*(\d+) \| (.*)$/.exec(line);
    if (source) last = { line: Number(source[1]), text: source[2]! };
    else if (/^\s*\|\s*- this is the referenced type/.test(line) && last) {
      current.referenced = last;
    }
  }
  return diagnostics;
}

/**
 * Whether a `private-type-ref` points outside the project: none of `files` (path to text) has
 * the referenced declaration's text at its line. A diagnostic of any other code never does.
 */
export function isForeignTypeRef(
  diagnostic: DocDiagnostic,
  files: ReadonlyMap<string, string>,
): boolean {
  const referenced = diagnostic.referenced;
  if (diagnostic.code !== "private-type-ref" || !referenced) return false;
  for (const text of files.values()) {
    if (text.split("\n")[referenced.line - 1]?.trimEnd() === referenced.text.trimEnd()) {
      return false;
    }
  }
  return true;
}

/** The TypeScript files under `root` (dot folders and `node_modules` left out), by path. */
export async function projectFiles(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && /\.(ts|tsx|mts)$/.test(entry.name)) {
        files.set(path, await Deno.readTextFile(path));
      }
    }
  };
  await walk(root);
  return files;
}

if (import.meta.main) {
  const entries = Deno.args.length ? Deno.args : ["mod.ts"];
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", ...entries],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const diagnostics = parseDiagnostics(text);
  if (!out.success && diagnostics.length === 0) {
    console.error(text);
    Deno.exit(1);
  }
  const files = await projectFiles(Deno.cwd());
  const foreign = diagnostics.filter((d) => isForeignTypeRef(d, files));
  const own = diagnostics.filter((d) => !foreign.includes(d));
  const where = (d: DocDiagnostic) => relative(Deno.cwd(), d.at.replace(/^file:\/\//, ""));
  for (const d of own) console.error(`${where(d)}: ${d.code}: ${d.message}`);
  if (own.length) Deno.exit(1);
  const names = [...new Set(foreign.map((d) => /private type '([^']+)'/.exec(d.message)?.[1]))];
  console.log(
    `deno doc --lint ${entries.join(" ")}: nothing to fix` +
      (foreign.length
        ? `; it reports ${foreign.length} references to types declared outside the project ` +
          `(npm packages) as private (denoland/deno#27364): ${names.sort().join(", ")}`
        : ""),
  );
}
