/**
 * Pages as ACP agents: each agent-enabled page's name (its path as an RFC 1123 label)
 * and its Agent Manifest, built from the page's catalog, its public AIM manifest and its file.
 *
 * @module
 */
import { type FileStamp, sameStamp, stampOf } from "../utils/file_stamp.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import { createHash } from "node:crypto";
import { Parser } from "htmlparser2";
import type { BridgeCore } from "../core/bridge.ts";
import type { PageInfo } from "../site/catalog.ts";
import type { Session } from "../core/session.ts";
import { manifestPath, pageLocation } from "../site/paths.ts";
import type { AgentManifest } from "./schemas.ts";
import type { InvocationStats } from "./stats.ts";

const MAX_NAME = 63;
/** `-` and 8 hex digits. */
const SUFFIX_LENGTH = 9;

/** What ACP clients may send as input, and what a run answers with. */
export const INPUT_CONTENT_TYPES = ["application/json", "text/plain"];
export const OUTPUT_CONTENT_TYPES = ["application/json"];

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

function withSuffix(label: string, seed: string): string {
  const head = label.slice(0, MAX_NAME - SUFFIX_LENGTH).replace(/-+$/, "");
  return `${head}-${shortHash(seed)}`;
}

/**
 * A page path as an RFC 1123 label, before collisions are resolved: `/` is `index`, letters are
 * lowercased and stripped of accents, every other run of characters becomes `-`. A path that
 * leaves nothing (`/日本`) or too much (over 63 characters) gets a hash of the path as suffix.
 */
export function pageLabel(page: string): string {
  if (page === "/") return "index";
  const folded = page.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();
  const label = folded.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  if (label === "") return withSuffix("page", page);
  return label.length > MAX_NAME ? withSuffix(label, page) : label;
}

/** Whether `label` spells `page` exactly, `/` as `-`: such a page keeps the bare name. */
function spells(page: string, label: string): boolean {
  return page === "/" ? label === "index" : page.slice(1).replaceAll("/", "-") === label;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The agent name of every page, unique and independent of the order the pages are given in.
 * Pages whose labels collide (`/a_b`, `/a/b`, `/A-B`) share it this way: the page the label
 * spells exactly, else the first path in code-unit order, keeps the bare label; the others get
 * a hash of their path as suffix (re-hashed in the unlikely case that name is taken too).
 */
export function agentNames(pages: Iterable<string>): Map<string, string> {
  const groups = new Map<string, string[]>();
  for (const page of new Set(pages)) {
    const label = pageLabel(page);
    const group = groups.get(label);
    if (group) group.push(page);
    else groups.set(label, [page]);
  }
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const others: [label: string, page: string][] = [];
  // Every bare label is claimed before any suffixed name, so a suffix never takes one.
  for (const label of [...groups.keys()].sort(compare)) {
    const members = groups.get(label)!.sort((a, b) =>
      Number(spells(b, label)) - Number(spells(a, label)) || compare(a, b)
    );
    // A group is made with its first page, so it is never empty.
    names.set(members[0]!, label);
    taken.add(label);
    for (const page of members.slice(1)) others.push([label, page]);
  }
  for (const [label, page] of others) {
    let name = withSuffix(label, page);
    for (let round = 1; taken.has(name); round++) name = withSuffix(label, `${page}#${round}`);
    taken.add(name);
    names.set(page, name);
  }
  return names;
}

/** One agent: a page and its name. */
export interface AgentEntry {
  name: string;
  info: PageInfo;
  /**
   * Set for the caller's own page when only its session knows its actions (a page whose tab
   * registers them, such as a page's own WebMCP tools): its manifest is the session's.
   */
  session?: Session;
}

/** The agents of a site, in page order, findable by name and by page. */
export interface AgentDirectory {
  entries: AgentEntry[];
  byName(name: string): AgentEntry | undefined;
  nameOf(page: string): string | undefined;
}

/**
 * Every agent-enabled page of the site as an agent; with a caller's `session`, its own page too
 * when it hosts sessions without being agent-enabled (never another session's: the public
 * directory never learns from a tab).
 */
export async function agentDirectory(core: BridgeCore, session?: Session): Promise<AgentDirectory> {
  const pages = await core.catalog.agentPages();
  const own = session && !pages.some((p) => p.page === session.page)
    ? await core.catalog.sessionPage(session.page).catch(() => null)
    : null;
  const names = agentNames([...pages, ...(own ? [own] : [])].map((p) => p.page));
  const entries: AgentEntry[] = pages.map((info) => ({ name: names.get(info.page)!, info }));
  if (own && session) entries.push({ name: names.get(own.page)!, info: own, session });
  const byName = new Map(entries.map((e) => [e.name, e]));
  return {
    entries,
    byName: (name) => byName.get(name),
    nameOf: (page) => names.get(page),
  };
}

/** What a page's HTML says of itself beyond the catalog. */
interface PageFacts {
  tags: string[];
  domains: string[];
  languages: string[];
}

const MAX_LIST = 32;

function list(content: string | undefined, into: string[]): void {
  for (const raw of (content ?? "").split(",")) {
    const item = raw.trim().replace(/\s+/g, " ").slice(0, 64);
    if (item && !into.includes(item) && into.length < MAX_LIST) into.push(item);
  }
}

/**
 * Reads `<meta name="keywords">` and `<meta name="acp:tags">` (tags), `<meta
 * name="acp:domains">` (domains) and `<html lang>` (the natural language).
 */
export function readPageFacts(html: string): PageFacts {
  const facts: PageFacts = { tags: [], domains: [], languages: [] };
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === "html") {
        const primary = attribs.lang?.trim().toLowerCase().split("-")[0];
        if (primary && /^[a-z]{2}$/.test(primary)) facts.languages = [primary];
      } else if (name === "meta") {
        const key = attribs.name?.trim().toLowerCase();
        if (key === "keywords" || key === "acp:tags") list(attribs.content, facts.tags);
        else if (key === "acp:domains") list(attribs.content, facts.domains);
      }
    },
  }, { lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.end(html);
  return facts;
}

