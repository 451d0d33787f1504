/**
 * The types the elements publish to pages (elements/client.ts) are the wire's: `Activity`,
 * `SessionInfo` and `EndReason` are spelled out there for the page's documentation, and each is
 * checked here, at type-check time, to be exactly the tab channel's type it stands for
 * (bridge/wire/channel.ts). A field added to, removed from or retyped in either fails
 * `deno task check` (and this file's own run) until the other follows.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { BridgeMessage } from "../../bridge/wire/channel.ts";
import type { Activity, EndReason, SessionInfo } from "../../elements/client.ts";

/** True when `A` and `B` are the same type (neither wider than the other), else false. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

/** What the bridge sends of `type`. */
type Wire<T extends BridgeMessage["type"]> = Extract<BridgeMessage, { type: T }>;

Deno.test("the elements' Activity is the tab channel's activity message", () => {
  const same: Same<Activity, Wire<"activity">> = true;
  assert.equal(same, true);
});

Deno.test("the elements' SessionInfo is the tab channel's session message less settle", () => {
  const same: Same<SessionInfo, Omit<Wire<"session">, "settle">> = true;
  assert.equal(same, true);
});

Deno.test("the elements' EndReason is the bridge's ended reasons, gone and unavailable", () => {
  const same: Same<EndReason, Wire<"ended">["reason"] | "gone" | "unavailable"> = true;
  assert.equal(same, true);
});

Deno.test("Same tells a type from one with a field more, less, or optional", () => {
  const extra: Same<{ a: string }, { a: string; b: string }> = false;
  const optional: Same<{ a: string }, { a?: string }> = false;
  const wider: Same<"a", "a" | "b"> = false;
  assert.deepEqual([extra, optional, wider], [false, false, false]);
});
