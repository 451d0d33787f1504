/**
 * The front door's decisions (bridge/http/front_door.ts), without a bridge: an app door that
 * records what it is asked, and a hot path whose answers the test sets. Which request goes to
 * the app, with which origin and addresses; which spelling is refused (400, never forwarded);
 * which is left to the router (aim's routes, a refused Host, anything the hot path does not
 * take); one Host verdict per scheme, authority, `Host` and forwarded headers; each answer
 * logged once with its path and time; an error answered as the router answers it.
 * @module
 */
import assert from "node:assert/strict";
import type { BridgeCore } from "../../bridge/core/bridge.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import {
  ambiguousPath,
  type AppDoor,
  fastReads,
  frontDoor,
  type FrontDoorOptions,
  type PathVerdict,
  type RequestFrom,
} from "../../bridge/http/front_door.ts";
import type { RequestLogEntry } from "../../bridge/http/middleware.ts";
import type { ManifestReadsOptions } from "../../bridge/http/fast_reads.ts";
import { expectError } from "../helpers/errors.ts";

/** An app door: paths' verdicts as given (else the app's), and every forward recorded. */
function appDoor(
  verdicts: Record<string, PathVerdict> = {},
  answer: (request: Request) => Promise<Response> = () => Promise.resolve(new Response("app")),
) {
  const asked: string[] = [];
  const forwarded: { url: string; from: RequestFrom }[] = [];
  const door: AppDoor = {
    verdict: (path) => {
      asked.push(path);
      return verdicts[path] ?? "app";
    },
    forward: (request, from) => {
      forwarded.push({ url: request.url, from });
      return answer(request);
    },
  };
  return { door, asked, forwarded };
}

/** A core whose every page is known, with no session: the hot path answers public reads. */
const CORE = {
  catalog: { knownAgentPage: (page: string) => ({ page }) },
  sessions: { findHere: () => undefined },
} as unknown as BridgeCore;

/** Public manifests the hot path has "encoded": `<format> <origin>` of every page. */
function publics(): ManifestReadsOptions {
  return {
    manifests: {} as ManifestReadsOptions["manifests"],
    publics: {
      get: (_info: unknown, format: string, origin: string) => `${format} ${origin}`,
    } as unknown as ManifestReadsOptions["publics"],
  };
}

const INFO = {
  remoteAddr: { transport: "tcp", hostname: "192.0.2.7", port: 5000 },
} as Deno.ServeHandlerInfo;

function door(options: Partial<FrontDoorOptions>) {
  return frontDoor(CORE, { ...publics(), allowedHosts: ["shop.example"], ...options });
}

function get(url: string, headers: Record<string, string> = {}, method = "GET"): Request {
  return new Request(url, { method, headers: { Host: new URL(url).host, ...headers } });
}

Deno.test("the app's paths are forwarded with the origin, the client and the peer; the verdict reads the path without its query", async () => {
  const app = appDoor();
  const handle = door({ app: app.door, fastReads: false });
  const answer = await handle(get("http://shop.example/page?x=1"), INFO);
  assert.equal(await answer!.text(), "app");
  assert.deepEqual(app.asked, ["/page"]);
  const from = { origin: "http://shop.example", client: "192.0.2.7", peer: "192.0.2.7" };
  assert.deepEqual(app.forwarded, [{ url: "http://shop.example/page?x=1", from }]);
  // Without a trusted proxy, X-Forwarded-For is the client's to write: the client is the peer.
  await handle(get("http://shop.example/page", { "X-Forwarded-For": "203.0.113.1" }), INFO);
  assert.equal(app.forwarded.at(-1)!.from.client, "192.0.2.7");
  app.forwarded.pop();
  // Without the socket's peer (a test's request), the addresses are unknown.
  await handle(get("http://shop.example/other"));
  assert.deepEqual(app.forwarded[1]!.from, {
    origin: "http://shop.example",
    client: "unknown",
    peer: "unknown",
  });
});

