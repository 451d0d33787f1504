/**
 * Unit tests of bridge/core/actions.ts `ActionRegistry`: which actions a session offers in each
 * login state (every availability, protected or not, signed in or out), which one an invocation
 * finds (a server action first, a protected one too, then the tab's, live or last known), the
 * ids a page may not reuse in any case, and the interning of specs.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ActionRegistry, intern } from "../../bridge/core/actions.ts";
import type { ActionAvailability, ServerAction } from "../../bridge/core/server_actions.ts";
import type { Session } from "../../bridge/core/session.ts";
import type { ActionSpec } from "../../bridge/input/action_spec.ts";
import { MarkupError } from "../../bridge/markup/action.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";

/** A server action that takes no input. */
function server(
  id: string,
  more: { available?: ActionAvailability; protected?: boolean; consequential?: boolean } = {},
): ServerAction {
  return {
    id,
    description: `Server ${id}`,
    input_schema: { type: "object", properties: {}, additionalProperties: false },
    input_example: {},
    ...more,
    run: () => null,
  };
}

/** A spec as a tab registers it. */
function tabSpec(id: string, protectedAction = false): ActionSpec {
  return {
    id,
    description: `Tab ${id}`,
    input_schema: { type: "object", properties: {}, additionalProperties: false },
    input_example: {},
    consequential: false,
    protected: protectedAction,
  } as ActionSpec;
}

/** The parts of a session the registry reads. */
function session(
  options: { signedIn?: boolean; connected?: boolean; actions?: ActionSpec[]; last?: ActionSpec[] },
): Session {
  return {
    identity: options.signedIn ? { id: "alice" } : null,
    tab: {
      connected: options.connected ?? true,
      actions: options.actions ?? [],
      lastActions: options.last ?? [],
    },
  } as unknown as Session;
}

const ids = (specs: readonly ActionSpec[]) => specs.map((spec) => spec.id);

Deno.test("a server action is listed by its availability, and a protected one only signed in", () => {
  const rows: [Parameters<typeof server>[1], boolean, boolean][] = [
    // options, listed signed out, listed signed in
    [{}, true, true],
    [{ available: "always" }, true, true],
    [{ available: "signed_in" }, false, true],
    [{ available: "signed_out" }, true, false],
    [{ protected: true }, false, true],
    [{ protected: true, available: "signed_out" }, false, true],
    [{ protected: true, available: "always" }, false, true],
  ];
  for (const [options, signedOut, signedIn] of rows) {
    const registry = new ActionRegistry([server("act", options)]);
    assert.deepEqual(
      ids(registry.available(false)),
      signedOut ? ["act"] : [],
      JSON.stringify(options),
    );
    assert.deepEqual(
      ids(registry.available(true)),
      signedIn ? ["act"] : [],
      JSON.stringify(options),
    );
    // The public catalog lists it whatever it needs.
    assert.deepEqual(ids(registry.public()), ["act"]);
  }
});

Deno.test("a server action's spec says consequential and protected only when it does", () => {
  const registry = new ActionRegistry([
    server("plain"),
    server("asks", { consequential: true }),
    server("guarded", { protected: true }),
  ]);
  const specs = Object.fromEntries(registry.public().map((spec) => [spec.id, spec]));
  assert.deepEqual(specs.plain, {
    id: "plain",
    description: "Server plain",
    input_schema: { type: "object", properties: {}, additionalProperties: false },
    input_example: {},
    consequential: false,
    protected: false,
    read_only: false,
  });
  assert.equal(specs.asks!.consequential, true);
  assert.equal(specs.asks!.protected, false);
  assert.equal(specs.guarded!.protected, true);
  assert.equal(specs.guarded!.consequential, false);
});

Deno.test("a server action registered twice, or one that is not valid, stops the bridge from starting", () => {
  assert.throws(
    () => new ActionRegistry([server("approve"), server("approve")]),
    (error) =>
      error instanceof Error && error.message === 'Server action "approve" is registered twice',
  );
  assert.throws(() => new ActionRegistry([server("not an id")]), MarkupError);
  assert.throws(() => new ActionRegistry([server("aim_read_page")]), MarkupError);
});

