/**
 * The app's WebSockets relayed through aim (bridge/upstream/websocket.ts): a byte bound each way,
 * asserted at the byte on sockets whose buffered bytes the test sets, then through a real aim
 * (an app that does not read gets its client closed with 1013; a client that does not read gets
 * the app closed with 4013); a side that fails makes aim close the other with a code it may
 * send (1011 to the client, 4011 to the app), never throw.
 * @module
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { relay, RELAY_CLOSE } from "../../bridge/upstream/websocket.ts";
import { pushUntilClosed, startAim, startApp } from "../helpers/upstream.ts";

/** A socket whose state and buffered bytes the test sets, and that records what it is told. */
class TestSocket extends EventTarget {
  readyState: number = WebSocket.OPEN;
  bufferedAmount = 0;
  binaryType = "blob";
  readonly sent: (string | ArrayBuffer)[] = [];
  closed: { code?: number | undefined; reason?: string | undefined } | undefined;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  /** `role`: a client may close with 1000 or 3000–4999 only, as the runtime enforces. */
  constructor(readonly role: "client" | "server", state: number = WebSocket.OPEN) {
    super();
    this.readyState = state;
  }

  send(data: string | ArrayBuffer): void {
    if (this.readyState !== WebSocket.OPEN) throw new Error("not open");
    this.sent.push(data);
  }

  close(code?: number, reason?: string): void {
    if (this.role === "client" && code !== undefined && !(code === 1000 || code >= 3000)) {
      throw new DOMException(`The close code ${code} is not a client's`, "InvalidAccessError");
    }
    this.closed = { code, reason };
    this.readyState = WebSocket.CLOSING;
  }

  emit(type: string, init: Record<string, unknown> = {}): void {
    const event = type === "message"
      ? new MessageEvent("message", init)
      : type === "close"
      ? new CloseEvent("close", init)
      : new Event(type);
    (this as unknown as Record<string, ((event: Event) => void) | null>)[`on${type}`]?.(event);
    this.dispatchEvent(event);
  }

  open(): void {
    this.readyState = WebSocket.OPEN;
    this.emit("open");
  }
}

/** A client's socket (aim's server side of it) and the app's (aim's client side), relayed. */
function relayed(bound: number, clientState: number = WebSocket.OPEN) {
  const client = new TestSocket("server", clientState);
  const app = new TestSocket("client");
  relay(client as unknown as WebSocket, app as unknown as WebSocket, { bufferBytes: bound });
  return { client, app };
}

const bytes = (n: number) => new ArrayBuffer(n);

/** The code a socket was closed with; undefined while it was not. */
function codeOf(socket: TestSocket): number | undefined {
  return socket.closed?.code;
}

Deno.test("a client's message is relayed while the app's waiting bytes stay within the bound with it, to the byte", () => {
  const { client, app } = relayed(100);
  app.bufferedAmount = 90;
  client.emit("message", { data: bytes(10) });
  assert.equal(app.sent.length, 1);
  assert.equal(codeOf(client), undefined);
  app.bufferedAmount = 91;
  client.emit("message", { data: bytes(10) });
  assert.equal(app.sent.length, 1, "not relayed past the bound");
  assert.equal(codeOf(client), RELAY_CLOSE.overloaded);
  assert.equal(codeOf(app), RELAY_CLOSE.appOverloaded);
  client.emit("message", { data: bytes(1) });
  assert.equal(app.sent.length, 1, "nothing after the relay ended");
});

Deno.test("an app's message is relayed while the client's waiting bytes stay within the bound with it, to the byte", () => {
  const { client, app } = relayed(100);
  client.bufferedAmount = 100;
  app.emit("message", { data: bytes(0) });
  assert.equal(client.sent.length, 1);
  app.emit("message", { data: "x" });
  assert.equal(client.sent.length, 1);
  assert.equal(codeOf(client), 1013);
  assert.equal(codeOf(app), 4013);
});

Deno.test("text counts by its UTF-8 bytes, not its characters", () => {
  const { client, app } = relayed(100);
  client.emit("message", { data: "é".repeat(50) });
  assert.equal(app.sent.length, 1, "100 bytes: within");
  const other = relayed(100);
  other.client.emit("message", { data: "€".repeat(34) });
  assert.equal(other.app.sent.length, 0, "102 bytes: past it");
  assert.equal(codeOf(other.client), 1013);
});

Deno.test("the app's messages before the client's socket opens are held up to the bound in bytes, then sent in order", () => {
  const { client, app } = relayed(100, WebSocket.CONNECTING);
  app.emit("message", { data: bytes(60) });
  app.emit("message", { data: "forty bytes of text, forty bytes of text" });
  assert.equal(client.sent.length, 0);
  client.open();
  assert.equal(client.sent.length, 2);
  assert.equal((client.sent[0] as ArrayBuffer).byteLength, 60);
  assert.equal(codeOf(app), undefined);
});