Deno.test("behind a trusted proxy the client is the last forwarded hop and the origin the forwarded one", async () => {
  const app = appDoor();
  const handle = door({ app: app.door, trustProxy: true });
  const request = get("http://shop.example/page", {
    "X-Forwarded-For": "203.0.113.1, 198.51.100.2",
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "shop.example",
  });
  await (await handle(request, INFO))!.body?.cancel();
  assert.deepEqual(app.forwarded[0]!.from, {
    origin: "https://shop.example",
    client: "198.51.100.2",
    peer: "192.0.2.7",
  });
  // Without X-Forwarded-For the client is the peer.
  await (await handle(get("http://shop.example/page"), INFO))!.body?.cancel();
  assert.equal(app.forwarded[1]!.from.client, "192.0.2.7");
});

Deno.test("a spelling of aim's routes is refused 400 with aim's headers, never forwarded, and logged once", async () => {
  const entries: RequestLogEntry[] = [];
  const app = appDoor({ "/__aim;x/tab": "ambiguous" });
  const handle = door({
    app: app.door,
    fastReads: false,
    instance: "aim-1",
    log: (entry) => entries.push(entry),
  });
  const res = await handle(get("http://shop.example/__aim;x/tab?q=1"), INFO);
  await expectError(res!, 400, "bad_request", {
    "cache-control": "private, no-store",
    "x-aim-instance": "aim-1",
  });
  assert.deepEqual(app.forwarded, []);
  assert.deepEqual(entries.map(({ method, path, status }) => ({ method, path, status })), [
    { method: "GET", path: "/__aim;x/tab", status: 400 },
  ]);
  // Refused the same without a log.
  const quiet = door({ app: app.door, fastReads: false });
  await expectError(
    (await quiet(get("http://shop.example/__aim;x/tab"), INFO))!,
    400,
    "bad_request",
  );
  assert.equal(
    ambiguousPath("/p").message,
    "The path /p spells one of aim's routes in a way servers read differently (an escape, a " +
      "';' parameter, a doubled slash, a dot segment or another case); send it as the route " +
      "is named.",
  );
  // The path is told in its first 200 characters.
  const long = ambiguousPath(`/${"x".repeat(300)}`).message;
  assert.ok(long.includes(` /${"x".repeat(199)} spells`), long);
});

Deno.test("aim's routes, and a manifest path the hot path does not take, are left to the router", () => {
  const app = appDoor({ "/__aim/tab": "aim", "/page.json": "manifest" });
  const handle = door({ app: app.door, fastReads: false });
  for (const url of ["http://shop.example/__aim/tab", "http://shop.example/page.json"]) {
    assert.equal(handle(get(url), INFO), undefined, url);
  }
  assert.deepEqual(app.forwarded, []);
});

Deno.test("a Host the bridge does not answer to is left to the router, which refuses it: never forwarded, never refused here", () => {
  const app = appDoor({ "/__aim;x": "ambiguous" });
  const handle = door({ app: app.door, fastReads: false });
  for (const url of ["http://evil.example/page", "http://evil.example/__aim;x"]) {
    assert.equal(handle(get(url), INFO), undefined, url);
  }
  // A Host that is no host at all: the same.
  const bad = new Request("http://shop.example/page", { headers: { Host: "a b" } });
  assert.equal(handle(bad, INFO), undefined);
  assert.deepEqual(app.forwarded, []);
});

