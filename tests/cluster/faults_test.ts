/**
 * Three bridges on one Redis behind HAProxy (round-robin, no stickiness): requests spread
 * over every instance, a tab is reached wherever it is, and instances and Redis fail without
 * losing a session or running an action twice.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { writeSite } from "../helpers/bridge.ts";
import { NO_CLUSTER, startCluster } from "../helpers/cluster.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";

function site(): string {
  const root = Deno.makeTempDirSync({ prefix: "aim-cluster-site-" });
  writeSite(root);
  return root;
}

function invoke(
  origin: string,
  token: string,
  actionId: string,
  input?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${origin}/__aim/invoke`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(input === undefined ? { actionId } : { actionId, input }),
  });
}

function manifest(origin: string, token: string): Promise<Response> {
  return fetch(`${origin}/control-panel.json`, { headers: { Authorization: `Bearer ${token}` } });
}

/** Polls `check` until it is true, up to `ms`: for what no event announces (a process's end). */
async function eventually(check: () => Promise<boolean>, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `promise`, or a failure naming `what` once `ms` pass. */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A tab through `origin` that holds the session's lease, heartbeating until it is granted. */
async function tabWithLease(origin: string, token: string, publicOrigin: string) {
  const tab = await FakeTab.open(origin, { token, page: "/control-panel", origin: publicOrigin });
  let granted = false;
  const watch = (event: MessageEvent) => {
    const message = JSON.parse(event.data);
    if (message.type === "lease" && message.status === "granted") granted = true;
  };
  tab.socket.addEventListener("message", watch);
  // A lease another (dead) instance held is free once that instance stops beating (3 s).
  await eventually(async () => {
    if (!granted) tab.send({ type: "heartbeat" });
    return await Promise.resolve(granted);
  }, "the lease");
  tab.socket.removeEventListener("message", watch);
  return tab;
}

Deno.test(
  "the agent's requests spread over every instance, and each reaches the tab wherever it is",
  { ignore: NO_CLUSTER },
  async () => {
    await using cluster = await startCluster({ root: site() });
    const token = await openPageSession(cluster.origin, "/control-panel");
    await using tab = await tabWithLease(cluster.origin, token, cluster.origin);
    await tab.register([{ id: "echo", handler: (input) => ({ echoed: input }) }]);
    const answered = new Set<string>();
    for (let i = 0; i < 9; i++) {
      const res = await invoke(cluster.origin, token, "echo", `call ${i}`);
      assert.equal(res.status, 200);
      assert.deepEqual((await res.json()).result, { echoed: `call ${i}` });
      answered.add(res.headers.get("X-Aim-Instance")!);
      const read = await manifest(cluster.origin, token);
      const body = await read.json();
      assert.equal(body.browser_connected, true);
      assert.ok(body.actions.some((a: { id: string }) => a.id === "echo"));
      answered.add(read.headers.get("X-Aim-Instance")!);
    }
    assert.equal(answered.size, 3, "round-robin: every instance answered");
  },
);

Deno.test(
  "with no tab on any instance an invocation is refused at once with 409 browser_not_connected",
  { ignore: NO_CLUSTER },
  async () => {
    await using cluster = await startCluster({ root: site() });
    const token = await openPageSession(cluster.origin, "/control-panel");
    for (let i = 0; i < 3; i++) {
      const res = await invoke(cluster.origin, token, "search", "x");
      assert.equal(res.status, 409);
      assert.equal((await res.json()).error, "browser_not_connected");
    }
  },
);

Deno.test("login failures count on every instance together", { ignore: NO_CLUSTER }, async () => {
  const users = createUserStore([
    { username: "bob", passwordHash: await hashPassword("builder1", { N: 1024 }) },
  ]);
  await using cluster = await startCluster({ root: site(), bridge: { users } });
  const token = await openPageSession(cluster.origin, "/control-panel");
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await invoke(cluster.origin, token, "login", { username: "bob", password: "no" });
    statuses.push(res.status);
    if (res.status === 429) assert.ok(res.headers.get("Retry-After"));
    await res.body?.cancel();
  }
  // Three failures cost nothing, on three instances; the fourth waits, whichever answers it.
  assert.deepEqual(statuses.slice(0, 3), [422, 422, 422]);
  assert.equal(statuses[3], 429);
});

