/**
 * Where a request came from is aim's to say: `X-Forwarded-For`, `-Proto`, `-Host`, `Forwarded`
 * (RFC 7239) and `X-Real-IP` a client sends are replaced (or, with `--no-forwarded`, dropped),
 * and only a proxy aim trusts (`--trust-proxy`) keeps its chains, with aim's hop appended.
 * @module
 */
import assert from "node:assert/strict";
import { upstreamRequestHeaders } from "../../bridge/upstream/headers.ts";
import { startAim, startApp } from "../helpers/upstream.ts";

/** What a client writes to pass for someone else. */
const SPOOFED = {
  "X-Forwarded-For": "6.6.6.6",
  "X-Forwarded-Proto": "https",
  "X-Forwarded-Host": "evil.example",
  "X-Forwarded-Port": "443",
  "Forwarded": "for=6.6.6.6;host=evil.example;proto=https",
  "X-Real-IP": "6.6.6.6",
};

/** An app that answers with the forwarding headers it received. */
function echoApp() {
  return startApp((request) => {
    const seen: Record<string, string | null> = {};
    for (const name of Object.keys(SPOOFED)) seen[name.toLowerCase()] = request.headers.get(name);
    return Response.json(seen);
  });
}

Deno.test("a client's forwarding headers are replaced by aim's own, Forwarded and X-Real-IP included", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const host = new URL(aim.url).host;
  const seen = await (await fetch(`${aim.url}/page`, { headers: SPOOFED })).json();
  assert.deepEqual(seen, {
    "x-forwarded-for": "127.0.0.1",
    "x-forwarded-proto": "http",
    "x-forwarded-host": host,
    "x-forwarded-port": null,
    "forwarded": `for=127.0.0.1;host="${host}";proto=http`,
    "x-real-ip": "127.0.0.1",
  });
});

Deno.test("with --no-forwarded a client's forwarding headers are dropped, none set", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url, { proxy: { forwarded: false } });
  const seen = await (await fetch(`${aim.url}/page`, { headers: SPOOFED })).json();
  assert.ok(Object.values(seen).every((value) => value === null), JSON.stringify(seen));
});

Deno.test("behind a trusted proxy its chains are kept with aim's hop appended, and X-Real-IP is the client", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url, { trustProxy: true, proxy: { trustForwarded: true } });
  const host = new URL(aim.url).host;
  const seen = await (await fetch(`${aim.url}/page`, {
    headers: {
      "X-Forwarded-For": "203.0.113.9",
      "Forwarded": 'for=203.0.113.9;proto=https;host="shop.example"',
      "X-Real-IP": "198.51.100.1",
    },
  })).json();
  assert.equal(seen["x-forwarded-for"], "203.0.113.9, 127.0.0.1");
  assert.equal(
    seen.forwarded,
    `for=203.0.113.9;proto=https;host="shop.example", for=127.0.0.1;host="${host}";proto=http`,
  );
  // The client as aim reads it behind a trusted proxy: the last X-Forwarded-For hop.
  assert.equal(seen["x-real-ip"], "203.0.113.9");
});

Deno.test("behind a trusted proxy with --no-forwarded the proxy's headers pass as it wrote them", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url, {
    trustProxy: true,
    proxy: { forwarded: false, trustForwarded: true },
  });
  // A proxy aim trusts names a host aim answers to (the Host check reads it).
  const sent = { ...SPOOFED, "X-Forwarded-Host": "localhost" };
  const seen = await (await fetch(`${aim.url}/page`, { headers: sent })).json();
  assert.deepEqual(
    seen,
    Object.fromEntries(Object.entries(sent).map(([name, value]) => [name.toLowerCase(), value])),
  );
});

Deno.test("a Forwarded node of an IPv6 peer is bracketed and quoted", () => {
  const out = upstreamRequestHeaders(new Headers({ Host: "[::1]:8000" }), {
    client: "::1",
    peer: "::1",
    origin: "http://[::1]:8000",
    preserveHost: true,
    forwarded: true,
    trustForwarded: false,
    secrets: new Set(),
  });
  assert.equal(out.get("forwarded"), 'for="[::1]";host="[::1]:8000";proto=http');
  assert.equal(out.get("x-forwarded-for"), "::1");
  assert.equal(out.get("x-real-ip"), "::1");
});
