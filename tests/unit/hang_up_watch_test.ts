/**
 * Unit tests of bridge/http/hang_up.ts `watchHangUp` on real TCP connections, without a bridge:
 * a client that closes its end (the bridge's end in `CLOSE_WAIT`) or resets it (the bridge's end
 * gone from the kernel's table) aborts the signal, over IPv4, IPv6 and IPv4 on a dual-stack socket;
 * a client still connected is never taken for gone; the request's own signal still counts; no
 * TCP address means the request's signal alone. tests/security/hang_up_test.ts holds the same
 * through the bridge's routes. Linux only (the TCP tables are in /proc/net).
 *
 * @module
 */
import assert from "node:assert/strict";
import { HANG_UP_POLL_MS, tableReads, watchHangUp } from "../../bridge/http/hang_up.ts";

const LINUX = Deno.build.os === "linux";

/** Resolves when `signal` aborts; rejects after `ms`, saying what did not happen. */
function aborted(signal: AbortSignal, ms = 6 * HANG_UP_POLL_MS): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(signal.reason);
    const timer = setTimeout(() => reject(new Error(`not aborted within ${ms} ms`)), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(signal.reason);
    }, { once: true });
  });
}

/** Resolves once the tables were read `count` more times. */
async function reads(count: number): Promise<void> {
  const until = tableReads() + count;
  const deadline = Date.now() + (count + 4) * HANG_UP_POLL_MS;
  while (tableReads() < until) {
    assert.ok(Date.now() < deadline, "the tables are not being read");
    await new Promise((resolve) => setTimeout(resolve, HANG_UP_POLL_MS / 10));
  }
}

/** A client connected to a listener on `listen`, through `connect`, and the bridge's end. */
async function connection(listen: string, connect: string) {
  const listener = Deno.listen({ hostname: listen, port: 0 });
  const client = await Deno.connect({ hostname: connect, port: listener.addr.port });
  const server = await listener.accept();
  listener.close();
  return {
    client,
    server,
    [Symbol.dispose]() {
      for (const conn of [client, server]) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
    },
  };
}

/** Whether the machine can listen on `hostname`. */
function canListen(hostname: string): boolean {
  try {
    Deno.listen({ hostname, port: 0 }).close();
    return true;
  } catch {
    return false;
  }
}

const request = () => new Request("http://bridge.test/__aim/invoke");

Deno.test({
  name:
    "each way a client goes away aborts its own watch, with a reason that says so, and a client still connected is never taken for gone",
  ignore: !LINUX,
  async fn() {
    // All at once: each hang-up takes the kernel's table a read or two to show.
    using v4 = await connection("127.0.0.1", "127.0.0.1");
    using reset = await connection("127.0.0.1", "127.0.0.1");
    using stays = await connection("127.0.0.1", "127.0.0.1");
    using v6 = canListen("::1") ? await connection("::1", "::1") : undefined;
    using mapped = canListen("::") ? await connection("::", "127.0.0.1") : undefined;
    if (v6) assert.equal((v6.server.remoteAddr as Deno.NetAddr).hostname, "::1");
    if (mapped) assert.match((mapped.server.remoteAddr as Deno.NetAddr).hostname, /^::ffff:/);
    const closing = [v4, v6, mapped].filter((conn) => conn !== undefined);
    const watches = new Map(
      [...closing, reset, stays].map((
        conn,
      ) => [conn, watchHangUp(request(), conn.server.remoteAddr)]),
    );
    try {
      await reads(2);
      for (const hangUp of watches.values()) assert.equal(hangUp.signal.aborted, false);
      for (const conn of closing) conn.client.close();
      // Closing with unread data makes the kernel reset the connection (RST), not close it.
      await reset.server.write(new Uint8Array([1]));
      await new Promise((resolve) => setTimeout(resolve, 20));
      reset.client.close();
      const reasons = await Promise.all(
        [...closing, reset].map((conn) => aborted(watches.get(conn)!.signal)),
      );
      for (const reason of reasons) {
        assert.ok(reason instanceof DOMException);
        assert.equal(reason.name, "AbortError");
        assert.equal(reason.message, "The client closed its connection.");
      }
      await reads(2);
      assert.equal(watches.get(stays)!.signal.aborted, false);
    } finally {
      for (const hangUp of watches.values()) hangUp[Symbol.dispose]();
    }
  },
});

Deno.test("the request's own signal aborts the watch's signal, with or without a TCP address", () => {
  for (
    const addr of [
      undefined,
      { transport: "unix", path: "/tmp/x.sock" } as Deno.UnixAddr,
      { transport: "tcp", hostname: "127.0.0.1", port: 9 } as Deno.NetAddr,
    ]
  ) {
    const controller = new AbortController();
    const hangUp = watchHangUp(
      new Request("http://bridge.test/", { signal: controller.signal }),
      addr,
    );
    assert.equal(hangUp.signal.aborted, false);
    controller.abort(new Error("gone"));
    assert.equal(hangUp.signal.aborted, true);
    assert.equal((hangUp.signal.reason as Error).message, "gone");
    hangUp[Symbol.dispose]();
  }
});

Deno.test({
  name: "a watch disposed of is no longer read, and an address that is no TCP one is never read",
  ignore: !LINUX,
  async fn() {
    using conn = await connection("127.0.0.1", "127.0.0.1");
    const hangUp = watchHangUp(request(), conn.server.remoteAddr);
    hangUp[Symbol.dispose]();
    conn.client.close();
    // Watched again: the new watch sees it; the disposed one was not watched.
    using again = await connection("127.0.0.1", "127.0.0.1");
    using next = watchHangUp(request(), again.server.remoteAddr);
    again.client.close();
    await aborted(next.signal);
    assert.equal(hangUp.signal.aborted, false);
    const unix = watchHangUp(request(), { transport: "unix", path: "/tmp/x.sock" });
    assert.equal(unix.signal.aborted, false);
    unix[Symbol.dispose]();
  },
});
