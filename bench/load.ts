/**
 * Benchmark child: an HTTP/1.1 keep-alive load client. `load.ts URL CONNECTIONS
 * SECONDS WARMUP [STATUS] [HEADER...]` keeps CONNECTIONS connections busy with one GET each in
 * flight, and prints `{"requests", "seconds", "rate", "errors"}` counted after WARMUP seconds:
 * `requests` are the answers with STATUS (default 200), `errors` the others. Each HEADER
 * (`Name: value`) is sent with every request (a token, an `If-None-Match`).
 *
 * It speaks HTTP over `Deno.connect` rather than `fetch`: on a two-core machine the client
 * shares the CPU with the server, and a lighter client leaves more of it to the server under
 * test. Both servers are loaded by this same client, so their rates compare.
 *
 * @module
 */

const [target, connectionsArg = "32", secondsArg = "5", warmupArg = "1", statusArg = "200"] =
  Deno.args;
if (!target) {
  throw new Error("usage: load.ts URL [CONNECTIONS] [SECONDS] [WARMUP] [STATUS] [HEADER...]");
}
const extraHeaders = Deno.args.slice(5);
for (const header of extraHeaders) {
  if (!/^[A-Za-z0-9-]+: [^\r\n]*$/.test(header)) throw new Error(`not a header: ${header}`);
}
const url = new URL(target);
if (url.hostname !== "127.0.0.1") throw new Error("the load client only targets 127.0.0.1");
const connections = Number(connectionsArg);
const seconds = Number(secondsArg);
const warmup = Number(warmupArg);
const expected = Number(statusArg);

const request = new TextEncoder().encode(
  `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: */*\r\n` +
    extraHeaders.map((h) => `${h}\r\n`).join("") + "\r\n",
);
const CRLFCRLF = [13, 10, 13, 10];

let counting = false;
let stopping = false;
let requests = 0;
let errors = 0;

/** One connection's read buffer. */
class Reader {
  buf = new Uint8Array(1 << 16);
  start = 0;
  end = 0;
  constructor(readonly conn: Deno.Conn) {}

  async fill(): Promise<void> {
    if (this.start === this.end) this.start = this.end = 0;
    if (this.end === this.buf.length) {
      const live = this.buf.subarray(this.start, this.end);
      const next = new Uint8Array(Math.max(this.buf.length, live.length * 2));
      next.set(live);
      this.buf = next;
      this.end = live.length;
      this.start = 0;
    }
    const n = await this.conn.read(this.buf.subarray(this.end));
    if (n === null) throw new Error("connection closed");
    this.end += n;
  }

  headerEnd(): number {
    const b = this.buf;
    outer: for (let i = this.start; i + 3 < this.end; i++) {
      for (let k = 0; k < 4; k++) if (b[i + k] !== CRLFCRLF[k]) continue outer;
      return i + 4;
    }
    return -1;
  }

  /** Reads one response; returns its status. */
  async response(): Promise<number> {
    let end;
    while ((end = this.headerEnd()) < 0) await this.fill();
    let head = "";
    for (let i = this.start; i < end; i++) head += String.fromCharCode(this.buf[i]!);
    const status = Number(head.slice(9, 12));
    // A 204 or 304 has no body, whatever its headers say (RFC 9110 §6.4.1).
    const bodiless = status === 204 || status === 304;
    const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
    if (!length && !bodiless) throw new Error("the server did not send Content-Length");
    const total = end - this.start + (bodiless ? 0 : Number(length![1]));
    while (this.end - this.start < total) await this.fill();
    this.start += total;
    return status;
  }
}

async function loop(): Promise<void> {
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  conn.setNoDelay(true);
  const reader = new Reader(conn);
  try {
    while (!stopping) {
      let written = 0;
      while (written < request.length) written += await conn.write(request.subarray(written));
      const status = await reader.response();
      if (!counting) continue;
      if (status === expected) requests++;
      else errors++;
    }
  } finally {
    conn.close();
  }
}

const loops = Array.from({ length: connections }, () => loop());
await new Promise((r) => setTimeout(r, warmup * 1000));
counting = true;
const started = performance.now();
await new Promise((r) => setTimeout(r, seconds * 1000));
const elapsed = (performance.now() - started) / 1000;
const counted = requests;
const failed = errors;
counting = false;
stopping = true;
await Promise.allSettled(loops);
console.log(JSON.stringify({
  requests: counted,
  errors: failed,
  seconds: elapsed,
  rate: counted / elapsed,
}));
