/**
 * Failed logins are throttled per (account, client address)
 * and per session, never per account alone, so nobody can lock another person out; the gate of
 * password checks is shared fairly, so a flood from one address leaves others their place.
 * Over real HTTP, with clients told apart by `X-Forwarded-For` behind `--trust-proxy`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createUserStore, hashPassword, type UserStore } from "../../bridge/mod.ts";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";

const A = { "X-Forwarded-For": "203.0.113.7" };
const B = { "X-Forwarded-For": "198.51.100.2" };

// A small scrypt cost keeps the checks fast; the throttle does not depend on it.
const bob = await hashPassword("correct horse", { N: 1024 });

async function login(
  bridge: TestBridge,
  from: Record<string, string>,
  username: string,
  password: string,
  token?: string,
): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  token ??= await bridge.openSession("/control-panel");
  const res = await bridge.invoke(token, "login", { username, password }, from);
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
}

Deno.test("five wrong passwords for bob from five sessions of one client never make bob wait at another client", async () => {
  await using bridge = await startBridge({
    users: createUserStore([{ username: "bob", passwordHash: bob }]),
    trustProxy: true,
    // Waits longer than the address's turns at logins take (one a second after four).
    loginAttempts: { baseDelayMs: 10_000 },
  });
  const wrong = [];
  for (let i = 0; i < 5; i++) wrong.push(await login(bridge, A, "bob", `guess ${i}`));
  assert.deepEqual(wrong.map((r) => r.status), [422, 422, 422, 429, 429]);
  // The guessing client waits a short, bounded time, and is told how long.
  const waited = Number(wrong[4]?.retryAfter);
  assert.ok(waited >= 1 && waited <= 30, `Retry-After: ${wrong[4]?.retryAfter}`);
  for (const r of wrong) assert.ok(!JSON.stringify(r.body).includes("guess"));
  // Bob, from his own address, signs in at once.
  const real = await login(bridge, B, "BOB", "correct horse");
  assert.equal(real.status, 200, JSON.stringify(real.body));
  assert.equal(real.retryAfter, null);
  // And the guessing client's wait is still its own.
  assert.equal((await login(bridge, A, "bob", "correct horse")).status, 429);
});

Deno.test("a flood of 50 concurrent unknown-user logins from one client leaves a real login from another client its place", async () => {
  const store = createUserStore([{ username: "bob", passwordHash: bob }]);
  let floodChecks = 0;
  let mostAtOnce = 0;
  let flooding!: () => void;
  const floodStarted = new Promise<void>((resolve) => flooding = resolve);
  // The store the bridge calls: it counts the flood's password checks under way at once.
  const users: UserStore = {
    async verify(username, password) {
      if (!username.startsWith("ghost")) return await store.verify(username, password);
      mostAtOnce = Math.max(mostAtOnce, ++floodChecks);
      flooding();
      try {
        return await store.verify(username, password);
      } finally {
        floodChecks--;
      }
    },
  };
  await using bridge = await startBridge({ users, trustProxy: true });
  const tokens = await Promise.all(
    Array.from({ length: 51 }, () => bridge.openSession("/control-panel")),
  );
  const flood = tokens.slice(0, 50).map((token, i) =>
    login(bridge, A, `ghost-${i}`, "whatever", token)
  );
  await floodStarted;
  const real = await login(bridge, B, "bob", "correct horse", tokens[50]);
  assert.equal(real.status, 200, JSON.stringify(real.body));
  const answers = await Promise.all(flood);
  assert.ok(answers.every((r) => r.status === 422 || r.status === 429));
  assert.ok(answers.some((r) => r.status === 429), "most of the flood is refused at once");
  // Its address's share: half the places.
  assert.ok(mostAtOnce >= 1 && mostAtOnce <= 4, `${mostAtOnce} of the flood's checks at once`);
});

Deno.test("wrong logins sent at once from one client get no more free tries than one after another", async () => {
  await using bridge = await startBridge({
    users: createUserStore([{ username: "bob", passwordHash: bob }]),
    trustProxy: true,
    // Waits longer than the address's turns at logins take (one a second after four).
    loginAttempts: { baseDelayMs: 10_000 },
  });
  const tokens = await Promise.all(
    Array.from({ length: 6 }, () => bridge.openSession("/control-panel")),
  );
  // Two are checked at once, four wait in line: those see the failures that came meanwhile.
  const answers = await Promise.all(
    tokens.map((token, i) => login(bridge, A, "bob", `guess ${i}`, token)),
  );
  const statuses = answers.map((r) => r.status).sort();
  assert.deepEqual(statuses, [422, 422, 422, 429, 429, 429]);
});

Deno.test("a flood of logins at one account from behind a shared address leaves a person there their own login", async () => {
  const store = createUserStore([
    { username: "bob", passwordHash: bob },
    { username: "alice", passwordHash: bob },
  ]);
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  let flooding!: () => void;
  const floodStarted = new Promise<void>((resolve) => flooding = resolve);
  // The flood's password checks last until the person's login was answered.
  const users: UserStore = {
    async verify(username, password) {
      if (username === "bob") {
        flooding();
        await held;
      }
      return await store.verify(username, password);
    },
  };
  await using bridge = await startBridge({ users, trustProxy: true });
  const tokens = await Promise.all(
    Array.from({ length: 17 }, () => bridge.openSession("/control-panel")),
  );
  // Sixteen guesses at bob from the office's one address, at once.
  const flood = tokens.slice(0, 16).map((token, i) => login(bridge, A, "bob", `guess ${i}`, token));
  await floodStarted;
  // Alice, behind the same address, signs in at once, while the guesses are still checked.
  const real = await login(bridge, A, "alice", "correct horse", tokens[16]);
  release();
  assert.equal(real.status, 200, JSON.stringify(real.body));
  const answers = await Promise.all(flood);
  assert.ok(answers.every((r) => r.status === 422 || r.status === 429));
  assert.ok(answers.filter((r) => r.status === 429).length >= 10, "most guesses refused");
});