Deno.test("a remembered Host verdict holds only for the same scheme, authority and forwarded headers", async () => {
  const app = appDoor();
  const ok = async (handle: ReturnType<typeof door>, request: Request) => {
    const res = handle(request, INFO);
    assert.ok(res !== undefined, request.url);
    await (await res).body?.cancel();
  };
  const handle = door({ app: app.door, fastReads: false });
  const host = { Host: "shop.example" };
  // The same Host header, another authority in the request line: checked again, refused,
  // whether it is as long as the one remembered, begins with it or ends with it.
  const others = [
    "http://evil.example/a",
    "http://shop.example.evil/a",
    "http://evil.example/http://shop.example",
  ];
  for (const url of others) {
    await ok(handle, get("http://shop.example/a"));
    assert.equal(handle(get(url, host), INFO), undefined, url);
  }
  app.forwarded.splice(0);
  await ok(handle, get("http://shop.example/a"));
  // Another scheme: its own verdict, and its own origin.
  await ok(handle, get("https://shop.example/a", host));
  // Behind a trusted proxy: another X-Forwarded-Host, then another X-Forwarded-Proto.
  const trusted = door({ app: app.door, trustProxy: true, fastReads: false });
  const shop = { ...host, "X-Forwarded-Host": "shop.example" };
  await ok(trusted, get("http://shop.example/a", shop));
  const evil = { ...host, "X-Forwarded-Host": "evil.example" };
  assert.equal(trusted(get("http://shop.example/a", evil), INFO), undefined);
  await ok(trusted, get("http://shop.example/a", shop));
  await ok(trusted, get("http://shop.example/b", { ...shop, "X-Forwarded-Proto": "https" }));
  assert.deepEqual(app.forwarded.map(({ from }) => from.origin), [
    "http://shop.example",
    "https://shop.example",
    "http://shop.example",
    "http://shop.example",
    "https://shop.example",
  ]);
});

Deno.test("a verdict remembered for a request without Host is never one for a Host header, nor one Host's for another", async () => {
  const app = appDoor();
  const handle = door({ app: app.door, fastReads: false });
  // HTTP/2 has no Host header: the authority is the URL's.
  await (await handle(new Request("http://shop.example/a"), INFO))!.body?.cancel();
  // And one Host's verdict is never another's.
  await (await handle(get("http://shop.example/a"), INFO))!.body?.cancel();
  assert.equal(app.forwarded.length, 2);
  // Hosts that are no host names, and one the bridge does not answer to, with the same URL.
  for (const host of ["a b", "Stryker was here!", "x/y", "evil.example"]) {
    const request = new Request("http://shop.example/a", { headers: { Host: host } });
    assert.equal(handle(request, INFO), undefined, host);
  }
  assert.equal(app.forwarded.length, 2);
});

Deno.test("without a trusted proxy, forwarded headers change nothing of a remembered verdict", async () => {
  const app = appDoor();
  const handle = door({ app: app.door, fastReads: false });
  for (const forwardedHost of ["shop.example", "evil.example"]) {
    const request = get("http://shop.example/a", { "X-Forwarded-Host": forwardedHost });
    await (await handle(request, INFO))!.body?.cancel();
  }
  assert.deepEqual(app.forwarded.map(({ from }) => from.origin), [
    "http://shop.example",
    "http://shop.example",
  ]);
});

Deno.test("an app that fails is answered as the router answers: the proxy's AimError as it is, a bug as a logged 500", async () => {
  const errors: unknown[] = [];
  const bug = new Error("a bug");
  const app = appDoor({}, (request) =>
    Promise.reject(
      request.url.endsWith("/gateway") ? new AimError("bad_gateway", "The app failed.") : bug,
    ));
  const handle = door({
    app: app.door,
    fastReads: false,
    instance: "aim-2",
    onError: (error) => errors.push(error),
  });
  await expectError((await handle(get("http://shop.example/gateway"), INFO))!, 502, "bad_gateway", {
    "x-aim-instance": "aim-2",
  });
  assert.deepEqual(errors, []);
  await expectError((await handle(get("http://shop.example/bug"), INFO))!, 500, "server_error", {
    "x-aim-instance": "aim-2",
  });
  assert.deepEqual(errors, [bug]);
  // Without onError, a bug is answered all the same.
  const unlogged = door({ app: app.door, fastReads: false });
  await expectError((await unlogged(get("http://shop.example/bug"), INFO))!, 500, "server_error");
  // Without an instance, no instance header.
  const single = door({ app: app.door, fastReads: false });
  const res = (await single(get("http://shop.example/gateway"), INFO))!;
  assert.equal(res.headers.get("x-aim-instance"), null);
  await res.body?.cancel();
});