Deno.test("has() says a server action's id or a built-in id is taken, in any case, with users or not", () => {
  const registry = new ActionRegistry([server("approve")]);
  for (
    const id of [
      "approve",
      "APPROVE",
      "Approve",
      "login",
      "LOGIN",
      "Logout",
      "disconnect",
      "DisConnect",
    ]
  ) {
    assert.equal(registry.has(id), true, id);
  }
  for (const id of ["approve2", "log", "reject", ""]) assert.equal(registry.has(id), false, id);
  assert.equal(new ActionRegistry([]).has("Login"), true);
});

Deno.test("a session offers the server's actions first, then its tab's, protected ones signed in only", () => {
  const registry = new ActionRegistry([
    server("in", { available: "signed_in" }),
    server("out", {
      available: "signed_out",
    }),
  ]);
  const actions = [tabSpec("open"), tabSpec("guarded", true)];
  assert.deepEqual(ids(registry.forSession(session({ actions }))), ["out", "open"]);
  assert.deepEqual(ids(registry.forSession(session({ actions, signedIn: true }))), [
    "in",
    "open",
    "guarded",
  ]);
});

Deno.test("find() takes a server action available now, or a protected one (to answer 403), before the tab's", () => {
  const guarded = server("guarded", { protected: true });
  const out = server("out", { available: "signed_out" });
  const registry = new ActionRegistry([guarded, out]);
  const signedOut = session({ actions: [tabSpec("out"), tabSpec("tabbed")] });
  const found = registry.find(signedOut, "guarded");
  assert.equal(found.server, guarded);
  assert.equal(found.spec.id, "guarded");
  assert.equal(found.spec.protected, true);
  assert.equal(registry.find(signedOut, "out").server, out);
  // Signed in, the signed-out action is not available: the tab's of that id is found.
  const signedIn = session({ signedIn: true, actions: [tabSpec("out")] });
  const tabOut = registry.find(signedIn, "out");
  assert.equal(tabOut.server, undefined);
  assert.equal(tabOut.spec.description, "Tab out");
  assert.equal(registry.find(signedIn, "guarded").server, guarded);
  assert.deepEqual(Object.keys(registry.find(signedOut, "tabbed")), ["spec"]);
});

Deno.test("find() reads the live tab's actions while it is connected, its last ones while it is not", () => {
  const registry = new ActionRegistry([]);
  const live = session({ connected: true, actions: [tabSpec("now")], last: [tabSpec("before")] });
  assert.equal(registry.find(live, "now").spec.id, "now");
  assert.throws(() => registry.find(live, "before"), AimError);
  const away = session({ connected: false, actions: [tabSpec("now")], last: [tabSpec("before")] });
  assert.equal(registry.find(away, "before").spec.id, "before");
  assert.throws(() => registry.find(away, "now"), AimError);
});

Deno.test("find() answers unknown_action with the actions the session offers, for an id in another case too", () => {
  const registry = new ActionRegistry([
    server("approve"),
    server("in", { available: "signed_in" }),
  ]);
  const s = session({ actions: [tabSpec("open"), tabSpec("guarded", true)] });
  for (const id of ["nothing", "APPROVE", "Open"]) {
    assert.throws(
      () => registry.find(s, id),
      (error) => {
        assert.ok(error instanceof AimError);
        assert.equal(error.code, "unknown_action");
        assert.equal(error.status, 404);
        assert.equal(error.message, `No action "${id}" is registered for this session now.`);
        assert.deepEqual(error.details, { available_actions: ["approve", "open"] });
        return true;
      },
    );
  }
});

Deno.test("intern() gives one object per distinct spec", () => {
  const a = tabSpec("shared");
  const b = tabSpec("shared");
  const c = tabSpec("other");
  assert.equal(intern(a), a);
  assert.equal(intern(b), a);
  assert.equal(intern(c), c);
  assert.notEqual(intern(tabSpec("shared", true)), a);
});
