/**
 * `GET /__aim/health`'s body (bridge/http/health.ts): the server's own fields, the streams open
 * against their bounds, and the files open against the process's limit, counted at most once a
 * second.
 *
 * @module
 */
import assert from "node:assert/strict";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import { health } from "../../bridge/http/health.ts";
import { fileLimit, openFiles } from "../../bridge/utils/files.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("health() says ok, with the server's fields, the streams against their bounds and the files", async () => {
  await using dir = await tempDir();
  const core = new BridgeCore({ root: dir.path, streams: { perClient: 3, total: 7 } });
  const body = health(core, { port: 8000, upstream: "http://app" });
  assert.equal(body.status, "ok");
  assert.equal(body.port, 8000);
  assert.equal(body.upstream, "http://app");
  assert.deepEqual(body.streams, { open: 0, max: 7, maxPerClient: 3 });
  const files = body.files as { open: number | null; limit: number | null };
  const soft = fileLimit()?.soft;
  assert.equal(files.limit, soft === undefined || !Number.isFinite(soft) ? null : soft);
  assert.equal(typeof files.open, openFiles() === undefined ? "object" : "number");
  assert.ok(files.open === null || files.open > 0);
});

Deno.test("health() counts the open files at most once a second, whatever the calls", async () => {
  await using dir = await tempDir();
  const core = new BridgeCore({ root: dir.path });
  const first = (health(core).files as { open: number | null }).open;
  if (first === null) return; // no /proc: nothing is counted
  // Other test files run in this process at the same time and open and close files too: 50 more
  // of ours move the real count whatever theirs do in between.
  const opened = Array.from({ length: 50 }, () => Deno.openSync(dir.path));
  try {
    assert.notEqual(openFiles(), first, "the real count moved");
    assert.equal((health(core).files as { open: number }).open, first, "the count of a second ago");
  } finally {
    for (const file of opened) file.close();
  }
});
