/**
 * A sign-in made on one instance is not undone by another whose copy of the session has
 * not read it yet: when that instance's tab pushes a state, the shared record keeps the
 * identity, so every instance still sees the session signed in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { NO_CLUSTER } from "../helpers/cluster.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { startPair, until } from "../helpers/pair.ts";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }) },
]);

Deno.test(
  "a state pushed through an instance that has not read a sign-in keeps the session signed in",
  {
    ignore: NO_CLUSTER,
  },
  async () => {
    await using pair = await startPair({ users });
    const { a, b } = pair;
    // The tab is held on the second instance; the agent signs in through the first.
    const token = await b.openSession("/control-panel");
    await using tab = await FakeTab.open(b.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    const login = await a.invoke(token, "login", { username: "alice", password: "wonderland" });
    assert.equal(login.status, 200, await login.clone().text());
    await login.body?.cancel();
    const read = async () => {
      const res = await a.fetch("/control-panel.json", {
        headers: { Authorization: `Bearer ${token}` },
      });
      return await res.json();
    };
    assert.equal((await read()).state.authenticated, true);

    // The second instance's copy as it was before it read the sign-in (pub/sub is not instant):
    // its tab pushes a state through it.
    const copy = (await pair.served[1].bridge.core.sessions.find(token))!;
    const before = (await read()).state_version;
    copy.identity = null;
    copy.changed();
    const after = await until(read, (manifest) => manifest.state_version > before);
    assert.equal(after.state.authenticated, true, "the stale copy signed the session out");
    assert.ok(
      after.actions.some((action: { id: string }) => action.id === "logout"),
      JSON.stringify(after.actions),
    );
  },
);
