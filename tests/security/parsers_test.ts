/**
 * Property tests for the request parsers of the HTTP layer: whatever a client puts in `Host`,
 * `Cookie`, `Authorization`, `Idempotency-Key`, `X-Aim-Tab`, `Sec-WebSocket-Protocol` or the body,
 * the answer is a protocol answer (2xx or 4xx with an error body), never a 500 or a throw.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createBridge } from "../../bridge/mod.ts";
import { BASIC_SITE } from "../helpers/bridge.ts";
import { type TempDir, tempDir } from "../helpers/temp.ts";

/** A temporary copy of the basic site, removed on dispose. */
async function site(): Promise<TempDir> {
  const dir = await tempDir("aim-parsers-");
  for (const [path, text] of Object.entries(BASIC_SITE)) {
    Deno.mkdirSync(`${dir.path}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
    Deno.writeTextFileSync(`${dir.path}/${path}`, text);
  }
  return dir;
}

/** Header values a client can send: visible ASCII, spaces and tabs. */
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

async function answer(bridge: ReturnType<typeof createBridge>, request: Request): Promise<number> {
  const res = await bridge.fetch(request, {
    remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 },
    completed: Promise.resolve(),
  } as Deno.ServeHandlerInfo<Deno.NetAddr>);
  const status = res.status;
  if (status >= 400) {
    const body = await res.json();
    assert.equal(typeof body.error === "string" || typeof body.code === "string", true);
  } else {
    await res.body?.cancel();
  }
  return status;
}

Deno.test("request headers of any shape get a protocol answer, never a 500", async () => {
  await using root = await site();
  const bridge = createBridge({ root: root.path, allowedHosts: [] });
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          Host: headerValue,
          Cookie: headerValue,
          Authorization: headerValue,
          "Idempotency-Key": headerValue,
          "X-Aim-Tab": headerValue,
          Origin: headerValue,
        }, { requiredKeys: [] }),
        fc.constantFrom(
          "/control-panel.json",
          "/control-panel.toon",
          "/__aim/invoke",
          "/__aim/activity",
          "/__aim/session",
        ),
        async (headers, path) => {
          let request: Request;
          try {
            request = new Request(`http://127.0.0.1:8000${path}`, {
              method: path === "/__aim/invoke" || path === "/__aim/session" ? "POST" : "GET",
              headers: { "Content-Type": "application/json", ...headers },
              body: path.startsWith("/__aim/invoke") || path === "/__aim/session"
                ? '{"page":"/"}'
                : null,
            });
          } catch {
            return; // Not a request a client could send.
          }
          const status = await answer(bridge, request);
          assert.ok(status < 500, `${status} for ${JSON.stringify(headers)} ${path}`);
        },
      ),
      { numRuns: 300 },
    );
  } finally {
    bridge.close();
  }
});

Deno.test("bodies of any shape and depth get a protocol answer, never a 500", async () => {
  await using root = await site();
  const bridge = createBridge({ root: root.path, allowedHosts: [] });
  try {
    const minted = await (await bridge.fetch(
      new Request("http://127.0.0.1:8000/__aim/session", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: '{"page":"/control-panel"}',
      }),
    )).json();
    const body = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify({ actionId: "search", input: v })),
      fc.integer({ min: 1, max: 4000 }).map((n) =>
        `{"actionId":"search","input":${"[".repeat(n)}${"]".repeat(n)}}`
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.constantFrom("/__aim/invoke", "/__aim/session", "/runs"),
        async (text, path) => {
          const request = new Request(`http://127.0.0.1:8000${path}`, {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              Authorization: `Bearer ${minted.sessionToken}`,
            },
            body: text,
          });
          const status = await answer(bridge, request);
          assert.ok(status < 500, `${status} for ${text.slice(0, 60)} to ${path}`);
        },
      ),
      { numRuns: 300 },
    );
  } finally {
    bridge.close();
  }
});
