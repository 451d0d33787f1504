/**
 * What an operator watches, in the Prometheus text format (prom-client): requests per route
 * family, sessions, tabs, streams, invocation outcomes per protocol, the person's confirmations
 * and how long they wait, the app's failures behind `--upstream`, and Redis round trips.
 *
 * Every label value comes from a fixed list (route families, status classes, protocols, error
 * codes, Redis command names): never a token, a path, a page, its state or a person's name.
 * A request costs an array increment (handed to prom-client's counter when scraped) and one
 * histogram observation, with label objects made once; an invocation, a small object and a
 * counter increment; the gauges are read when the metrics are scraped. Off unless asked for
 * (`aim serve --metrics`, `serve({ metrics })`).
 *
 * @example
 * ```ts ignore
 * import { createBridge } from "../mod.ts";
 *
 * const bridge = createBridge({ root: "site", metrics: true });
 * Deno.serve({ port: 8000 }, bridge.fetch);
 * Deno.serve({ hostname: "127.0.0.1", port: 9464 }, bridge.metrics!.fetch);
 * ```
 *
 * @module
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { BridgeCore, InvocationWatch, InvokeProtocol } from "../core/bridge.ts";
import type { RequestLogEntry } from "../http/middleware.ts";
import { ERROR_CODES } from "../wire/errors.ts";
import { ROUTE_FAMILIES, type RouteFamily, routeFamily } from "./families.ts";
import { metricsFetch, type MetricsFetchOptions } from "./endpoint.ts";
import { traceRedis } from "./redis_trace.ts";

/** Options of {@linkcode BridgeMetrics}. */
export interface BridgeMetricsOptions extends MetricsFetchOptions {
  /**
   * The bridge stands in front of an app: what it forwards counts as `upstream` (off unless
   * set).
   */
  upstream?: boolean | undefined;
  /**
   * Count the Redis round trips of this process (sessions shared through Redis; off unless set).
   */
  redis?: boolean | undefined;
}

/** Every protocol an invocation is counted under: the agents' and the page's own (WebMCP). */
export const INVOCATION_PROTOCOLS = ["http", "mcp", "acp", "a2a", "webmcp"] as const;

/** What an invocation's outcome is counted as: `ok`, an error code, or `other`. */
const OUTCOMES: readonly string[] = ["ok", ...ERROR_CODES, "other"];

/** Each route family's row in the request counts. */
const FAMILY_INDEX: ReadonlyMap<RouteFamily, number> = new Map(
  ROUTE_FAMILIES.map((family, i) => [family, i]),
);

/** Status classes of the `status` label. */
const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;

/** Request latencies, s: a cached manifest read (0.1 ms) to a long poll (60 s). */
const REQUEST_BUCKETS = [
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
];
/** How long a person takes to answer a prompt, s, up to the confirmation timeout (5 min). */
const CONFIRM_BUCKETS = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600];

type Labels<K extends string> = Record<K, string>;

/** One label object per value, made once: recording allocates no label object. */
function labelsOf<K extends string>(name: K, values: readonly string[]): Map<string, Labels<K>> {
  return new Map(values.map((value) => [value, { [name]: value } as Labels<K>]));
}

/** The metrics of one bridge, in a registry of their own. */
export class BridgeMetrics {
  /** The prom-client registry holding every metric of this bridge. */
  readonly #registry: Registry = new Registry();
  /** Answers `GET /__aim/metrics` (and 404, 405 otherwise): serve it on a listener of its own. */
  readonly fetch: (request: Request) => Promise<Response>;
  readonly #upstream: boolean;
  /** Requests by route family and status class, since the last scrape. */
  readonly #requestCounts = new Float64Array(ROUTE_FAMILIES.length * STATUS_CLASSES.length);
  /** The request latency histogram's observer of each family, by its row. */
  readonly #durations: { observe(seconds: number): void }[];
  readonly #invocations: Counter<"protocol" | "outcome">;
  readonly #pending: Gauge;
  readonly #confirmWaits: Histogram<"outcome">;
  readonly #upstreamFailures: Counter<"code">;
  /** Label objects, by protocol and outcome; by outcome. */
  readonly #invocationLabels: Map<string, Map<string, Labels<"protocol" | "outcome">>>;
  readonly #outcomeLabels: Map<string, Labels<"outcome">>;
  #core: BridgeCore | undefined;
  #untrace: (() => void) | undefined;

