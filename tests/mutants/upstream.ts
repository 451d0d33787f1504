/**
 * Named mutants of `aim serve --upstream` (issue 22): what the proxy passes and withholds, how it
 * fails, the public catalog read from the app, and sessions on pages that live in the app.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const PROXY = ["tests/upstream/proxy_test.ts"];
const CATALOG = ["tests/upstream/catalog_test.ts"];
const BROWSER = ["tests/browser/upstream_test.ts"];
const FORWARD = ["tests/upstream/forward_test.ts"];
const DEADLINES = ["tests/upstream/deadlines_test.ts"];

export const mutants: Mutant[] = [
  {
    name: "upstream-aim-cookie-forwarded",
    guarantee: "aim's session cookie is never sent to the app; the app's own cookies are.",
    file: "bridge/upstream/headers.ts",
    find: `return part.trim() !== "" && !isAimCookie(eq < 0 ? part : part.slice(0, eq));`,
    replace: `return part.trim() !== "";`,
    tests: PROXY,
  },
  {
    name: "upstream-sets-aim-cookie",
    guarantee: "No Set-Cookie of the app can set aim's session cookie, in any spelling.",
    file: "bridge/upstream/headers.ts",
    find: `    if (isAimCookie(eq < 0 ? cookie : cookie.slice(0, eq))) continue;\n`,
    replace: ``,
    tests: PROXY,
  },
  {
    name: "upstream-aim-token-forwarded",
    guarantee: "An aim token in Authorization is never sent to the app; the app's own scheme is.",
    file: "bridge/upstream/headers.ts",
    find: `      const kept = withoutSecrets(value, options.secrets);`,
    replace: `      const kept = value;`,
    tests: [...PROXY, "tests/upstream/credentials_test.ts"],
  },
  {
    name: "upstream-tab-key-forwarded",
    guarantee: "The tab key (X-Aim-Tab) is never sent to the app.",
    file: "bridge/upstream/headers.ts",
    find: `const AIM_REQUEST_HEADERS = new Set(["x-aim-tab"]);`,
    replace: `const AIM_REQUEST_HEADERS = new Set<string>([]);`,
    tests: PROXY,
  },
  {
    name: "upstream-connection-listed-kept",
    guarantee: "Headers a request's Connection header names are hop-by-hop: never sent to the app.",
    file: "bridge/upstream/headers.ts",
    find:
      `    if (HOP_BY_HOP.has(name) || listed.has(name) || AIM_REQUEST_HEADERS.has(name)) return;`,
    replace: `    if (HOP_BY_HOP.has(name) || AIM_REQUEST_HEADERS.has(name)) return;`,
    tests: PROXY,
  },
  {
    name: "upstream-forwarded-for-trusted",
    guarantee: "A client's own X-Forwarded-For is replaced unless aim trusts the proxy in front.",
    file: "bridge/upstream/headers.ts",
    find: `const earlierFor = trusted ? incoming.get("x-forwarded-for") : null;`,
    replace: `const earlierFor = incoming.get("x-forwarded-for");`,
    tests: [...PROXY, "tests/upstream/forwarding_test.ts"],
  },
  {
    name: "upstream-decoded-body-keeps-coding",
    guarantee:
      "A body the runtime's fetch decoded never goes out labelled gzip: the client reads the app's bytes.",
    file: "bridge/upstream/headers.ts",
    find: `    if (strip && (name === "content-encoding" || name === "content-length")) return;`,
    replace: ``,
    tests: PROXY,
  },
  {
    name: "upstream-host-replaced",
    guarantee: "The browser's Host reaches the app by default (apps build URLs from it).",
    file: "bridge/upstream/proxy.ts",
    find: `      preserveHost: this.#options.preserveHost ?? PROXY_DEFAULTS.preserveHost,`,
    replace: `      preserveHost: this.#options.preserveHost ?? false,`,
    tests: PROXY,
  },
  {
    name: "upstream-aim-route-proxied",
    guarantee:
      "A path that names one of aim's routes, with a method aim does not answer, never reaches the app.",
    file: "bridge/upstream/proxy.ts",
    find: `    if (verdict === "aim") {`,
    replace: `    if (false) {`,
    tests: PROXY,
  },
  {
    name: "upstream-aim-route-spelling",
    guarantee:
      "aim's routes are recognised however the path is spelled (doubled slashes, encoding).",
    file: "bridge/upstream/routes.ts",
    find: `  for (const path of [raw, decodeAscii(raw)]) {`,
    replace: `  for (const path of [raw]) {`,
    tests: PROXY,
  },
  {
    name: "upstream-upload-buffered",
    guarantee: "An upload larger than the small-body bound streams to the app as it arrives; " +
      "aim never holds the whole body.",
    file: "bridge/upstream/request_body.ts",
    find:
      "  return { body: request.body.pipeThrough(new TransformStream({ flush: onEnd })), streams: true };",
    replace:
      "  return request.arrayBuffer().then((bytes) => {\n    onEnd();\n    return { body: new Uint8Array(bytes), streams: false };\n  });",
    tests: [...PROXY, "tests/upstream/memory_test.ts"],
  },
  {
    name: "upstream-timeout-as-502",
    guarantee: "An app slower than the timeout gets the client 504 gateway_timeout, not 502.",
    file: "bridge/upstream/proxy.ts",
    find:
      `      if (signal.reason === TIMED_OUT) {\n        this.#options.onFailure?.("gateway_timeout");`,
    replace: `      if (false) {\n        this.#options.onFailure?.("gateway_timeout");`,
    tests: PROXY,
  },
  {
    name: "upstream-catalog-follows-redirects",
    guarantee:
      "A page the app redirects visitors away from (a login wall) has no public manifest: the catalog does not follow.",
    file: "bridge/upstream/catalog.ts",
    find: `        status === 200 && /^text\\/html\\b/i.test(headers.get("content-type") ?? "");`,
    replace: `        status < 400 && /^text\\/html\\b/i.test(headers.get("content-type") ?? "");`,
    tests: [...CATALOG, "tests/upstream/catalog_reads_test.ts"],
  },
  {
    name: "upstream-catalog-unbounded",
    guarantee: "A page over the size bound has no public manifest; aim reads no more of it.",
    file: "bridge/upstream/anonymous_read.ts",
    find: `      if (size > max) return null;`,
    replace: ``,
    tests: CATALOG,
  },
  {
    name: "upstream-catalog-no-revalidation",
    guarantee: "A stale page is revalidated with its ETag.",
    file: "bridge/upstream/catalog.ts",
    find: `    if (cached?.etag) revalidate["if-none-match"] = cached.etag;`,
    replace: ``,
    tests: CATALOG,
  },
  {
    name: "upstream-catalog-many-reads",
    guarantee: "A fresh scan is reused: the app is read once per page, however many ask.",
    file: "bridge/upstream/catalog.ts",
    find: `    if (cached && this.#now() - cached.at < this.#options.freshMs) return cached.info;`,
    replace: ``,
    tests: CATALOG,
  },
  {
    name: "navigate-ignored",
    guarantee:
      "A single-page app's History API navigation moves the session to the new page without a reconnect.",
    file: "bridge/core/tab_messages.ts",
    find: `      navigate: (message, h) => h.then(() => this.#navigate(message.page, h)),`,
    replace: `      navigate: () => {},`,
    tests: BROWSER,
  },
  {
    name: "navigate-not-sent",
    guarantee: "The elements tell the bridge of a History API navigation.",
    file: "elements/client_link.ts",
    find: `    this.send({ type: "navigate", page: this.#at = here() });\n    this.onMoved();`,
    replace: `    this.onMoved();`,
    tests: BROWSER,
  },
  {
    name: "submitter-ignored",
    guarantee: "A form with several submit buttons is submitted through the one submitter= names.",
    file: "elements/gestures.ts",
    find: `  const button = submitter ?? defaultButton(form);`,
    replace: `  const button = defaultButton(form);`,
    tests: BROWSER,
  },
  {
    name: "navigation-answered-early",
    guarantee:
      "An action whose submit loads a new page answers once that page holds the session and reported its state, saying which page it is.",
    file: "bridge/core/tab.ts",
    find: `      if (arrival.from !== tab) arrival.resolve(true);`,
    replace: ``,
    tests: BROWSER,
  },
  {
    name: "page-query-ignored",
    guarantee:
      "Declared query parameters are part of a page's identity: /edit.php?id=1 and ?id=2 are two pages.",
    file: "bridge/site/page_identity.ts",
    find: `  if (!page || !query || !params.length) return page;`,
    replace: `  return page;`,
    tests: ["tests/upstream/catalog_test.ts"],
  },
  {
    name: "page-query-not-sent",
    guarantee:
      "The elements name their page with its query, so declared parameters reach the bridge.",
    file: "elements/client_link.ts",
    find: `  return location.pathname + location.search;`,
    replace: `  return location.pathname;`,
    tests: BROWSER,
  },
  {
    name: "upstream-visited-not-listed",
    guarantee:
      "The site map lists the agent-enabled pages sessions visited, besides sitemap.xml's.",
    file: "bridge/upstream/catalog.ts",
    find: `      for (const page of this.#visited.keys()) listed.add(page);`,
    replace: ``,
    tests: CATALOG,
  },
  // The one timer behind the timeouts and hang-up watches (bridge/upstream/deadlines.ts).
  {
    name: "deadlines-younger-called-early",
    guarantee:
      "A wait is called at its own deadline, never at an older wait's the timer fired for.",
    file: "bridge/upstream/deadlines.ts",
    find: "      if (at > now) break;",
    replace: "",
    tests: DEADLINES,
  },
  {
    name: "deadlines-deleted-called",
    guarantee: "A wait deleted before its deadline (the app answered in time) is never called.",
    file: "bridge/upstream/deadlines.ts",
    find: "    this.#waiting.delete(item);\n  }\n\n  /** Forgets",
    replace: "  }\n\n  /** Forgets",
    tests: DEADLINES,
  },
  {
    name: "upstream-hang-up-before-watch-missed",
    guarantee:
      "A client that hung up before aim started watching is seen as the watch starts: 499, the app's request withdrawn.",
    file: "bridge/upstream/proxy.ts",
    find: "  if (request.signal.aborted) return controller.abort();\n",
    replace: "",
    tests: FORWARD,
  },
  {
    name: "upstream-hang-up-unwatched",
    guarantee: "A client that hangs up while the app is slow to answer withdraws the request: 499.",
    file: "bridge/upstream/proxy.ts",
    find: '  request.signal.addEventListener("abort", waiting.hangUp, { once: true });',
    replace: "",
    tests: FORWARD,
  },
  {
    name: "upstream-answer-headers-unfiltered",
    guarantee:
      "An answer holding a header some rule removes (hop-by-hop, aim's Set-Cookie) is filtered, not passed as the app's.",
    file: "bridge/upstream/headers.ts",
    find:
      '    if (ANSWER_FILTERED.has(name) || (decoded && name === "content-encoding")) seen.filtered = true;',
    replace: '    if (decoded && name === "content-encoding") seen.filtered = true;',
    tests: ["tests/upstream/hop_by_hop_test.ts", ...PROXY],
  },
  {
    name: "upstream-decoded-answer-unfiltered",
    guarantee:
      "An answer fetch decoded is filtered (its Content-Encoding and Content-Length dropped), not passed as the app's.",
    file: "bridge/upstream/headers.ts",
    find:
      '    if (ANSWER_FILTERED.has(name) || (decoded && name === "content-encoding")) seen.filtered = true;',
    replace: "    if (ANSWER_FILTERED.has(name)) seen.filtered = true;",
    tests: [...PROXY, "tests/upstream/answers_test.ts"],
  },
  {
    name: "upstream-answer-location-unread",
    guarantee:
      "The app's Location is read from its answer in the one pass, so that preserveHost off rewrites it.",
    file: "bridge/upstream/headers.ts",
    find: '    else if (name === "location") seen.location = value;',
    replace: "",
    tests: [...FORWARD, "tests/upstream/answers_test.ts"],
  },
];
