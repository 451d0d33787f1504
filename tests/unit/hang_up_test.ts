/**
 * How the kernel's TCP tables write a client's address, as hang_up.ts looks it up:
 * IPv4 in `/proc/net/tcp`, IPv6 and IPv4-mapped ones in `/proc/net/tcp6`, each 32-bit word in
 * little-endian byte order, the port in big-endian hex.
 *
 * @module
 */
import assert from "node:assert/strict";
import { tableAddresses } from "../../bridge/http/hang_up.ts";

const tcp = (hostname: string, port: number): Deno.NetAddr => ({
  transport: "tcp",
  hostname,
  port,
});

Deno.test("an IPv4 client is looked up in both tables, as itself and as IPv4-mapped", () => {
  assert.deepEqual(tableAddresses(tcp("127.0.0.1", 54140)), {
    family: "v4",
    v4: "0100007F:D37C",
    v6: "0000000000000000FFFF00000100007F:D37C",
  });
  assert.deepEqual(tableAddresses(tcp("10.1.2.3", 80)), {
    family: "v4",
    v4: "0302010A:0050",
    v6: "0000000000000000FFFF00000302010A:0050",
  });
});

Deno.test("an IPv6 client is written as four little-endian words", () => {
  assert.deepEqual(tableAddresses(tcp("::1", 443)), {
    family: "v6",
    v6: "00000000000000000000000001000000:01BB",
  });
  assert.deepEqual(tableAddresses(tcp("2001:db8::ff00:42:8329", 8000)), {
    family: "v6",
    v6: "B80D01200000000000FF000029834200:1F40",
  });
});

Deno.test("an IPv4-mapped IPv6 client is looked up in both tables too", () => {
  assert.deepEqual(tableAddresses(tcp("::ffff:127.0.0.1", 1)), {
    family: "v4",
    v4: "0100007F:0001",
    v6: "0000000000000000FFFF00000100007F:0001",
  });
});

Deno.test("an address that is neither IPv4 nor IPv6 is not looked up", () => {
  assert.equal(tableAddresses(tcp("localhost", 1)), undefined);
  assert.equal(tableAddresses(tcp("1:2:3:4:5:6:7:8:9", 1)), undefined);
  assert.equal(tableAddresses(tcp("256.0.0.1", 1)), undefined);
});

Deno.test("every spelling of an address Deno may hand over is read, and any other is not looked up", () => {
  const v6 = (hex: string) => ({ family: "v6", v6: `${hex}:0102` });
  const v4 = (word: string) => ({
    family: "v4",
    v4: `${word}:0102`,
    v6: `0000000000000000FFFF0000${word}:0102`,
  });
  const table: [string, unknown][] = [
    ["1:2:3:4:5:6:7:8", v6("02000100040003000600050008000700")],
    ["[::1]", v6("00000000000000000000000001000000")],
    ["fe80::1%eth0", v6("000080FE000000000000000001000000")],
    ["[fe80::1%25eth0]", v6("000080FE000000000000000001000000")],
    ["::", v6("00000000000000000000000000000000")],
    ["1::", v6("00000100000000000000000000000000")],
    ["ABCD::ef", v6("0000CDAB0000000000000000EF000000")],
    ["::1.2.3.4", v6("00000000000000000000000004030201")],
    // IPv4-mapped only with ten zero bytes, then ffff.
    ["1::ffff:1.2.3.4", v6("0000010000000000FFFF000004030201")],
    ["::fffe:1.2.3.4", v6("0000000000000000FEFF000004030201")],
    ["::ffff:0.0.0.0", v4("00000000")],
    ["0:0:0:0:0:ffff:102:304", v4("04030201")],
    ["001.002.003.004", v4("04030201")],
    ...[
      "::ffff:1.2.3.256",
      "::ffff:1.2.3",
      "1::2::3",
      ":::",
      "1:2:3:4:5:6:7",
      "12345::1",
      "g::1",
      "1.2.3",
      "1.2.3.4.5",
      "a.b.c.d",
      "1234.1.1.1",
      "1.2.3.-4",
      "1.2.3.",
    ].map((text): [string, unknown] => [text, undefined]),
  ];
  for (const [hostname, expected] of table) {
    assert.deepEqual(tableAddresses(tcp(hostname, 258)), expected, hostname);
  }
});
