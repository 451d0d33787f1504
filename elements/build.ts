/**
 * Builds the elements: `deno bundle --code-splitting` makes ES modules of
 * elements/mod.ts and the chunks it imports, terser squeezes each, and every import names the
 * chunk's content. `deno task bundle` runs it; the one argument is the entry's path, and the
 * chunks are written beside it:
 *
 * - `elements.bundle.js`: the entry, served as `/__aim/elements.js`;
 * - `elements.shared.js`: what the entry and the panel's chunk share (the client, Lit's
 *   ReactiveElement), imported statically, so loaded up front;
 * - `elements.readers.js`: what the entry and the markup reader's chunk share (selectors across
 *   shadow roots, a child script's JSON), which `<aim-state>` reads with, so loaded up front;
 * - `elements.markup.js`: `<aim-action>`'s markup reader (elements/action_markup.ts), imported
 *   (elements/load_markup.ts) once the page's session is open, before its channel opens, when
 *   WebMCP offers the actions as tools, or when an `<aim-panel>` lists them;
 * - `elements.panel.js`: `<aim-panel>` with LitElement and lit-html, imported when an
 *   `<aim-panel>` is in the document;
 * - `elements.dialog.js`: the confirmation dialog and the rules of every prompt
 *   (elements/prompt.ts), imported the first time a page without a panel asks the person, and
 *   by the panel's chunk;
 * - `elements.webmcp.js`: the page's actions as WebMCP tools, imported only where the browser
 *   has `document.modelContext`;
 * - `elements.bindings.js`: `<aim-action>`'s declarative bindings (click=, fill=, form=…),
 *   imported the first time one runs;
 * - `elements.state.js`: `<aim-state>`'s tables, `items=` and `<aim-field>`s, imported the
 *   first time a page's state has one;
 * - `elements.warnings.js`: the words of the warnings to page authors, imported on the first
 *   one (elements/warning_text.ts);
 * - `elements.webmcp-api.js`: not a module but a classic script of its own (elements/webmcp_api.ts),
 *   served as `/__aim/webmcp.js`: WebMCP's API for pages that register tools where the browser
 *   has none, then the entry.
 *
 * Modules import each other as `./elements.<name>.js?v=<hash>`, `<hash>` being the first 16 hex
 * digits of the SHA-256 of the file's bytes; bridge/http/assets.ts serves each chunk at that
 * URL only, cached for good. (A hash in the query, not the file name: the files keep their
 * names, so that `deno check elements/` resolves the imports and `deno compile` embeds them.)
 *
 * @example
 * ```sh
 * deno run --allow-read --allow-write --allow-run --allow-env elements/build.ts elements/elements.bundle.js
 * ```
 *
 * @module
 */
import { createHash } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { minify } from "terser";

/** The chunks `deno bundle` makes (named after their module), and the name each file gets. */
const NAMES: Record<string, string> = {
  mod: "bundle",
  aim_panel: "panel",
  action_markup: "markup",
  confirm_dialog: "dialog",
  webmcp: "webmcp",
  bindings: "bindings",
  state_reader: "state",
  warning_text: "warnings",
};

/**
 * The chunks of what several modules share (`chunk-<hash>.js`), named by the one module that
 * imports each besides the entry.
 */
const SHARED: Record<string, string> = { aim_panel: "shared", action_markup: "readers" };

const ROOT = new URL("../", import.meta.url);
const out = resolve(Deno.args[0] ?? "elements/elements.bundle.js");
// The entry imports its chunks by these names, from the same folder.
if (basename(out) !== "elements.bundle.js") {
  throw new Error(`the entry must be written as elements.bundle.js, not ${basename(out)}`);
}

/** The first 16 hex digits of the SHA-256 of `code`'s UTF-8 bytes, as assets.ts computes them. */
function contentHash(code: string): string {
  return createHash("sha256").update(new TextEncoder().encode(code)).digest("hex").slice(0, 16);
}

