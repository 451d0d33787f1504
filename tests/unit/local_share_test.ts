/**
 * LocalShare (bridge/share/local.ts): a bridge that runs alone shares nothing. It is ready at
 * once and says it is not shared, and every call that would read or write a shared store fails
 * closed (500 `server_error`) rather than answer as if nothing were kept elsewhere.
 *
 * @module
 */
import assert from "node:assert/strict";
import { LocalShare } from "../../bridge/share/local.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import type { SessionShare } from "../../bridge/share/share.ts";

/** Every method of SessionShare that reads or writes the shared store. */
const UNSHARED: readonly (keyof SessionShare)[] = [
  "create",
  "load",
  "alias",
  "update",
  "touch",
  "inUse",
  "remove",
  "acquire",
  "renew",
  "release",
  "alive",
  "forward",
  "claim",
  "outcome",
  "settle",
  "attempts",
  "fail",
  "claimAttempts",
  "forgive",
  "reset",
  "record",
  "put",
  "get",
  "del",
  "tell",
  "activity",
];

Deno.test("a local share is the instance 'local', not shared, ready and closed at once", async () => {
  const share = new LocalShare();
  assert.equal(share.instance, "local");
  assert.equal(share.shared, false);
  assert.equal(await share.ready(), undefined);
  assert.equal(await share.close(), undefined);
});

Deno.test("every call of a local share that would reach a shared store fails with 500 server_error", () => {
  const share = new LocalShare() as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of UNSHARED) {
    assert.equal(typeof share[method], "function", method);
    assert.throws(
      () => share[method]!("token-hash", "x"),
      (error: unknown) => {
        assert.ok(error instanceof AimError, method);
        assert.equal(error.code, "server_error", method);
        assert.equal(error.status, 500, method);
        assert.match(error.message, /runs alone shares nothing/);
        return true;
      },
      method,
    );
  }
});

Deno.test("a local share's listeners, signals and watches do nothing and throw nothing", () => {
  const share: SessionShare = new LocalShare();
  let called = false;
  share.listen("topic", () => called = true);
  share.signal("session", { type: "released" });
  const stop = share.watch("session", () => called = true);
  assert.equal(typeof stop, "function");
  stop();
  share.serve(() => {
    called = true;
    return Promise.reject(new Error("never"));
  });
  assert.equal(called, false);
});