Deno.test("a client's unused sessions are bounded across instances: its oldest ends everywhere", {
  ignore: NO_CLUSTER,
}, async () => {
  await using cluster = await startCluster({ root: site(), bridge: { maxFreshPerClient: 3 } });
  const tokens: string[] = [];
  for (let i = 0; i < 4; i++) tokens.push(await openPageSession(cluster.origin, "/control-panel"));
  for (const instance of cluster.instances) {
    assert.equal((await manifest(instance.url, tokens[0]!)).status, 401);
  }
  for (const token of tokens.slice(1)) {
    const res = await manifest(cluster.origin, token);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
});

Deno.test(
  "an idempotent retry on another instance gets the first answer and never runs the action twice",
  { ignore: NO_CLUSTER },
  async () => {
    await using cluster = await startCluster({ root: site() });
    const token = await openPageSession(cluster.origin, "/control-panel");
    await using tab = await tabWithLease(cluster.instances[0]!.url, token, cluster.origin);
    let runs = 0;
    await tab.register([{ id: "pay", handler: () => ({ paid: ++runs }) }]);
    const key = { "Idempotency-Key": "pay-1" };
    const answers = [];
    for (const instance of cluster.instances) {
      const res = await invoke(instance.url, token, "pay", "x", key);
      assert.equal(res.status, 200);
      answers.push((await res.json()).result);
    }
    assert.deepEqual(answers, [{ paid: 1 }, { paid: 1 }, { paid: 1 }]);
    assert.equal(runs, 1);
    const reused = await invoke(cluster.instances[2]!.url, token, "pay", "other", key);
    assert.equal(reused.status, 422);
    assert.equal((await reused.json()).error, "idempotency_key_reused");
  },
);

Deno.test(
  "Redis stopped answers 503 store_unavailable with Retry-After, and the bridges recover when it is back",
  { ignore: NO_CLUSTER },
  async () => {
    await using cluster = await startCluster({ root: site() });
    const token = await openPageSession(cluster.origin, "/control-panel");
    await using tab = await tabWithLease(cluster.instances[0]!.url, token, cluster.origin);
    await cluster.redis.stop();
    for (const instance of cluster.instances) {
      const res = await manifest(instance.url, token);
      assert.equal(res.status, 503);
      assert.ok(Number(res.headers.get("Retry-After")) > 0);
      assert.equal((await res.json()).error, "store_unavailable");
      const opened = await fetch(`${instance.url}/__aim/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: cluster.origin },
        body: JSON.stringify({ page: "/control-panel" }),
      });
      assert.equal(opened.status, 503);
      await opened.body?.cancel();
    }
    // The public manifest needs no store.
    const pub = await fetch(`${cluster.origin}/control-panel.json`);
    assert.equal(pub.status, 200);
    await pub.body?.cancel();
    // Started again without persistence: the sessions are gone (401), as after a bridge restart,
    // and the tab holding one is told that it ended.
    await cluster.redis.start();
    await eventually(async () => {
      const res = await manifest(cluster.origin, token);
      await res.body?.cancel();
      return res.status === 401;
    }, "401 after Redis came back empty");
    await eventually(async () => {
      if (tab.socket.readyState === WebSocket.OPEN) tab.send({ type: "heartbeat" });
      return await Promise.resolve(tab.socket.readyState === WebSocket.CLOSED);
    }, "the tab told its session ended");
    assert.equal((await tab.closed).code, 4001);
    for (const instance of cluster.instances) {
      await eventually(async () => {
        const fresh = await fetch(`${instance.url}/__aim/session`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Origin: cluster.origin },
          body: JSON.stringify({ page: "/control-panel" }),
        });
        await fresh.body?.cancel();
        return fresh.status === 200;
      }, `instance ${instance.port} opening sessions again`);
    }
  },
);

Deno.test(
  "an instance killed mid-invocation answers the agent with a clear error; the tab comes back through another with its session, and the action never runs twice",
  { ignore: NO_CLUSTER },
  async () => {
    await using cluster = await startCluster({ root: site(), inProcess: false });
    const [doomed, other] = cluster.instances as [
      typeof cluster.instances[0],
      typeof cluster.instances[0],
    ];
    const token = await openPageSession(cluster.origin, "/control-panel");
    const tab = await tabWithLease(doomed.url, token, cluster.origin);
    let runs = 0;
    let started!: () => void;
    const running = new Promise<void>((resolve) => started = resolve);
    await tab.register([{
      id: "pay",
      handler: () => {
        runs++;
        started();
        return new Promise(() => {});
      },
    }]);
    const key = { "Idempotency-Key": "pay-once" };
    const pending = invoke(other.url, token, "pay", "x", key);
    await running;
    const killedAt = Date.now();
    await doomed.stop("SIGKILL");
    const res = await pending;
    const body = await res.json();
    assert.equal(res.status, 409, JSON.stringify(body));
    assert.equal(body.error, "browser_not_connected");
    assert.match(body.message, /may or may not have run/);
    assert.ok(Date.now() - killedAt < 10_000, "told well within the tab timeout");
    await tab.closed;
    await tab[Symbol.asyncDispose]();
    // The page reconnects through the balancer to a live instance, with its session.
    await using back = await tabWithLease(cluster.origin, token, cluster.origin);
    let again = 0;
    await back.register([{ id: "pay", handler: () => ({ paid: ++again }) }]);
    const retry = await invoke(cluster.origin, token, "pay", "x", key);
    assert.equal(retry.status, 409);
    assert.equal((await retry.json()).error, "idempotency_key_expired");
    assert.equal(runs + again, 1, "the action ran once");
    const fresh = await invoke(cluster.origin, token, "pay", "y");
    assert.equal(fresh.status, 200);
    assert.deepEqual((await fresh.json()).result, { paid: 1 });
  },
);

Deno.test(
  "an instance stopped with SIGTERM hands its tabs over: they reconnect elsewhere and keep the session",
  { ignore: NO_CLUSTER },
  async () => {
    await using cluster = await startCluster({ root: site(), inProcess: false });
    const [draining] = cluster.instances;
    const token = await openPageSession(cluster.origin, "/control-panel");
    const tab = await tabWithLease(draining!.url, token, cluster.origin);
    await tab.register([{ id: "echo", handler: (input) => ({ echoed: input }) }]);
    await draining!.stop("SIGTERM");
    const closed = await tab.closed;
    assert.equal(closed.code, 1001, "going away, not ended");
    assert.ok(!tab.has("ended"), "the session did not end");
    await tab[Symbol.asyncDispose]();
    await using back = await tabWithLease(cluster.origin, token, cluster.origin);
    await back.register([{ id: "echo", handler: (input) => ({ echoed: input }) }]);
    const res = await invoke(cluster.origin, token, "echo", "still here");
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).result, { echoed: "still here" });
  },
);

Deno.test("a long poll on one instance wakes when the tab on another changes what the page shows", {
  ignore: NO_CLUSTER,
}, async () => {
  await using cluster = await startCluster({ root: site() });
  const [holder, poller] = cluster.instances as [
    typeof cluster.instances[0],
    typeof cluster.instances[0],
  ];
  const token = await openPageSession(cluster.origin, "/control-panel");
  await using tab = await tabWithLease(holder.url, token, cluster.origin);
  tab.setState({ requests: ["req-1"] });
  const first = await manifest(poller.url, token);
  const etag = first.headers.get("ETag")!;
  await first.body?.cancel();
  const waited = fetch(`${poller.url}/control-panel.json`, {
    headers: { Authorization: `Bearer ${token}`, "If-None-Match": etag, Prefer: "wait=20" },
  });
  // The poll is held on the other instance before the change is made.
  const started = Date.now();
  tab.setState({ requests: ["req-1", "req-2"] });
  const res = await waited;
  assert.equal(res.status, 200);
  assert.notEqual(res.headers.get("ETag"), etag);
  assert.deepEqual((await res.json()).state.requests, ["req-1", "req-2"]);
  assert.ok(Date.now() - started < 10_000, "woken by the change, not by the wait's end");
});

Deno.test("a second tab waiting on another instance takes the lease over when the first closes", {
  ignore: NO_CLUSTER,
}, async () => {
  await using cluster = await startCluster({ root: site() });
  const [first, second] = cluster.instances as [
    typeof cluster.instances[0],
    typeof cluster.instances[0],
  ];
  const token = await openPageSession(cluster.origin, "/control-panel");
  const holder = await tabWithLease(first.url, token, cluster.origin);
  await using waiting = await FakeTab.open(second.url, {
    token,
    page: "/control-panel",
    origin: cluster.origin,
  });
  const lease = await waiting.next("lease");
  assert.equal(lease.status, "waiting");
  await holder[Symbol.asyncDispose]();
  // Told by the holder's instance that the lease is free, not by its own next heartbeat.
  const granted = await waiting.next("lease");
  assert.equal(granted.status, "granted");
  await waiting.register([{ id: "echo", handler: (input) => ({ echoed: input }) }]);
  const res = await invoke(cluster.origin, token, "echo", "moved");
  assert.equal(res.status, 200);
  assert.deepEqual((await res.json()).result, { echoed: "moved" });
});

Deno.test("a session that expires in Redis while its tab is open tells the tab why and closes it", {
  ignore: NO_CLUSTER,
}, async () => {
  await using cluster = await startCluster({ root: site(), bridge: { idleMs: 1500 } });
  const token = await openPageSession(cluster.origin, "/control-panel");
  // The tab never heartbeats: nothing renews the session, and Redis lets it expire.
  await using tab = await FakeTab.open(cluster.instances[0]!.url, {
    token,
    page: "/control-panel",
    origin: cluster.origin,
  });
  await tab.next("lease");
  assert.deepEqual(await tab.next("ended"), { type: "ended", reason: "expired" });
  assert.equal((await tab.closed).code, 4001);
  const res = await manifest(cluster.origin, token);
  assert.equal(res.status, 401);
  await res.body?.cancel();
});

Deno.test(
  "a call forwarded to the tab waits the confirmation time once the person is asked, not the tab timeout",
  {
    ignore: NO_CLUSTER,
  },
  async () => {
    await using cluster = await startCluster({
      root: site(),
      bridge: { tabTimeoutMs: 300, confirmTimeoutMs: 10_000 },
    });
    const [holder, other] = cluster.instances as [
      typeof cluster.instances[0],
      typeof cluster.instances[0],
    ];
    const token = await openPageSession(cluster.origin, "/control-panel");
    await using tab = await tabWithLease(holder.url, token, cluster.origin);
    await tab.register([{ id: "pay" }]);
    tab.answerWith = "never";
    const started = Date.now();
    const pending = invoke(other.url, token, "pay", "x");
    const call = await tab.next("invoke");
    tab.send({ type: "awaiting", id: call.id, message: "Waiting for the person to approve pay" });
    // Well past the tab timeout (300 ms) and the forwarding instance's own margin (1 s).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    tab.send({ type: "result", id: call.id, ok: true, result: { paid: "x" } });
    const res = await pending;
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual((await res.json()).result, { paid: "x" });
    assert.ok(Date.now() - started >= 2000);
  },
);

Deno.test(
  "an instance stopped with SIGTERM ends its event streams without ending the session, and exits",
  {
    ignore: NO_CLUSTER,
  },
  async () => {
    await using cluster = await startCluster({ root: site(), inProcess: false });
    const [draining, other] = cluster.instances as [
      typeof cluster.instances[0],
      typeof cluster.instances[0],
    ];
    const token = await openPageSession(cluster.origin, "/control-panel");
    await using tab = await tabWithLease(other.url, token, cluster.origin);
    const res = await fetch(`${draining.url}/__aim/events`, {
      headers: { Authorization: `Bearer ${token}`, Origin: cluster.origin },
    });
    assert.equal(res.status, 200);
    const text = res.body!.pipeThrough(new TextDecoderStream());
    let seen = "";
    // The drain ends the stream; should it not, the bounded server close (2 s) cuts it, which
    // an agent sees the same way: the stream is gone without `ended`, and it reconnects.
    const read = (async () => {
      for await (const chunk of text) seen += chunk;
    })().catch(() => {});
    // A stream held open would keep the process from exiting: the test fails rather than hangs.
    await within(15_000, draining.stop("SIGTERM"), "the draining instance's exit");
    await read;
    assert.match(seen, /event: change/);
    assert.doesNotMatch(seen, /event: ended/, "the session lives on");
    const last = [...seen.matchAll(/^id: (\d+)$/gm)].at(-1)![1]!;
    // The agent reconnects through the balancer and hears the next change.
    const again = await fetch(`${cluster.origin}/__aim/events`, {
      headers: { Authorization: `Bearer ${token}`, "Last-Event-ID": last },
    });
    assert.equal(again.status, 200);
    const reader = again.body!.pipeThrough(new TextDecoderStream()).getReader();
    tab.setState({ requests: ["after the drain"] });
    let more = "";
    while (!more.includes("after the drain")) more += (await reader.read()).value ?? "";
    await reader.cancel();
  },
);