/** The `./x.js` files a module imports, statically or not. */
function imports(code: string): string[] {
  return [...code.matchAll(/(["'])\.\/([\w.-]+\.js)\1/g)].map((m) => m[2]!);
}

const temp = await Deno.makeTempDir({ prefix: "aim-bundle-" });
try {
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "--minify",
      "--code-splitting",
      "--outdir",
      join(temp, "out"),
      fromFileUrl(new URL("elements/mod.ts", ROOT)),
    ],
    cwd: fromFileUrl(ROOT),
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!built.success) Deno.exit(built.code || 1);

  // Each output file by its name. deno bundle's chunk names hash the build's absolute path, so
  // they are replaced by ours before terser, whose short names follow character counts: the
  // same sources then build to the same bytes wherever the checkout is.
  const chunks = new Map<string, string>();
  const outputs = [];
  for await (const entry of Deno.readDir(join(temp, "out"))) outputs.push(entry.name);
  const shared = new Map<string, string>();
  for (const [module, name] of Object.entries(SHARED)) {
    const file = outputs.find((f) => f.startsWith(`${module}-`));
    const code = file ? await Deno.readTextFile(join(temp, "out", file)) : "";
    for (const dep of imports(code).filter((f) => f.startsWith("chunk-"))) {
      if (shared.has(dep)) throw new Error(`${dep} is imported by more than one module`);
      shared.set(dep, name);
    }
  }
  for (const file of outputs) {
    const name = shared.get(file) ?? NAMES[file.replace(/(-[A-Z0-9]+)?\.js$/, "")];
    if (!name || [...chunks.values()].includes(name)) {
      throw new Error(
        `deno bundle made an unexpected chunk, ${file}: give it a name in elements/build.ts ` +
          "and serve it in bridge/http/assets.ts",
      );
    }
    chunks.set(file, name);
  }
  if (chunks.size !== Object.keys(NAMES).length + Object.keys(SHARED).length) {
    throw new Error(`deno bundle made ${[...chunks.keys()].join(", ")}: one is missing`);
  }
  const files = new Map<string, { code: string; name: string }>();
  for (const [file, name] of chunks) {
    const code = (await Deno.readTextFile(join(temp, "out", file))).replace(
      /(["'])\.\/([\w.-]+\.js)\1/g,
      (text, quote, dep) =>
        chunks.has(dep) ? `${quote}./elements.${chunks.get(dep)}.js${quote}` : text,
    );
    const minified = await minify(code, {
      module: true,
      compress: { passes: 2 },
      format: { comments: false },
    });
    if (minified.code === undefined) throw new Error(`terser produced no code for ${file}`);
    files.set(`elements.${name}.js`, { code: minified.code, name });
  }

  // Each chunk's URL names its content, once the URLs it imports are in it: leaves first.
  const urls = new Map<string, string>();
  while (urls.size < files.size) {
    const ready = [...files].filter(([file, { code }]) =>
      !urls.has(file) && imports(code).every((dep) => urls.has(dep))
    );
    if (!ready.length) throw new Error("the chunks import each other in a cycle");
    for (const [file, chunk] of ready) {
      chunk.code = chunk.code.replace(
        /(["'])\.\/([\w.-]+\.js)\1/g,
        (text, quote, dep) => urls.has(dep) ? `${quote}./${urls.get(dep)}${quote}` : text,
      );
      urls.set(file, `elements.${chunk.name}.js?v=${contentHash(chunk.code)}`);
    }
  }

  for (const { code, name } of files.values()) {
    await Deno.writeTextFile(join(dirname(out), `elements.${name}.js`), code);
  }

  // The classic script: one file, no imports, run as the page is parsed.
  const api = join(temp, "webmcp-api.js");
  const script = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "--output",
      api,
      fromFileUrl(new URL("elements/webmcp_api.ts", ROOT)),
    ],
    cwd: fromFileUrl(ROOT),
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!script.success) Deno.exit(script.code || 1);
  const squeezed = await minify(await Deno.readTextFile(api), {
    module: false,
    compress: { passes: 2 },
    format: { comments: false },
  });
  if (squeezed.code === undefined) throw new Error("terser produced no code for webmcp_api.ts");
  if (/^\s*(import|export)\b/m.test(squeezed.code)) {
    throw new Error("elements/webmcp_api.ts must stay a classic script: no imports or exports");
  }
  await Deno.writeTextFile(join(dirname(out), "elements.webmcp-api.js"), squeezed.code);
} finally {
  await Deno.remove(temp, { recursive: true });
}