  /** The metrics of a bridge, with the options' families and bounds. */
  constructor(options: BridgeMetricsOptions = {}) {
    this.#upstream = options.upstream ?? false;
    const registers = [this.#registry];
    // Counted in an array per request (an increment), handed to prom-client when scraped.
    const counts = this.#requestCounts;
    const countLabels = ROUTE_FAMILIES.flatMap((family) =>
      STATUS_CLASSES.map((status) => ({ family, status }))
    );
    new Counter({
      name: "aim_http_requests_total",
      help: "Requests answered, by route family and status class.",
      labelNames: ["family", "status"],
      registers,
      collect() {
        for (let i = 0; i < counts.length; i++) {
          if (counts[i] === 0) continue;
          this.inc(countLabels[i]!, counts[i]);
          counts[i] = 0;
        }
      },
    });
    const durations = new Histogram({
      name: "aim_http_request_duration_seconds",
      help: "Time to answer a request (to its headers, for streams), by route family.",
      labelNames: ["family"],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    // Bound once per family: an observation hashes no label object of its own.
    this.#durations = ROUTE_FAMILIES.map((family) => durations.labels({ family }));
    this.#invocations = new Counter({
      name: "aim_invocations_total",
      help: "Invocations answered, by protocol and outcome (ok or the error code).",
      labelNames: ["protocol", "outcome"],
      registers,
    });
    this.#invocationLabels = new Map(
      INVOCATION_PROTOCOLS.map((protocol) => [
        protocol,
        new Map(OUTCOMES.map((outcome) => [outcome, { protocol, outcome }])),
      ]),
    );
    for (const protocol of INVOCATION_PROTOCOLS) {
      this.#invocations.inc(this.#invocationLabels.get(protocol)!.get("ok")!, 0);
    }
    this.#pending = new Gauge({
      name: "aim_confirmations_pending",
      help: "Invocations waiting now for the person to confirm them in the page.",
      registers,
    });
    this.#confirmWaits = new Histogram({
      name: "aim_confirmation_wait_seconds",
      help: "Time from the prompt to the invocation's answer, by outcome.",
      labelNames: ["outcome"],
      buckets: CONFIRM_BUCKETS,
      registers,
    });
    this.#outcomeLabels = labelsOf("outcome", OUTCOMES);
    this.#upstreamFailures = new Counter({
      name: "aim_upstream_failures_total",
      help:
        "Requests the app behind aim did not answer: bad_gateway (502) or gateway_timeout (504).",
      labelNames: ["code"],
      registers,
    });
    this.#upstreamFailures.inc({ code: "bad_gateway" }, 0);
    this.#upstreamFailures.inc({ code: "gateway_timeout" }, 0);
    this.#gauges(registers);
    if (options.redis) this.#untrace = traceRedis(registers);
    this.fetch = metricsFetch(this.#registry, options);
  }

  /** Counts one answered request: the access log's hook (`log` of the bridge). */
  readonly request = (entry: RequestLogEntry): void => {
    const family = routeFamily(entry.path, this.#upstream);
    const status = Math.min(Math.max(Math.floor(entry.status / 100), 1), 5) - 1;
    const row = FAMILY_INDEX.get(family)!;
    this.#requestCounts[row * STATUS_CLASSES.length + status]!++;
    this.#durations[row]!.observe(entry.ms / 1000);
  };

  /** The bridge's `log`: counts each request, then calls `log` (the request log), if any. */
  logTo(log: ((entry: RequestLogEntry) => void) | undefined): (entry: RequestLogEntry) => void {
    if (!log) return this.request;
    return (entry) => {
      this.request(entry);
      log(entry);
    };
  }

  /** The proxy's `onFailure`: counts each failure, then calls `onFailure`, if any. */
  failureTo(
    onFailure: ((code: "bad_gateway" | "gateway_timeout") => void) | undefined,
  ): (code: "bad_gateway" | "gateway_timeout") => void {
    if (!onFailure) return this.upstreamFailure;
    return (code) => {
      this.upstreamFailure(code);
      onFailure(code);
    };
  }

  /** Starts watching one invocation an agent sent to this instance (`BridgeCore`'s hook). */
  readonly watchInvocation = (protocol: InvokeProtocol): InvocationWatch => {
    let askedAt = 0;
    return {
      awaiting: () => {
        if (askedAt !== 0) return;
        askedAt = performance.now();
        this.#pending.inc();
      },
      answered: (outcome) => {
        this.#count(protocol, outcome);
        if (askedAt === 0) return;
        this.#pending.dec();
        this.#confirmWaits.observe(
          this.#outcomeLabels.get(outcome) ?? this.#outcomeLabels.get("other")!,
          (performance.now() - askedAt) / 1000,
        );
      },
    };
  };

  /** Counts a run of the page's own agent that its tab reported (WebMCP). */
  pageRun(outcome: string): void {
    this.#count("webmcp", outcome);
  }

  /** Counts a request the app behind aim did not answer (`ProxyOptions.onFailure`). */
  readonly upstreamFailure = (code: "bad_gateway" | "gateway_timeout"): void => {
    this.#upstreamFailures.inc({ code });
  };

  /** Reads `core`'s sessions, tabs and streams each time the metrics are scraped. */
  watch(core: BridgeCore): void {
    this.#core = core;
  }

  /** Stops counting Redis round trips and forgets the core. */
  close(): void {
    this.#untrace?.();
    this.#untrace = undefined;
    this.#core = undefined;
  }

  #count(protocol: string, outcome: string): void {
    const byOutcome = this.#invocationLabels.get(protocol)!;
    this.#invocations.inc(byOutcome.get(outcome) ?? byOutcome.get("other")!);
  }

  /** The gauges read at scrape time, from the core watched (0 before it is). */
  #gauges(registers: Registry[]): void {
    const core = () => this.#core;
    const gauge = (name: string, help: string, read: (core: BridgeCore) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const watched = core();
          this.set(watched ? read(watched) : 0);
        },
      });
    gauge(
      "aim_sessions",
      "Sessions this instance holds (with Redis: its copies of shared sessions).",
      (core) => core.sessions.size,
    );
    gauge(
      "aim_sessions_unused",
      "Sessions held that no tab bound and no agent used yet.",
      (core) => core.sessions.freshCount,
    );
    gauge(
      "aim_tabs_connected",
      "Tab channels (WebSockets of pages) open on this instance.",
      (core) => {
        let open = 0;
        for (const session of core.sessions.held()) open += session.tab.open;
        return open;
      },
    );
    gauge(
      "aim_tabs_holding",
      "Sessions whose tab on this instance holds the lease (can run actions).",
      (core) => {
        let holding = 0;
        for (const session of core.sessions.held()) if (session.tab.holder) holding++;
        return holding;
      },
    );
    gauge(
      "aim_streams_open",
      "Event streams and long polls open.",
      (core) => core.streams.open,
    );
    gauge(
      "aim_streams_max",
      "Event streams and long polls that may be open at once.",
      (core) => core.streams.limits.total,
    );
  }
}
