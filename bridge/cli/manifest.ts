/**
 * `aim manifest FILE.html`: the public manifest of one page, offline.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import { encode } from "@toon-format/toon";
import { BridgeCore } from "../core/bridge.ts";
import { AimError } from "../errors/aim_error.ts";
import { scanPage } from "../site/catalog.ts";
import { checkPageQuery, CliError, type CliIO, Exit, parseFlags } from "./common.ts";
import { fetchText, isUrl } from "./live.ts";
import { UpstreamCatalog } from "../upstream/catalog.ts";

export const MANIFEST_USAGE =
  `Usage: aim manifest FILE.html|URL [--toon] [--origin URL] [--page-query NAME]

Prints the public manifest of one page (its action catalog, no state), as an agent would read
it at <page>.json, without starting a server. A URL reads the live page an app serves there, as
an anonymous visitor (as aim serve --upstream does). A declaration the manifest leaves out because it
is broken is reported on stderr, and the exit code is then 1.

Options:
  --toon        print TOON instead of JSON
  --origin URL  the origin for absolute URLs (default http://127.0.0.1:8000; a URL's own)
  --page-query NAME
                with a URL: a query parameter that is part of the page's identity, as
                aim serve --upstream --page-query NAME has it (repeatable)
  -h, --help    this help
`;

/** Runs `aim manifest`. */
export async function manifestCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    toon: { type: "boolean" },
    origin: { type: "string" },
    "page-query": { type: "string", multiple: true },
  }, MANIFEST_USAGE);
  if (values.help) {
    io.stdout(MANIFEST_USAGE);
    return Exit.Ok;
  }
  if (positionals.length !== 1) {
    throw new CliError("give one FILE.html", Exit.Usage, { usage: MANIFEST_USAGE });
  }
  const file = positionals[0]!;
  const pageQuery = checkPageQuery(values["page-query"]);
  if (isUrl(file)) return await liveManifest(file, { ...values, pageQuery }, io);
  if (pageQuery.length) {
    throw new CliError("--page-query goes with a URL: a file is a page of its own", Exit.Usage);
  }
  // Only what aim serves as a page: a `.htm` or `.HTML` file is no page of a site's (site/paths.ts).
  if (!/\.html$/.test(file)) throw new CliError(`${file} is not an .html file`, Exit.Usage);
  let origin: string;
  try {
    origin = new URL(values.origin ?? "http://127.0.0.1:8000").origin;
  } catch {
    throw new CliError(`--origin must be a URL, got "${values.origin}"`, Exit.Usage);
  }
  try {
    if (!(await Deno.stat(file)).isFile) throw new CliError(`${file} is not a file`);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${file} does not exist`);
  }
  const name = basename(file).replace(/\.html$/, "");
  const page = name === "index" ? "/" : `/${name}`;
  const core = new BridgeCore({ root: dirname(file) });
  try {
    const manifest = await core.manifest(page, null, origin);
    io.stdout(values.toon ? encode(manifest) + "\n" : JSON.stringify(manifest, null, 2) + "\n");
    // What the manifest had to leave out, said as `aim check` says it.
    const { problems } = scanPage(await Deno.readTextFile(file), page, file);
    for (const p of problems) io.stderr(`${file}:${p.line}:${p.column}: ${p.message}\n`);
    if (!problems.length) return Exit.Ok;
    const n = problems.length === 1 ? "1 declaration" : `${problems.length} declarations`;
    io.stderr(`aim manifest: ${n} left out of the manifest; 'aim check ${file}' checks the page\n`);
    return Exit.Failure;
  } catch (error) {
    if (error instanceof AimError && error.code === "not_found") {
      throw new CliError(`${file} declares no <aim-action> or <aim-state>; it has no manifest`);
    }
    throw error;
  } finally {
    core.close();
  }
}

/** `aim manifest URL`: the public manifest of a live page, read as an anonymous visitor. */
async function liveManifest(
  url: string,
  values: { toon?: boolean | undefined; origin?: string | undefined; pageQuery: string[] },
  io: CliIO,
): Promise<number> {
  const target = new URL(url);
  let origin: string;
  try {
    origin = new URL(values.origin ?? target.origin).origin;
  } catch {
    throw new CliError(`--origin must be a URL, got "${values.origin}"`, Exit.Usage);
  }
  const { pageQuery } = values;
  const core = new BridgeCore({
    catalog: new UpstreamCatalog(target.origin, { pageQuery }),
    pageQuery,
  });
  try {
    // The page as aim serve --upstream --page-query names it: its path and declared parameters.
    const raw = target.pathname + target.search;
    const page = core.pageOf(raw);
    if (!page) throw new CliError(`${url} names no page: ${core.invalidPage(raw)}`, Exit.Usage);
    // The page itself, read once here to say why it has no manifest when it has none.
    const html = await fetchText(target.href, new Headers());
    const manifest = await core.manifest(page, null, origin);
    io.stdout(values.toon ? encode(manifest) + "\n" : JSON.stringify(manifest, null, 2) + "\n");
    const { problems } = scanPage(html, page, url);
    for (const p of problems) io.stderr(`${url}:${p.line}:${p.column}: ${p.message}\n`);
    return problems.length ? Exit.Failure : Exit.Ok;
  } catch (error) {
    if (error instanceof AimError && error.code === "not_found") {
      throw new CliError(`${url} declares no <aim-action> or <aim-state>; it has no manifest`);
    }
    throw error;
  } finally {
    core.close();
  }
}