Deno.test("past the bound before the client's socket opens, the app is closed and the client once it opens, with nothing sent", () => {
  const { client, app } = relayed(100, WebSocket.CONNECTING);
  app.emit("message", { data: bytes(100) });
  app.emit("message", { data: bytes(1) });
  assert.equal(codeOf(app), 4013);
  assert.equal(codeOf(client), undefined, "a socket that is not open is closed once it is");
  client.open();
  assert.equal(client.sent.length, 0);
  assert.equal(codeOf(client), 1013);
});

Deno.test("a failing client makes the app learn it with a code a client may send, and nothing throws", () => {
  const table: [string, Record<string, unknown>, number][] = [
    ["error", {}, 4011],
    ["close", { code: 1006 }, 4011],
    ["close", { code: 1011 }, 4011],
    ["close", { code: 1001 }, 1000],
    ["close", { code: 1005 }, 1000],
    ["close", { code: 1000, reason: "bye" }, 1000],
    ["close", { code: 4321, reason: "app's own" }, 4321],
  ];
  for (const [type, init, code] of table) {
    const { client, app } = relayed(100);
    client.emit(type, init);
    assert.equal(codeOf(app), code, `${type} ${JSON.stringify(init)}`);
  }
});

Deno.test("a failing app makes the client learn it with 1011, and the app's own codes pass", () => {
  const table: [string, Record<string, unknown>, number][] = [
    ["error", {}, 1011],
    ["close", { code: 1006 }, 1011],
    ["close", { code: 0 }, 1011],
    ["close", { code: 1005 }, 1000],
    ["close", { code: 1001 }, 1001],
    ["close", { code: 1008 }, 1008],
    ["close", { code: 4100, reason: "the app's" }, 4100],
  ];
  for (const [type, init, code] of table) {
    const { client, app } = relayed(100);
    app.emit(type, init);
    assert.equal(codeOf(client), code, `${type} ${JSON.stringify(init)}`);
  }
});

/** The handshake's accept key (RFC 6455). */
function acceptKey(key: string): string {
  return createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
}

/**
 * An app that accepts every WebSocket and reads nothing until `read()`; then it reads all that
 * waits, answers the close frame it finds, and tells the bytes it read and the close code.
 */
function stalledApp() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { promise: reading, resolve: read } = Promise.withResolvers<void>();
  const { promise: accepted, resolve: accept } = Promise.withResolvers<void>();
  const { promise: done, resolve: finish } = Promise.withResolvers<
    { bytes: number; close: number }
  >();
  const conns: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) {
      conns.push(conn);
      (async () => {
        const buffer = new Uint8Array(64 * 1024);
        const n = await conn.read(buffer);
        const head = new TextDecoder().decode(buffer.subarray(0, n ?? 0));
        const key = /sec-websocket-key: *(\S+)/i.exec(head)![1]!;
        await conn.write(new TextEncoder().encode(
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            `Sec-WebSocket-Accept: ${acceptKey(key)}\r\n\r\n`,
        ));
        accept();
        await reading;
        // Reads frames until the close frame (opcode 8) and answers it.
        let bytes = 0;
        let pending = new Uint8Array(0);
        for (;;) {
          const got = await conn.read(buffer);
          if (got === null) break;
          bytes += got;
          const all = new Uint8Array(pending.length + got);
          all.set(pending);
          all.set(buffer.subarray(0, got), pending.length);
          let at = 0;
          let close = -1;
          while (at + 2 <= all.length) {
            const opcode = all[at]! & 0x0f;
            let length = all[at + 1]! & 0x7f;
            let header = 2;
            if (length === 126) {
              length = (all[at + 2]! << 8) | all[at + 3]!;
              header = 4;
            } else if (length === 127) {
              length = Number(new DataView(all.buffer, at + 2, 8).getBigUint64(0));
              header = 10;
            }
            const masked = (all[at + 1]! & 0x80) !== 0;
            const size = header + (masked ? 4 : 0) + length;
            if (at + size > all.length) break;
            if (opcode === 8) {
              const mask = all.subarray(at + header, at + header + 4);
              const payload = all.subarray(at + header + 4, at + size).map((b, i) =>
                b ^ mask[i % 4]!
              );
              close = (payload[0]! << 8) | payload[1]!;
            }
            at += size;
          }
          pending = all.slice(at);
          if (close >= 0) {
            await conn.write(new Uint8Array([0x88, 0x02, close >> 8, close & 0xff])).catch(() => 0);
            finish({ bytes, close });
            break;
          }
        }
        conn.close();
      })().catch(() => {});
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    accepted,
    read,
    done,
    [Symbol.asyncDispose]() {
      read();
      try {
        listener.close();
      } catch { /* closed already */ }
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      return Promise.resolve();
    },
  };
}

