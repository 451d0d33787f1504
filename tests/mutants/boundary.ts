/**
 * Named mutants of the boundary between the visitor, aim and the app (issue 31, and issue 32's
 * rows about the proxy): aim's paths by one canonical form, aim's credentials by lookup in every
 * spelling, hop-by-hop headers both ways, forwarding headers, framing, `Location`, the request
 * log of a client that hung up, the WebSocket relay's byte bound and close codes, and the front
 * door's one Host verdict.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const PATHS = ["tests/upstream/paths_test.ts"];
/** The proxy-level tests alone: a route mutant must be caught through a real aim too. */
const SPELLINGS = ["tests/upstream/spellings_test.ts"];
const CREDENTIALS = ["tests/upstream/credentials_test.ts"];
const HOP = ["tests/upstream/hop_by_hop_test.ts"];
const FORWARDING = ["tests/upstream/forwarding_test.ts"];
const ANSWERS = ["tests/upstream/answers_test.ts"];
const RELAY = ["tests/upstream/websocket_test.ts"];
const FRONT_DOOR = ["tests/security/front_door_test.ts"];

/** Every hop-by-hop name, each left out of the list once. */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

export const mutants: Mutant[] = [
  // aim's paths, by one canonical form.
  {
    name: "paths-parameters-kept",
    guarantee:
      "A `;` parameter does not hide one of aim's paths (servlet containers cut it): /__aim;x/session is never forwarded.",
    file: "bridge/upstream/routes.ts",
    find: `    readings.add(resolve(path, true));\n`,
    replace: ``,
    tests: SPELLINGS,
  },
  {
    name: "paths-case-sensitive",
    guarantee: "/__aim in any case is never forwarded, through a real aim.",
    file: "bridge/upstream/routes.ts",
    find: `  let text = path.toLowerCase();`,
    replace: `  let text = path;`,
    tests: SPELLINGS,
  },
  {
    name: "paths-ambiguous-forwarded",
    guarantee: "A spelling of one of aim's routes that servers read differently is refused, 400.",
    file: "bridge/http/front_door.ts",
    find: `    if (verdict === "ambiguous") {`,
    replace: `    if (false) {`,
    tests: SPELLINGS,
  },
  {
    name: "paths-ambiguous-routed-last",
    guarantee:
      "The router's last route refuses an ambiguous spelling too, whatever reaches it (a method aim has no route for).",
    file: "bridge/upstream/proxy.ts",
    find: `    if (verdict === "ambiguous") throw ambiguousPath(path);`,
    replace: ``,
    tests: SPELLINGS,
  },
  {
    name: "paths-decoded-once",
    guarantee: "A doubly encoded spelling of aim's path (%255F) is recognised.",
    file: "bridge/upstream/routes.ts",
    find: `  for (let round = 0; round < 4 && path.includes("%"); round++) {`,
    replace: `  for (let round = 0; round < 1 && path.includes("%"); round++) {`,
    tests: SPELLINGS,
  },
  {
    name: "paths-dot-segments-unresolved",
    guarantee: "/x/..;/__aim/tab is read as /__aim/tab, as Tomcat does.",
    file: "bridge/upstream/routes.ts",
    find: `    if (segment === "..") out.pop();`,
    replace: `    if (segment === "..") out.push(segment);`,
    tests: SPELLINGS,
  },
  {
    name: "paths-trailing-dots-kept",
    guarantee:
      "A segment's trailing dots or spaces (/__aim./tab, /ping%20) do not hide aim's path.",
    file: "bridge/upstream/routes.ts",
    find: `    if (segment !== "." && segment !== "..") segment = segment.replace(/[. ]+$/, "");`,
    replace: ``,
    tests: SPELLINGS,
  },
  {
    name: "paths-escape-plain",
    guarantee:
      "A percent-escape of a letter in one of aim's paths (/__aim/%74ab) is not a plain spelling aim routes.",
    file: "bridge/upstream/routes.ts",
    find: `|[46][1-9a-f]|[57][0-9a]`,
    replace: ``,
    tests: PATHS,
  },
  // aim's credentials, by lookup.
  {
    name: "credentials-by-shape",
    guarantee:
      "An app's own token of aim's shape (43 base64url characters) reaches the app: aim's are found by lookup.",
    file: "bridge/http/credentials.ts",
    find: `    if (candidates.length > MAX_CANDIDATES) return new Set(candidates);`,
    replace: `    return new Set(candidates);`,
    tests: CREDENTIALS,
  },
  {
    name: "credentials-flood-forwarded",
    guarantee: "Past 16 candidates in one request, every candidate counts as aim's (fails closed).",
    file: "bridge/http/credentials.ts",
    find: `    if (candidates.length > MAX_CANDIDATES) return new Set(candidates);`,
    replace: `    if (candidates.length > MAX_CANDIDATES) return new Set();`,
    tests: CREDENTIALS,
  },
  {
    name: "credentials-subprotocol-unread",
    guarantee: "The tab credential and aim's token never reach the app as WebSocket subprotocols.",
    file: "bridge/http/credentials.ts",
    find: `    for (const name of CREDENTIAL_HEADERS) {`,
    replace: `    for (const name of CREDENTIAL_HEADERS.slice(0, 1)) {`,
    tests: CREDENTIALS,
  },
  {
    name: "credentials-subprotocol-offered-unfiltered",
    guarantee: "The subprotocols aim offers the app are the client's without aim's secrets.",
    file: "bridge/upstream/proxy.ts",
    find: `    const protocols = (headers.get("sec-websocket-protocol") ?? "").split(",")`,
    replace:
      `    const protocols = (request.headers.get("sec-websocket-protocol") ?? "").split(",")`,
    tests: CREDENTIALS,
  },
  {
    name: "credentials-authorization-unfiltered",
    guarantee: "aim's token never reaches the app in Authorization, in any spelling.",
    file: "bridge/upstream/headers.ts",
    find: `    if (name === "authorization" || name === "sec-websocket-protocol") {`,
    replace: `    if (name === "sec-websocket-protocol") {`,
    tests: CREDENTIALS,
  },
  {
    name: "credentials-ended-token-forwarded",
    guarantee: "A token aim issued stays aim's after its session ended: it never reaches the app.",
    file: "bridge/http/credentials.ts",
    find: `        if (known) found.add(candidate);`,
    replace:
      `        if (known && this.#sessions.holds(hashToken(candidate))) found.add(candidate);`,
    tests: CREDENTIALS,
  },
  {
    name: "credentials-store-not-asked",
    guarantee:
      "With several aims on Redis, a token of a session another instance holds never reaches the app.",
    file: "bridge/http/credentials.ts",
    find: `      if (held || !this.#sessions.share.shared) {`,
    replace: `      if (true) {`,
    tests: [...CREDENTIALS, "tests/upstream/cluster_test.ts"],
  },
  {
    name: "credentials-store-failure-forwarded",
    guarantee:
      "A shared store that cannot answer the lookup refuses the request (503); nothing is forwarded.",
    file: "bridge/upstream/proxy.ts",
    find: `        return found.then((secrets) => this.#pairs(request, from, secrets));`,
    replace:
      `        return found.catch(() => NO_SECRETS).then((secrets) => this.#pairs(request, from, secrets));`,
    tests: CREDENTIALS,
  },
  {
    name: "credentials-quotes-split",
    guarantee: "A comma inside quotes does not split a credential: the app's Digest passes whole.",
    file: "bridge/http/credentials.ts",
    find: `    if (char === '"') quoted = !quoted;`,
    replace: `    if (char === '"') quoted = false;`,
    tests: CREDENTIALS,
  },
  {
    name: "json-bearer-case",
    guarantee:
      "A page's .json with aim's token, Bearer in any case, is aim's session manifest (issue 32: Bearer's case).",
    file: "bridge/http/site_routes.ts",
    find: `/^Bearer[ \\t]+(\\S+)[ \\t]*$/i.exec(header)?.[1];`,
    replace: `/^Bearer[ \\t]+(\\S+)[ \\t]*$/.exec(header)?.[1];`,
    tests: CREDENTIALS,
  },
  // Hop-by-hop headers, both ways (issue 32: `proxy-authenticate`), each name once.
  ...HOP_BY_HOP.map((header): Mutant => ({
    name: `hop-by-hop-${header}-kept`,
    guarantee: `${header} is hop-by-hop: dropped from requests to the app and from its answers.`,
    file: "bridge/upstream/headers.ts",
    find: `  "${header}",\n`,
    replace: ``,
    tests: HOP,
  })),
  {
    name: "hop-by-hop-listed-kept-in-answers",
    guarantee: "A header the app's Connection names never reaches the client.",
    file: "bridge/upstream/headers.ts",
    find: `    if (HOP_BY_HOP.has(name) || listed.has(name) || name === "set-cookie") return;`,
    replace: `    if (HOP_BY_HOP.has(name) || name === "set-cookie") return;`,
    tests: HOP,
  },
  // Where a request came from.
  {
    name: "forwarded-client-kept",
    guarantee: "A client's Forwarded and X-Real-IP never reach the app as it wrote them.",
    file: "bridge/upstream/headers.ts",
    find: `    if (isForwarding(name) && (options.forwarded || !trusted)) return;`,
    replace: `    if (name.startsWith("x-forwarded-") && (options.forwarded || !trusted)) return;`,
    tests: FORWARDING,
  },
  {
    name: "forwarded-chain-dropped",
    guarantee: "Behind a trusted proxy, its Forwarded chain is kept with aim's hop appended.",
    file: "bridge/upstream/headers.ts",
    find: `    const earlier = trusted ? incoming.get("forwarded") : null;`,
    replace: `    const earlier = null;`,
    tests: FORWARDING,
  },
  {
    name: "forwarded-for-appends-client",
    guarantee: "X-Forwarded-For gets the address aim got the request from, not a hop repeated.",
    file: "bridge/upstream/headers.ts",
    find: "`${earlierFor}, ${options.peer}`",
    replace: "`${earlierFor}, ${options.client}`",
    tests: FORWARDING,
  },
  {
    name: "forwarded-kept-without-forwarding",
    guarantee: "With --no-forwarded, a client's forwarding headers are dropped, not passed.",
    file: "bridge/upstream/headers.ts",
    find: `    if (isForwarding(name) && (options.forwarded || !trusted)) return;`,
    replace: `    if (isForwarding(name) && options.forwarded) return;`,
    tests: FORWARDING,
  },
  // The app's answers.
  {
    name: "framing-relayed",
    guarantee:
      "An answer framed by both Transfer-Encoding and Content-Length is a 502; the client's next request is answered.",
    file: "bridge/upstream/proxy.ts",
    find: `    if (read.framedTwice) {`,
    replace: `    if (false) {`,
    tests: ANSWERS,
  },
  {
    name: "location-by-prefix",
    guarantee: "A Location is rewritten only when its origin is the app's (http://h:30001 is not).",
    file: "bridge/upstream/proxy.ts",
    find: `    if (url.origin !== this.upstream.origin) return undefined;`,
    // As it was: a prefix of the string, so http://h:3000 also took http://h:30001/….
    replace: `    if (!location.startsWith(this.upstream.origin)) return undefined;\n` +
      `    return origin + location.slice(this.upstream.origin.length);`,
    tests: ANSWERS,
  },
  {
    name: "hang-up-logged-502",
    guarantee: "A client that hangs up before the app answered is logged as 499, not 502.",
    file: "bridge/upstream/proxy.ts",
    find:
      `      if (request.signal.aborted) return new Response(null, { status: CLIENT_CLOSED_REQUEST });\n`,
    replace: ``,
    tests: ANSWERS,
  },
  // The WebSocket relay.
  {
    name: "relay-unbounded-to-app",
    guarantee:
      "A client pushing into an app that does not read is closed at the byte bound; aim's memory stays bounded.",
    file: "bridge/upstream/websocket.ts",
    find: `    if (waiting + sizeOf(data, bound - waiting) > bound) return overloaded("app");`,
    replace: ``,
    tests: [...RELAY, "tests/upstream/memory_test.ts"],
  },
  {
    name: "relay-unbounded-to-client",
    guarantee: "An app pushing to a client that does not read is closed at the byte bound.",
    file: "bridge/upstream/websocket.ts",
    find: `      if (waiting + sizeOf(data, bound - waiting) > bound) return overloaded("client");`,
    replace: ``,
    tests: RELAY,
  },
  {
    name: "relay-early-unbounded",
    guarantee: "The app's messages before the client's socket opens are bounded by bytes.",
    file: "bridge/upstream/websocket.ts",
    find: `      if (earlyBytes + size > bound) return overloaded("client");`,
    replace: ``,
    tests: RELAY,
  },
  {
    name: "relay-text-by-characters",
    guarantee: "A text message counts by its UTF-8 bytes against the bound.",
    file: "bridge/upstream/websocket.ts",
    find: `  if (data.length * 3 <= room) return data.length;`,
    replace: `  return data.length;`,
    tests: RELAY,
  },
  {
    name: "relay-client-failure-throws",
    guarantee:
      "A failing client makes the app learn 4011; aim never throws closing with a code a client may not send (1011).",
    file: "bridge/upstream/websocket.ts",
    find:
      `  client.onerror = () => closeQuietly(app, RELAY_CLOSE.clientFailed, "The client failed.");`,
    replace: `  client.onerror = () => app.close(1011);`,
    tests: RELAY,
  },
  {
    name: "relay-broken-client-as-normal",
    guarantee: "A client whose connection broke (1006) is told to the app as a failure, 4011.",
    file: "bridge/upstream/websocket.ts",
    find: `  return code === 1006 || code === 1011 ? RELAY_CLOSE.clientFailed : 1000;`,
    replace: `  return 1000;`,
    tests: RELAY,
  },
  {
    name: "relay-broken-app-as-normal",
    guarantee: "An app whose connection broke is told to the client as a failure, 1011.",
    file: "bridge/upstream/websocket.ts",
    find: `  return code === 1005 ? 1000 : RELAY_CLOSE.appFailed;`,
    replace: `  return 1000;`,
    tests: RELAY,
  },
  // The front door's one Host verdict.
  {
    name: "front-door-verdict-by-host-only",
    guarantee:
      "A Host verdict is kept per scheme and authority too: an absolute request line naming another host is refused.",
    file: "bridge/http/front_door.ts",
    find:
      `      known === undefined || known.prefix.length !== pathStart || !url.startsWith(known.prefix) ||`,
    replace: `      known === undefined ||`,
    tests: FRONT_DOOR,
  },
  {
    name: "front-door-verdict-ignores-forwarded",
    guarantee: "Behind a trusted proxy, another X-Forwarded-Host is checked again.",
    file: "bridge/http/front_door.ts",
    find: `      known.forwarded !== forwarded`,
    replace: `      false`,
    tests: FRONT_DOOR,
  },
  {
    name: "front-door-unlogged",
    guarantee: "Each request the front door forwards is logged once.",
    file: "bridge/http/front_door.ts",
    find:
      `    return log ? answered.then((response) => logged(request, path, started, response)) : answered;`,
    replace: `    return answered;`,
    tests: FRONT_DOOR,
  },
];
