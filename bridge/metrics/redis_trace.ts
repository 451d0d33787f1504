/**
 * Redis round trips, counted from the tracing channels the Redis client (`@redis/client`)
 * publishes on `node:diagnostics_channel`: nothing in the share (bridge/share/) changes, and
 * without a subscriber the client skips its tracing altogether. The channels are the process's:
 * every Redis client of the process is counted (one bridge per process in production).
 *
 * @module
 */
import { tracingChannel } from "node:diagnostics_channel";
import { Counter, Histogram, type Registry } from "prom-client";

/** The channel of one command, and of one MULTI or pipeline (one round trip for all of them). */
const COMMAND_CHANNEL = "node-redis:command";
const BATCH_CHANNEL = "node-redis:batch";

/** Round-trip latencies, s: 0.1 ms on loopback to the 2 s after which a command fails. */
const REDIS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2];

/** A Redis command's name as a label: the client's word, upper case letters only, else `other`. */
const COMMAND_NAME = /^[A-Z][A-Z.]{0,31}$/;

/** What the client's tracing context holds that is read here. */
interface TraceContext {
  command?: string;
  batchMode?: string;
  error?: unknown;
  /** Set here at the start: when the round trip began, ms. */
  [STARTED]?: number;
}

const STARTED: unique symbol = Symbol("aim.redis.started");

/**
 * Subscribes `aim_redis_round_trips` (a histogram: count and latency, by command) and
 * `aim_redis_errors_total` to the Redis client's tracing; returns the unsubscribe.
 */
export function traceRedis(registers: Registry[]): () => void {
  const trips = new Histogram({
    name: "aim_redis_round_trip_seconds",
    help: "Redis round trips of this process (a MULTI or a pipeline is one), by command.",
    labelNames: ["command"],
    buckets: REDIS_BUCKETS,
    registers,
  });
  const errors = new Counter({
    name: "aim_redis_errors_total",
    help: "Redis round trips that failed (an error reply, a lost or hung connection), by command.",
    labelNames: ["command"],
    registers,
  });
  const other = { command: "other" };
  const labels = new Map<string, { command: string }>([["other", other]]);
  const labelOf = (name: string | undefined) => {
    const command = name !== undefined && COMMAND_NAME.test(name) ? name : "other";
    let made = labels.get(command);
    // Bounded: the commands the bridge sends are a few dozen.
    if (made === undefined && labels.size < 64) labels.set(command, made = { command });
    return made ?? other;
  };
  const start = (context: TraceContext) => {
    context[STARTED] = performance.now();
  };
  const observe = (name: string | undefined, context: TraceContext) => {
    const started = context[STARTED];
    if (started !== undefined) {
      trips.observe(labelOf(name), (performance.now() - started) / 1000);
    }
  };
  const nothing = () => {};
  // A script Redis does not hold yet (after its start): the client loads it and runs it again.
  const unloaded = (context: TraceContext) =>
    context.error instanceof Error && context.error.message.startsWith("NOSCRIPT");
  // A command inside a MULTI or a pipeline is counted with its batch, not alone.
  const commandHandlers = {
    start: (context: TraceContext) => {
      if (context.batchMode === undefined) start(context);
    },
    end: nothing,
    asyncStart: nothing,
    asyncEnd: (context: TraceContext) => {
      if (context.batchMode === undefined) observe(context.command, context);
    },
    error: (context: TraceContext) => {
      if (context.batchMode === undefined && !unloaded(context)) {
        errors.inc(labelOf(context.command));
      }
    },
  };
  const batchHandlers = {
    start,
    end: nothing,
    asyncStart: nothing,
    asyncEnd: (context: TraceContext) => observe(context.batchMode, context),
    error: (context: TraceContext) => {
      errors.inc(labelOf(context.batchMode));
    },
  };
  const commands = tracingChannel<unknown, TraceContext>(COMMAND_CHANNEL);
  const batches = tracingChannel<unknown, TraceContext>(BATCH_CHANNEL);
  commands.subscribe(commandHandlers);
  batches.subscribe(batchHandlers);
  return () => {
    commands.unsubscribe(commandHandlers);
    batches.unsubscribe(batchHandlers);
  };
}