const MB = 1024 * 1024;

Deno.test("a client pushing into an app that does not read is closed with 1013 at the bound, and the app with 4013", async () => {
  await using app = stalledApp();
  const bound = 2 * MB;
  await using aim = startAim(app.url, { proxy: { webSocketBufferBytes: bound } });
  const ws = new WebSocket(`${aim.url.replace("http", "ws")}/socket`);
  const { promise: opened, resolve: open } = Promise.withResolvers<void>();
  const { promise: closed, resolve: close } = Promise.withResolvers<CloseEvent>();
  ws.onopen = () => open();
  ws.onclose = (event) => close(event);
  await opened;
  await app.accepted;
  const sent = await pushUntilClosed(ws, closed, 64 * MB);
  assert.ok(sent < 64 * MB, "aim let 64 MiB through to an app that reads nothing");
  // aim closes with 1013; a client still sending when aim's server drops the connection gets a
  // reset instead, which loses the close frame (the runtime closes a closing server socket at
  // the next data frame): either way the relay ended, and the app's side says why.
  const event = await closed;
  assert.ok([RELAY_CLOSE.overloaded, 0, 1006].includes(event.code), `closed with ${event.code}`);
  if (event.code === RELAY_CLOSE.overloaded) assert.match(event.reason, /did not read/);
  app.read();
  const { bytes, close: appClose } = await app.done;
  assert.equal(appClose, RELAY_CLOSE.appOverloaded);
  // What reached the app: the bound, what the kernel's buffers held, frame headers.
  assert.ok(bytes <= bound + 16 * MB, `${bytes} bytes reached the app`);
});

Deno.test("an app pushing to a client that does not read is closed with 4013 at the bound", async () => {
  const { promise: appClosed, resolve: appClose } = Promise.withResolvers<number>();
  await using app = startApp((request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    const chunk = new Uint8Array(64 * 1024);
    socket.onopen = async () => {
      // 64 MiB at most: past it, aim let through what the client never read (-1 says so).
      for (let sent = 0; socket.readyState === WebSocket.OPEN; sent += chunk.length) {
        if (sent >= 64 * MB) return appClose(-1);
        socket.send(chunk);
        // Only as fast as aim takes it: what waits is then in aim, not in this app.
        while (socket.bufferedAmount > MB && socket.readyState === WebSocket.OPEN) {
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    };
    socket.onclose = (event) => appClose(event.code);
    return response;
  });
  await using aim = startAim(app.url, { proxy: { webSocketBufferBytes: 2 * MB } });
  // A client that completes the handshake and reads nothing more.
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: aim.port });
  await conn.write(new TextEncoder().encode(
    `GET /socket HTTP/1.1\r\nHost: 127.0.0.1:${aim.port}\r\nUpgrade: websocket\r\n` +
      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
      "Sec-WebSocket-Version: 13\r\n\r\n",
  ));
  try {
    assert.equal(await appClosed, RELAY_CLOSE.appOverloaded);
  } finally {
    conn.close();
  }
});

Deno.test("a client that vanishes makes the app learn 4011, and aim throws nothing", async () => {
  const { promise: appClosed, resolve: appClose } = Promise.withResolvers<number>();
  const { promise: opened, resolve: open } = Promise.withResolvers<void>();
  await using app = startApp((request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onopen = () => open();
    socket.onclose = (event) => appClose(event.code);
    return response;
  });
  await using aim = startAim(app.url);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: aim.port });
  await conn.write(new TextEncoder().encode(
    `GET /socket HTTP/1.1\r\nHost: 127.0.0.1:${aim.port}\r\nUpgrade: websocket\r\n` +
      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
      "Sec-WebSocket-Version: 13\r\n\r\n",
  ));
  await conn.read(new Uint8Array(1024));
  await opened;
  // No close frame: the connection just ends.
  conn.close();
  assert.equal(await appClosed, RELAY_CLOSE.clientFailed);
});

Deno.test("an app that vanishes makes the client learn 1011", async () => {
  await using app = stalledApp();
  await using aim = startAim(app.url);
  const ws = new WebSocket(`${aim.url.replace("http", "ws")}/socket`);
  const { promise: closed, resolve: close } = Promise.withResolvers<number>();
  const { promise: opened, resolve: open } = Promise.withResolvers<void>();
  ws.onopen = () => open();
  ws.onclose = (event) => close(event.code);
  await opened;
  await app.accepted;
  await app[Symbol.asyncDispose]();
  assert.equal(await closed, RELAY_CLOSE.appFailed);
});