interface FactsEntry {
  stamp: FileStamp;
  facts: PageFacts;
  created: Date;
  updated: Date;
}

/** Page facts and file times, read once per file change. */
export class PageFactsCache {
  readonly #entries = new BoundedMap<string, FactsEntry>(1024);

  async read(file: string): Promise<FactsEntry> {
    const stat = await Deno.stat(file);
    const stamp = stampOf(stat);
    const cached = this.#entries.get(file);
    if (cached && sameStamp(cached.stamp, stamp)) return cached;
    const updated = stat.mtime ?? new Date(0);
    // Some file systems know no birth time, and a copied file may be "born" after its mtime.
    const born = stat.birthtime ?? updated;
    const entry: FactsEntry = {
      stamp,
      facts: readPageFacts(await Deno.readTextFile(file)),
      created: born < updated ? born : updated,
      updated,
    };
    this.#entries.set(file, entry);
    return entry;
  }
}

/** The manifest of one agent. */
export async function agentManifest(
  core: BridgeCore,
  entry: AgentEntry,
  origin: string,
  options: { stats?: InvocationStats | undefined; facts: PageFactsCache },
): Promise<AgentManifest> {
  const { info, name } = entry;
  const aim = await core.manifest(info.page, entry.session ?? null, origin);
  // In front of an app, a page has no file: its facts are unknown, not an error.
  const now = new Date();
  const { facts, created, updated } = core.catalog.root
    ? await options.facts.read(info.file)
    : { facts: { tags: [], domains: [], languages: [] }, created: now, updated: now };
  const pageUrl = origin + pageLocation(info.page, info.file);
  const manifestJson = origin + manifestPath(info.page, "json");
  const description = info.description || info.title ||
    `The page ${info.page} of this site, operated through its actions.`;
  const status = options.stats?.status(info.page);
  return {
    name,
    description,
    input_content_types: INPUT_CONTENT_TYPES,
    output_content_types: OUTPUT_CONTENT_TYPES,
    metadata: {
      annotations: {
        aim: {
          page: info.page,
          page_url: pageUrl,
          manifest_json: manifestJson,
          manifest_toon: origin + manifestPath(info.page, "toon"),
          invoke_url: aim.invoke_url,
          session_url: `${origin}/__aim/session`,
          sitemap: aim.sitemap,
        },
      },
      documentation: [
        `Runs of this agent invoke one action of the page ${info.page} in the caller's AIM`,
        "session: send `Authorization: Bearer <session token>` (the token the page shows) and, as",
        'the last input message, an `application/json` part `{"actionId": "<id>", "input":',
        "<input>}` or a `text/plain` part `<id> <input>`. The answer is one `application/json`",
        `part \`{"ok", "actionId", "result", "state"}\`. Actions and their input schemas:`,
        `${manifestJson}.`,
      ].join(" "),
      ...(facts.languages.length ? { natural_languages: facts.languages } : {}),
      framework: "AIM",
      capabilities: aim.actions.map((a) => ({ name: a.id, description: a.description })),
      ...(facts.domains.length ? { domains: facts.domains } : {}),
      ...(facts.tags.length ? { tags: facts.tags } : {}),
      created_at: created.toISOString(),
      updated_at: updated.toISOString(),
      links: [
        { type: "homepage", url: pageUrl },
        { type: "documentation", url: manifestJson },
      ],
    },
    ...(status ? { status } : {}),
  };
}
