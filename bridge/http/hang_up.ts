/**
 * Hang-ups: a signal that aborts when the client of a request closes its connection,
 * whatever the size of the request's body.
 *
 * `request.signal` alone does not do it: in Deno 2.9.6, `Deno.serve` watches an HTTP/1.1
 * connection for the client going away, before the response starts, only when the request's
 * whole body came in the same read as its head (some 400 bytes at most); once the body is
 * streamed, nothing notices the hang-up until a response is written
 * ([docs/deno-hang-up.md](../../docs/deno-hang-up.md) has the reproduction). On Linux, the
 * connection is therefore also looked up in the kernel's TCP table (`/proc/net/tcp`,
 * `/proc/net/tcp6`): once the client closed its end, the bridge's end shows `CLOSE_WAIT`; once
 * it reset it (HAProxy does), the bridge's end is gone from the table; either way the signal
 * aborts. One timer reads the table for every request watched, and only while one is.
 *
 * @example
 * ```ts
 * import { watchHangUp } from "./hang_up.ts";
 *
 * Deno.serve(async (request, info) => {
 *   await request.text();
 *   using hangUp = watchHangUp(request, info.remoteAddr);
 *   // ... pass hangUp.signal to what the request waits for
 *   return new Response("done");
 * });
 * ```
 *
 * @module
 */
import { BoundedMap } from "../utils/bounded_map.ts";

/** What {@linkcode watchHangUp} returns: dispose it once the request is answered. */
export interface HangUp extends Disposable {
  /** Aborts when the client went away (its `request.signal`, or the connection seen closed). */
  readonly signal: AbortSignal;
}

/** How often the TCP table is read while requests are watched, ms. */
export const HANG_UP_POLL_MS = 500;

/** The kernel's TCP tables: IPv4 connections, then IPv6 ones (and IPv4 ones on a `::` socket). */
const TABLES = ["/proc/net/tcp", "/proc/net/tcp6"] as const;

/**
 * States of the bridge's end of a connection whose client closed its end (include/net/tcp_states.h):
 * `CLOSE_WAIT`, `LAST_ACK`, `CLOSE`, `CLOSING`, `TIME_WAIT`.
 */
const CLOSED_STATES = new Set(["08", "09", "07", "0B", "06"]);

/** One request watched: its client's address as the tables write it, and whether it was seen. */
interface Watched {
  /** `rem_address` in `/proc/net/tcp` (IPv4 clients only). */
  v4?: string;
  /** `rem_address` in `/proc/net/tcp6` (IPv6 clients, and IPv4 ones as `::ffff:a.b.c.d`). */
  v6?: string;
  /** The client's address family: IPv4 ones (even written IPv4-mapped) or IPv6 ones. */
  family: Family;
  /** Whether the connection was found open once. */
  seen: boolean;
  /** Reads in a row that did not find it once seen (a table read as it changes may skip a line). */
  missed: number;
  controller: AbortController;
}

type Family = "v4" | "v6";

const watched = new Set<Watched>();
/**
 * The families whose connections were found in the tables as the bridge spells them: only then
 * does a connection missing from them mean closed (reset), rather than a spelling the tables
 * do not use. Each is checked once at its first watch, and by every read that finds one.
 */
const spelled = { v4: false, v6: false };
const probed = { v4: false, v6: false };
let timer: ReturnType<typeof setInterval> | undefined;
let polling = false;
let reads = 0;
let readable: boolean | undefined;

/**
 * A signal that aborts when the client of `request` goes away: its `request.signal`, or, on
 * Linux with read access to `/proc/net`, its TCP connection seen closed. Without a TCP address
 * (the bridge embedded behind another server, a Unix socket), `request.signal` only.
 */
export function watchHangUp(request: Request, remoteAddr: Deno.Addr | undefined): HangUp {
  const controller = new AbortController();
  const address = remoteAddr?.transport === "tcp" ? addressesOf(remoteAddr) : undefined;
  const entry: Watched | undefined = address && canReadTables()
    ? { ...address, seen: false, missed: 0, controller }
    : undefined;
  if (entry) {
    if (!probed[entry.family]) probe(entry);
    watched.add(entry);
    timer ??= setInterval(() => void poll(), HANG_UP_POLL_MS);
  }
  const signal = AbortSignal.any([request.signal, controller.signal]);
  return {
    signal,
    [Symbol.dispose]() {
      if (!entry) return;
      watched.delete(entry);
      if (watched.size === 0) stopPolling();
    },
  };
}

/**
 * How many times the TCP tables were read since the process started: a test waits on it to
 * see that a client still connected through several reads is not taken for gone.
 */
export function tableReads(): number {
  return reads;
}

function stopPolling(): void {
  clearInterval(timer);
  timer = undefined;
}

/** Whether the TCP tables can be read: Linux, and read access granted (never a prompt). */
function canReadTables(): boolean {
  if (readable !== undefined) return readable;
  if (Deno.build.os !== "linux") return readable = false;
  try {
    readable = TABLES.every((path) =>
      Deno.permissions.querySync({ name: "read", path }).state === "granted"
    );
  } catch {
    readable = false;
  }
  return readable;
}

