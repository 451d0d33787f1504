/**
 * What agents read: a page's manifest (public, or a session's live view), the site map,
 * and a session's state as the server vouches for it.
 *
 * @module
 */
import { AimError, notFound } from "../errors/aim_error.ts";
import { type ActionSpec, toManifestAction } from "../input/action_spec.ts";
import { redactSecrets } from "../markup/secrets.ts";
import { type Manifest, PROTOCOL, PROTOCOL_VERSION, type Sitemap } from "../wire/schemas.ts";
import type { PageCatalog } from "../site/catalog.ts";
import { manifestPath, pageLocation } from "../site/paths.ts";
import type { ActionRegistry } from "./actions.ts";
import type { Session } from "./session.ts";

/** What manifests are made from. */
export interface ManifestSources {
  catalog: PageCatalog;
  actions: ActionRegistry;
}

/** The session's state: the tab's snapshot, then what the server says of login. */
export function sessionState(session: Session): Record<string, unknown> {
  const tab = session.tab.state;
  const state: Record<string, unknown> = { ...(redactSecrets(tab) as Record<string, unknown>) };
  delete state.user;
  state.authenticated = session.identity !== null;
  if (session.identity) state.user = { ...session.identity };
  return state;
}

/**
 * The action an example shows: one that is safe to try. A page action declared `read-only`
 * (it changes nothing) comes first, then any other page action that is not consequential (it
 * may still change something others see, as a comment does); never `disconnect` (it would end
 * the agent's own session), and a consequential one only when nothing else exists. Among safe
 * ones, those whose example `runs` (is not refused as it stands) come first.
 */
export function exampleAction(
  specs: ActionSpec[],
  isServer: (id: string) => boolean,
  runs: (action: ActionSpec) => boolean = () => true,
): ActionSpec {
  const safe = (a: ActionSpec) => !a.consequential && a.id !== "disconnect";
  const page = (a: ActionSpec) => safe(a) && !isServer(a.id);
  return specs.find((a) => page(a) && a.read_only && runs(a)) ??
    specs.find((a) => page(a) && runs(a)) ??
    specs.find((a) => safe(a) && runs(a)) ??
    specs.find((a) => page(a) && a.read_only) ??
    specs.find(page) ??
    specs.find(safe) ??
    specs.find((a) => a.id !== "disconnect") ??
    specs[0]!;
}

/**
 * The manifest of the page at `path` for `session` (or the public one, for null).
 *
 * @throws {AimError} 404 `not_found`, 409 `page_mismatch`.
 */
export async function buildManifest(
  sources: ManifestSources,
  path: string,
  session: Session | null,
  origin: string,
): Promise<Manifest> {
  const { catalog, actions } = sources;
  // A session also reads its own page when the page's HTML declares no action: its tab
  // registers them (a script renders them, or they are WebMCP tools).
  // Any page that hosts sessions answers a session: its own page with its data, another with
  // 409 page_mismatch (an app's pages, a single-page app's routes, all host sessions).
  const info = await catalog.agentPage(path) ??
    (session ? await catalog.sessionPage(path) : null);
  if (!info) throw notFound(`No agent-enabled page at ${path}; see ${origin}/sitemap.json.`);
  let specs: ActionSpec[];
  let state: Record<string, unknown> = {};
  let connected = false;
  if (session) {
    // Attached to another page, by its tab or when it was opened: never this page's data.
    if (session.page !== info.page) throw pageMismatch(session, origin);
    specs = actions.forSession(session);
    state = sessionState(session);
    connected = session.tab.connected;
  } else {
    specs = [...info.actions.filter((a) => !actions.has(a.id)), ...actions.public()];
  }
  // Publicly, an items= action's example names no real item ("example"): it would be refused.
  const itemActions = session ? [] : info.itemActions ?? [];
  // An action without an example (none could be made from its schema) shows none.
  const withExamples = specs.filter((a) => a.input_example !== undefined);
  const example = exampleAction(
    withExamples.length ? withExamples : specs,
    (id) => actions.has(id),
    (a) => !itemActions.includes(a.id),
  );
  return {
    protocol: PROTOCOL,
    version: PROTOCOL_VERSION,
    page: info.page,
    sitemap: `${origin}/sitemap.json`,
    state_scope: session ? "session" : "public_schema_only",
    browser_connected: connected,
    invoke_url: `${origin}/__aim/invoke`,
    invoke_method: "POST",
    invoke_example: {
      actionId: example.id,
      ...(example.input_example !== undefined && { input: example.input_example }),
    },
    ...(session ? { mcp_url: `${origin}/__aim/mcp`, state_version: session.version } : {}),
    state: state as Manifest["state"],
    actions: specs.map(toManifestAction),
  };
}

/** 409 `page_mismatch`: the session is attached to another page. */
export function pageMismatch(session: Session, origin: string): AimError {
  return new AimError(
    "page_mismatch",
    `This session is attached to ${session.page}; read that page's manifest, or invoke disconnect and start a new session.`,
    {
      details: {
        connected_page: session.page,
        manifest_url: origin + manifestPath(session.page, "json"),
      },
    },
  );
}

/** The site map: every agent-enabled page. */
export async function buildSitemap(sources: ManifestSources, origin: string): Promise<Sitemap> {
  const { catalog, actions } = sources;
  const pages = await catalog.agentPages();
  const server = actions.public().map((a) => a.id);
  return {
    protocol: PROTOCOL,
    version: PROTOCOL_VERSION,
    invoke_url: `${origin}/__aim/invoke`,
    session_url: `${origin}/__aim/session`,
    mcp_url: `${origin}/__aim/mcp`,
    pages: pages.map((p) => ({
      path: pageLocation(p.page, p.file),
      title: p.title,
      description: p.description,
      manifest_json: origin + manifestPath(p.page, "json"),
      manifest_toon: origin + manifestPath(p.page, "toon"),
      actions: [...p.actions.map((a) => a.id).filter((id) => !actions.has(id)), ...server],
    })),
  };
}