Deno.test("each answer the front door gives is logged once with its path and the time it took, to a tenth of a millisecond", async () => {
  const now = performance.now;
  let clock = 1000;
  performance.now = () => clock;
  try {
    const entries: RequestLogEntry[] = [];
    const app = appDoor({ "/page.json": "manifest" }, () => {
      clock += 12.34;
      return Promise.resolve(new Response("app", { status: 201 }));
    });
    const handle = door({ app: app.door, log: (entry) => entries.push(entry) });
    await (await handle(get("http://shop.example/items?page=2", {}, "POST"), INFO))!.text();
    clock += 0.26;
    const read = handle(get("http://shop.example/page.json"), INFO) as Response;
    assert.equal(await read.text(), "json http://shop.example");
    assert.deepEqual(entries, [
      { method: "POST", path: "/items", status: 201, ms: 12.3 },
      { method: "GET", path: "/page.json", status: 200, ms: 0 },
    ]);
  } finally {
    performance.now = now;
  }
});

Deno.test("the hot path takes a plain GET of a .json or .toon from an allowed Host only", async () => {
  const handle = door({});
  const table: [Request, string | undefined][] = [
    [get("http://shop.example/page.json"), "json http://shop.example"],
    [get("http://shop.example/page.toon"), "toon http://shop.example"],
    [get("http://shop.example/page.json?x=1"), undefined],
    [get("http://shop.example/page.json", {}, "HEAD"), undefined],
    [get("http://shop.example/page.json", {}, "POST"), undefined],
    [get("http://shop.example/page.html"), undefined],
    [get("http://shop.example/page"), undefined],
    [get("http://evil.example/page.json"), undefined],
    [get("http://shop.example/page.json", { Cookie: "a=1" }), undefined],
  ];
  const entries: RequestLogEntry[] = [];
  const logged = door({ log: (entry) => entries.push(entry) });
  for (const [request, text] of table) {
    const answer = handle(request, INFO) as Response | undefined;
    assert.equal(answer && await answer.text(), text, `${request.method} ${request.url}`);
    // Logged or not, what the hot path leaves is the router's, and only its answers are logged.
    const again = logged(request.clone(), INFO) as Response | undefined;
    assert.equal(again && await again.text(), text, `${request.method} ${request.url}, logged`);
  }
  assert.equal(entries.length, 2);
  // fastReads() is that hot path alone.
  const reads = fastReads(CORE, { ...publics(), allowedHosts: ["shop.example"] });
  assert.equal(await reads(get("http://shop.example/p.toon"))!.text(), "toon http://shop.example");
});

Deno.test("in front of an app, the hot path takes aim's and manifest paths only, and none with fast reads off or a trusted proxy", async () => {
  const app = appDoor({ "/page.json": "manifest", "/a.toon": "aim" });
  const handle = door({ app: app.door });
  assert.equal(
    await (handle(get("http://shop.example/page.json"), INFO) as Response).text(),
    "json http://shop.example",
  );
  assert.equal(
    await (handle(get("http://shop.example/a.toon"), INFO) as Response).text(),
    "toon http://shop.example",
  );
  for (const options of [{ fastReads: false }, { trustProxy: true }]) {
    const off = door({ ...options });
    assert.equal(off(get("http://shop.example/page.json"), INFO), undefined);
    const withApp = door({ ...options, app: app.door });
    assert.equal(withApp(get("http://shop.example/page.json"), INFO), undefined);
  }
  // Nothing at all to do: every request is the router's, none looked at.
  assert.equal(door({ fastReads: false })(get("http://shop.example/x.json")), undefined);
});
