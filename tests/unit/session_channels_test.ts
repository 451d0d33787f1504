/**
 * The tab channel options every session of a store shares (bridge/core/session_channels.ts),
 * imported directly with a fake shared store: each hook reaches the session it is given; alone,
 * the lease is the process's; shared, the lease is taken, renewed and let go in the store, a
 * renewal refused loses it, a release is signalled, and a store that fails is reported.
 *
 * @module
 */
import assert from "node:assert/strict";
import { sessionChannels } from "../../bridge/core/session_channels.ts";
import { DEFAULTS } from "../../bridge/core/limits.ts";
import type { Session } from "../../bridge/core/session.ts";
import type { SessionShare } from "../../bridge/share/share.ts";

/** A session that counts its changes. */
function sessionOf(id: string) {
  const session = { id, tokenHash: `hash-${id}`, changes: 0, changed: () => session.changes++ };
  return session as unknown as Session & { changes: number };
}

/** A fake store: what it was asked, and what `renew` answers. */
function shareOf(shared: boolean, options: { renews?: boolean; fails?: boolean } = {}) {
  const calls: string[] = [];
  const settle = <T>(value: T) =>
    options.fails ? Promise.reject(new Error("down")) : Promise.resolve(value);
  const share = {
    shared,
    acquire: (hash: string, ms: number) => (calls.push(`acquire ${hash} ${ms}`), settle(0)),
    renew: (
      hash: string,
      ms: number,
    ) => (calls.push(`renew ${hash} ${ms}`), settle(options.renews ?? true)),
    release: (hash: string) => (calls.push(`release ${hash}`), settle(undefined)),
    signal: (
      id: string,
      message: unknown,
    ) => (calls.push(`signal ${id} ${JSON.stringify(message)}`), Promise.resolve()),
  } as unknown as SessionShare;
  return { share, calls };
}

/** The options with hooks that say what they were told. */
function channelsOf(share: SessionShare, leaseMs?: number) {
  const told: string[] = [];
  const options = sessionChannels({
    store: {
      maxMessageBytes: 1234,
      ...(leaseMs === undefined ? {} : { leaseMs }),
      onGrant: (s: Session) => told.push(`grant ${s.id}`),
    } as never,
    share,
    onHeartbeat: (s) => told.push(`heartbeat ${s.id}`),
    onGuests: (s) => told.push(`guests ${s.id}`),
    onLeaseLost: (s) => (told.push(`lost ${s.id}`), Promise.resolve()),
    onError: (e) => told.push(`error ${(e as Error).message}`),
  });
  return { options, told };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("sessionChannels() keeps the store's options and sends each hook to the session it is given", () => {
  const { options, told } = channelsOf(shareOf(false).share);
  assert.equal((options as { maxMessageBytes?: number }).maxMessageBytes, 1234);
  const a = sessionOf("a");
  options.onHeartbeat!(a);
  options.onGrant!(a);
  options.onGuests!(a);
  options.onChange!(a);
  options.onChange!(a);
  assert.deepEqual(told, ["heartbeat a", "grant a", "guests a"]);
  assert.equal(a.changes, 2, "a change gives the session a new version");
});

Deno.test("sessionChannels() alone leaves the lease to the process: no acquire, renew or release", () => {
  const { options } = channelsOf(shareOf(false).share);
  assert.deepEqual([options.acquire, options.renew, options.release], [
    undefined,
    undefined,
    undefined,
  ]);
});

Deno.test("sessionChannels() shared takes, renews and lets go of the lease in the store, for the store's lease time", async () => {
  const { share, calls } = shareOf(true);
  const { options, told } = channelsOf(share, 7000);
  const a = sessionOf("a");
  assert.equal(await options.acquire!(a), 0);
  options.renew!(a);
  options.release!(a);
  await settled();
  assert.deepEqual(calls, [
    "acquire hash-a 7000",
    "renew hash-a 7000",
    "release hash-a",
    'signal a {"type":"released"}',
  ]);
  assert.deepEqual(told, []);
  const defaults = shareOf(true);
  await channelsOf(defaults.share).options.acquire!(a);
  assert.deepEqual(defaults.calls, [`acquire hash-a ${DEFAULTS.leaseMs}`]);
});

Deno.test("sessionChannels() shared says the lease is lost when the store does not renew it, and reports a store that fails", async () => {
  const lost = channelsOf(shareOf(true, { renews: false }).share);
  lost.options.renew!(sessionOf("a"));
  await settled();
  assert.deepEqual(lost.told, ["lost a"]);
  const failing = shareOf(true, { fails: true });
  const down = channelsOf(failing.share);
  down.options.renew!(sessionOf("a"));
  down.options.release!(sessionOf("a"));
  await settled();
  assert.deepEqual(down.told, ["error down", "error down"]);
  assert.ok(
    !failing.calls.some((c) => c.startsWith("signal")),
    "no release is signalled that did not happen",
  );
});
