/**
 * Named mutants of issue 31's bounds and identities: the public catalog's time per list and what
 * it reads, a page identity a repeated parameter cannot confuse, a navigation that withdraws the
 * old page's actions, and the rate of each tab's channel messages.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const BOUNDS = ["tests/upstream/catalog_bounds_test.ts"];
const READS = ["tests/upstream/catalog_reads_test.ts"];
const IDENTITY = ["tests/upstream/page_identity_test.ts"];
const NAVIGATE = ["tests/protocol/navigate_test.ts"];
const BUDGET = ["tests/protocol/channel_budget_test.ts"];

export const mutants: Mutant[] = [
  {
    name: "catalog-list-waits-for-every-read",
    guarantee:
      "A list of pages (site map, agent card, ACP agents) answers within its bound while the app hangs.",
    file: "bridge/upstream/catalog.ts",
    find: `      await Promise.race([read, wait]);`,
    replace: `      await read;`,
    tests: BOUNDS,
  },
  {
    name: "catalog-readers-unbounded",
    guarantee: "The catalog reads the app a few pages at a time in the background.",
    file: "bridge/upstream/catalog.ts",
    find: `    while (this.#reading < this.#options.readers && this.#queue.size) {`,
    replace: `    while (this.#queue.size) {`,
    tests: BOUNDS,
  },
  {
    name: "catalog-stale-page-waited-for",
    guarantee:
      "A stale page is listed with its last scan at once and read again in the background.",
    file: "bridge/upstream/catalog.ts",
    find: `        if (!cached) unread.push(page);`,
    replace: `        unread.push(page);`,
    tests: BOUNDS,
  },
  {
    name: "catalog-visited-unbounded",
    guarantee: "The paths visitors add to the site map are bounded; a list reads the newest.",
    file: "bridge/upstream/catalog.ts",
    find: `    this.#visited = new BoundedMap(this.#options.maxPages);`,
    replace: `    this.#visited = new BoundedMap(1_000_000);`,
    tests: BOUNDS,
  },
  {
    name: "catalog-lists-other-origins",
    guarantee: "The public catalog lists only the app's own origin from its site map (issue 32).",
    file: "bridge/upstream/sitemap.ts",
    find:
      `    if (!url || url.username || url.password || !options.origins.includes(url.origin)) continue;`,
    replace: `    if (!url || url.username || url.password) continue;`,
    tests: READS,
  },
  {
    name: "catalog-lists-entries-with-credentials",
    guarantee: "A site map entry that carries credentials is no page of the app.",
    file: "bridge/upstream/sitemap.ts",
    find:
      `    if (!url || url.username || url.password || !options.origins.includes(url.origin)) continue;`,
    replace: `    if (!url || !options.origins.includes(url.origin)) continue;`,
    tests: READS,
  },
  {
    name: "catalog-sends-accept-language",
    guarantee: "The catalog's reads carry only Accept, User-Agent and Host.",
    file: "bridge/upstream/anonymous_read.ts",
    find: `        "user-agent": options.userAgent,`,
    replace: `        "user-agent": options.userAgent,\n        "accept-language": "*",`,
    tests: READS,
  },
  {
    name: "catalog-host-always-the-apps",
    guarantee:
      "The catalog reads with the public URL's host while the app gets the browser's Host.",
    file: "bridge/upstream/catalog.ts",
    find: `    this.#host = visible?.host ?? this.upstream.host;`,
    replace: `    this.#host = this.upstream.host;`,
    tests: READS,
  },
  {
    name: "catalog-sitemap-path-ignored",
    guarantee:
      "An app whose site map is not /sitemap.xml names it, and the catalog reads it there.",
    file: "bridge/upstream/catalog.ts",
    find: `      const answer = await this.#read(this.#options.sitemap, `,
    replace: `      const answer = await this.#read("/sitemap.xml", `,
    tests: READS,
  },
  {
    name: "catalog-gzip-unbounded",
    guarantee: "A body the app gzips unasked is decoded no further than the size bound.",
    file: "bridge/upstream/anonymous_read.ts",
    find: `      boundedBytes(body, options.maxBytes).then(`,
    replace: `      boundedBytes(body, Infinity).then(`,
    tests: READS,
  },
  {
    name: "page-identity-repeat-allowed",
    guarantee:
      "A declared page parameter given twice names no page (PHP reads the last, Java the first).",
    file: "bridge/site/page_identity.ts",
    find:
      `    if (name !== declared || seen.has(declared) || value.includes(";")) return declared;`,
    replace: `    if (name !== declared || value.includes(";")) return declared;`,
    tests: IDENTITY,
  },
  {
    name: "page-identity-spellings-allowed",
    guarantee:
      "A declared page parameter in another spelling (ID, id[], %69d) counts as the parameter.",
    file: "bridge/site/page_identity.ts",
    find:
      `    if (name !== declared || seen.has(declared) || value.includes(";")) return declared;`,
    replace: `    if (seen.has(declared) || value.includes(";")) return declared;`,
    tests: IDENTITY,
  },
  {
    name: "page-identity-repeat-opens-session",
    guarantee: "No session opens on a page whose query repeats a declared parameter.",
    file: "bridge/site/page_identity.ts",
    find: `  if (repeatedParameter(raw, params) !== null) return null;`,
    replace: ``,
    tests: IDENTITY,
  },
  {
    name: "page-identity-repeat-manifest",
    guarantee: "No manifest answers for a page whose query repeats a declared parameter.",
    file: "bridge/http/site_routes.ts",
    find:
      `      if (token || format === "toon" || core.catalog.root) throw badRequest(core.invalidPage(raw));`,
    replace: `      if (false) throw badRequest(core.invalidPage(raw));`,
    tests: IDENTITY,
  },

  {
    name: "navigate-keeps-old-actions",
    guarantee:
      "After a navigation, the old page's actions are neither listed nor invocable until the page registers again.",
    file: "bridge/core/tab_messages.ts",
    find: `    if (tab.page !== info.page) session.tab.moved(tab);`,
    replace: ``,
    tests: NAVIGATE,
  },
  {
    name: "navigate-runs-queued-invocations",
    guarantee:
      "An invocation queued for the old page and not yet at the tab is withdrawn when it moves.",
    file: "bridge/core/relay_queue.ts",
    find: `    for (const pending of this.#queue.splice(0)) {`,
    replace: `    for (const pending of this.#queue.splice(0, 0)) {`,
    tests: ["tests/unit/relay_queue_test.ts", ...NAVIGATE],
  },
  {
    name: "navigate-not-registered-again",
    guarantee:
      "After a navigation the elements register the new view's actions again, the same ones too.",
    file: "elements/client.ts",
    find: `    this.#sent[0] = "";\n    this.changed();`,
    replace: `    this.changed();`,
    tests: ["tests/browser/spa_navigate_test.ts"],
  },

  {
    name: "channel-budget-ignored",
    guarantee: "A tab past its budget of a kind of message is closed (1008), saying which.",
    file: "bridge/core/tab_messages.ts",
    find: `      if (count) return close(CloseCode.TooManyMessages, count);`,
    replace: ``,
    tests: BUDGET,
  },
  {
    name: "channel-characters-unbudgeted",
    guarantee: "The characters of a session's tab messages are budgeted, before they are parsed.",
    file: "bridge/core/tab_messages.ts",
    find: `      if (over) return close(CloseCode.TooManyMessages, over);`,
    replace: ``,
    tests: BUDGET,
  },
  {
    name: "channel-budget-per-socket",
    guarantee: "A tab that reconnects gets no new budget: the session's tabs share one.",
    file: "bridge/core/tab_messages.ts",
    find: `      let budget = this.#budgets.get(session);
      if (!budget) this.#budgets.set(session, budget = new ChannelBudget(this.#ctx.budgets));`,
    replace: `      let budget = this.#budgets.get(state as unknown as Session);
      if (!budget) {
        this.#budgets.set(state as unknown as Session, budget = new ChannelBudget(this.#ctx.budgets));
      }`,
    tests: BUDGET,
  },
  {
    name: "channel-invoke-credit-ignored",
    guarantee:
      "The invocations an agent sends pay for the tab's answers: a page driven fast is never closed.",
    file: "bridge/core/relay_queue.ts",
    find: `    holder.credit = { ...INVOKE_CREDIT };`,
    replace: ``,
    tests: ["tests/unit/relay_queue_test.ts", ...BUDGET],
  },
  {
    name: "channel-budget-never-refills",
    guarantee: "A channel budget fills again at its rate.",
    file: "bridge/core/channel_budget.ts",
    find: `    left.tokens = Math.min(rate.burst, left.tokens + refill);`,
    replace: `    left.tokens = Math.min(rate.burst, left.tokens);`,
    tests: BUDGET,
  },
  {
    name: "channel-leaving-hello-unpaid",
    guarantee:
      "A page an agent's action loaded says hello on the invocation's account: an agent that moves from page to page is never closed for it.",
    file: "bridge/core/tab_messages.ts",
    find:
      `        if (answer()) this.#budgets.get(h.session)?.give("hello", 1, (this.#ctx.now ?? Date.now)());`,
    replace: `        answer();`,
    tests: BUDGET,
  },
];
