/**
 * Redis round trips counted from the client's tracing channels (bridge/metrics/redis_trace.ts),
 * imported directly and fed on those channels in this process: a command alone is one trip, a
 * command in a batch is counted with its batch, each kind of failure is an error except a
 * NOSCRIPT reload, each command name that is no plain upper-case word is `other`, the labels are
 * bounded, and unsubscribing stops the counting.
 *
 * @module
 */
import assert from "node:assert/strict";
import { tracingChannel } from "node:diagnostics_channel";
import { Registry } from "prom-client";
import { traceRedis } from "../../bridge/metrics/redis_trace.ts";

const commands = tracingChannel<unknown, Record<string, unknown>>("node-redis:command");
const batches = tracingChannel<unknown, Record<string, unknown>>("node-redis:batch");

/** One traced round trip on `channel`, succeeding or failing with `error`. */
async function trip(
  channel: typeof commands,
  context: Record<string, unknown>,
  error?: Error,
): Promise<void> {
  await channel.tracePromise(() => error ? Promise.reject(error) : Promise.resolve("OK"), context)
    .catch(() => {});
}

/** The registry's samples of a metric, by their `command` label: count (trips) or value (errors). */
async function counts(
  registry: Registry,
): Promise<{ trips: Record<string, number>; errors: Record<string, number> }> {
  const read = async (name: string, suffix: string) => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
    const out: Record<string, number> = {};
    for (
      const v of (metric?.values ?? []) as {
        metricName?: string;
        labels: { command?: string };
        value: number;
      }[]
    ) {
      if (suffix && v.metricName !== `${name}${suffix}`) continue;
      if (v.value) out[String(v.labels.command)] = v.value;
    }
    return out;
  };
  return {
    trips: await read("aim_redis_round_trip_seconds", "_count"),
    errors: await read("aim_redis_errors_total", ""),
  };
}

Deno.test("traceRedis() counts a command alone as a trip, and a command in a batch with its batch", async () => {
  const registry = new Registry();
  const stop = traceRedis([registry]);
  try {
    await trip(commands, { command: "GET" });
    await trip(commands, { command: "GET" });
    await trip(commands, { command: "SET", batchMode: "MULTI" });
    await trip(commands, { command: "SET", batchMode: "PIPELINE" });
    await trip(batches, { batchMode: "MULTI" });
    assert.deepEqual(await counts(registry), { trips: { GET: 2, MULTI: 1 }, errors: {} });
  } finally {
    stop();
  }
});

Deno.test("traceRedis() counts each failure as an error, except a script Redis did not hold yet", async () => {
  const registry = new Registry();
  const stop = traceRedis([registry]);
  try {
    await trip(commands, { command: "GET" }, new Error("ERR wrong type"));
    await trip(commands, { command: "EVALSHA" }, new Error("NOSCRIPT No matching script."));
    await trip(commands, { command: "GET", batchMode: "MULTI" }, new Error("in a batch"));
    await trip(batches, { batchMode: "PIPELINE" }, new Error("connection lost"));
    // A batch's NOSCRIPT is no reload of one script: counted.
    await trip(batches, { batchMode: "MULTI" }, new Error("NOSCRIPT in a batch"));
    assert.deepEqual((await counts(registry)).errors, { GET: 1, PIPELINE: 1, MULTI: 1 });
  } finally {
    stop();
  }
});

Deno.test("traceRedis() labels each command that is no plain upper-case word `other`, and keeps at most 64 labels", async () => {
  const registry = new Registry();
  const stop = traceRedis([registry]);
  try {
    const names = ["get", "GET1", "G ET", "", "A".repeat(33), "-GET", undefined];
    for (const command of names) await trip(commands, command === undefined ? {} : { command });
    await trip(commands, { command: "CLIENT.SETNAME" });
    await trip(commands, { command: "A".repeat(32) });
    assert.deepEqual((await counts(registry)).trips, {
      other: names.length,
      "CLIENT.SETNAME": 1,
      ["A".repeat(32)]: 1,
    });
    // 63 names besides `other`; the 64th and later count as `other`.
    const many = Array.from(
      { length: 70 },
      (_, i) =>
        `X${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`,
    );
    for (const command of many) await trip(commands, { command });
    const trips = (await counts(registry)).trips;
    assert.equal(Object.keys(trips).length, 64);
    assert.equal(trips.other, names.length + 70 - 61);
  } finally {
    stop();
  }
});

Deno.test("traceRedis()'s unsubscribe stops the counting", async () => {
  const registry = new Registry();
  traceRedis([registry])();
  await trip(commands, { command: "GET" });
  await trip(batches, { batchMode: "MULTI" }, new Error("x"));
  assert.deepEqual(await counts(registry), { trips: {}, errors: {} });
});