/**
 * Looks the first connection of a family up at once, while its client is surely there: a
 * client that resets its connection before the first read is then seen gone all the same.
 * Once per family and process, a few milliseconds.
 */
function probe(entry: Watched): void {
  probed[entry.family] = true;
  const states = [
    ...(entry.v4 ? statesOf(readTableSync(TABLES[0]) ?? "", entry.v4) : []),
    ...(entry.v6 ? statesOf(readTableSync(TABLES[1]) ?? "", entry.v6) : []),
  ];
  if (states.some((state) => !CLOSED_STATES.has(state))) {
    entry.seen = true;
    spelled[entry.family] = true;
  }
}

function readTableSync(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

/** Reads the tables once and aborts the signals of the connections seen closed. */
async function poll(): Promise<void> {
  // One read at a time: with thousands of connections a table takes the kernel some 20 ms.
  if (polling) return;
  polling = true;
  try {
    await check();
  } finally {
    polling = false;
  }
}

async function check(): Promise<void> {
  const needs = { v4: false, v6: false };
  for (const entry of watched) {
    if (entry.v4) needs.v4 = true;
    if (entry.v6) needs.v6 = true;
  }
  const [v4, v6] = await Promise.all([
    needs.v4 ? readTable(TABLES[0]) : undefined,
    needs.v6 ? readTable(TABLES[1]) : undefined,
  ]);
  const tables = { v4, v6 };
  reads++;
  for (const entry of [...watched]) {
    // A table that could not be read says nothing.
    if ((entry.v4 && tables.v4 === undefined) || (entry.v6 && tables.v6 === undefined)) continue;
    const states = [
      ...(entry.v4 ? statesOf(tables.v4!, entry.v4) : []),
      ...(entry.v6 ? statesOf(tables.v6!, entry.v6) : []),
    ];
    const open = states.some((state) => !CLOSED_STATES.has(state));
    if (open) {
      entry.seen = true;
      spelled[entry.family] = true;
      entry.missed = 0;
      continue;
    }
    // Closed (CLOSE_WAIT: the client closed its end), or gone twice in a row (a reset) once the
    // tables are known to hold such connections as the bridge spells them.
    if (states.length === 0 && (entry.seen || spelled[entry.family])) entry.missed++;
    if (states.length > 0 || entry.missed >= 2) {
      watched.delete(entry);
      entry.controller.abort(new DOMException("The client closed its connection.", "AbortError"));
    }
  }
  if (watched.size === 0) stopPolling();
}

/** A table's text, read off the event loop (the kernel writes it as it is read). */
async function readTable(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** The states (`st`, hex) of the table's connections whose remote end is `address`. */
function statesOf(table: string, address: string): string[] {
  const states: string[] = [];
  for (let at = table.indexOf(address); at >= 0; at = table.indexOf(address, at + 1)) {
    const start = table.lastIndexOf("\n", at) + 1;
    const end = table.indexOf("\n", at);
    // `sl: local_address rem_address st ...`: the address must be the remote one.
    const fields = table.slice(start, end < 0 ? undefined : end).trim().split(/\s+/);
    if (fields[2] === address && fields[3]) states.push(fields[3]);
  }
  return states;
}

/** A client's addresses as the tables write them, kept per connection (keep-alive reuses it). */
const spellings = new BoundedMap<string, ReturnType<typeof tableAddresses>>(1024);

function addressesOf(addr: Deno.NetAddr): ReturnType<typeof tableAddresses> {
  return spellings.getOrSet(`${addr.hostname} ${addr.port}`, () => tableAddresses(addr));
}

/** How the TCP tables write a client's address (`rem_address`), in each table it may be in. */
export function tableAddresses(
  addr: Deno.NetAddr,
): { family: Family; v4?: string; v6?: string } | undefined {
  const port = addr.port.toString(16).toUpperCase().padStart(4, "0");
  const v4 = parseIpv4(addr.hostname);
  if (v4) {
    // The kernel prints each 32-bit word in the machine's (little-endian) byte order.
    const word = hexWord(v4);
    return { family: "v4", v4: `${word}:${port}`, v6: `0000000000000000FFFF0000${word}:${port}` };
  }
  const v6 = parseIpv6(addr.hostname);
  if (!v6) return undefined;
  let hex = "";
  for (let i = 0; i < 16; i += 4) hex += hexWord(v6.slice(i, i + 4));
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return mapped
    ? { family: "v4", v4: `${hexWord(v6.slice(12))}:${port}`, v6: `${hex}:${port}` }
    : { family: "v6", v6: `${hex}:${port}` };
}

function hexWord(bytes: number[]): string {
  return bytes.toReversed().map((b) => b.toString(16).toUpperCase().padStart(2, "0")).join("");
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) < 256)) {
    return undefined;
  }
  return parts.map(Number);
}

function parseIpv6(text: string): number[] | undefined {
  const bare = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!bare.includes(":")) return undefined;
  let head = bare;
  let tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (dotted) {
    const v4 = parseIpv4(dotted[1]!);
    if (!v4) return undefined;
    tail = v4;
    head = bare.slice(0, dotted.index + 1) + "0:0";
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined) => half ? half.split(":") : [];
  const left = groups(halves[0]);
  const right = groups(halves[1]);
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const all = [...left, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...right];
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const bytes = all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}
