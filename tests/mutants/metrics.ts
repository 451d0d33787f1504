/**
 * Named mutants of the metrics (issue 34 item 5): off by default, never on the bridge's own
 * port, loopback unless told otherwise, labels from fixed lists only, and values that move as
 * what they count does.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const METRICS = ["tests/metrics/metrics_test.ts"];
const FAMILIES = ["tests/metrics/families_test.ts"];
const SOURCES = ["tests/metrics/sources_test.ts"];
const CLI = ["tests/metrics/cli_test.ts"];

export const mutants: Mutant[] = [
  {
    name: "metrics-on-by-default",
    guarantee: "A bridge keeps and serves no metrics unless it is asked to.",
    file: "bridge/serve/bridge.ts",
    find: "  const metrics = options.metrics\n",
    replace: "  const metrics = (options.metrics ?? true)\n",
    tests: METRICS,
  },
  {
    name: "metrics-on-bridge-port",
    guarantee:
      "The bridge's own port, which agents and browsers reach, never answers /__aim/metrics.",
    file: "bridge/serve/bridge.ts",
    find: "    fetch: (request, info) => door(request, info) ?? app.fetch(request, { info }),",
    replace: "    fetch: (request, info) =>\n" +
      '      (metrics && new URL(request.url).pathname === "/__aim/metrics"\n' +
      "        ? metrics.fetch(request)\n" +
      "        : undefined) ?? door(request, info) ?? app.fetch(request, { info }),",
    tests: METRICS,
  },
  {
    name: "metrics-default-host-public",
    guarantee: "A metrics port given alone listens on loopback, never on every interface.",
    file: "bridge/metrics/endpoint.ts",
    find: 'export const METRICS_DEFAULT_HOST = "127.0.0.1";',
    replace: 'export const METRICS_DEFAULT_HOST = "0.0.0.0";',
    tests: [...METRICS, ...FAMILIES],
  },
  {
    name: "metrics-no-host-check",
    guarantee: "A loopback metrics listener answers only to loopback Host names (DNS rebinding).",
    file: "bridge/metrics/endpoint.ts",
    find: "    ? METRICS_FETCH_DEFAULTS.allowedHosts\n    : options.allowedHosts;",
    replace: "    ? null\n    : null;",
    tests: METRICS,
  },
  {
    name: "metrics-raw-path-label",
    guarantee: "A request is counted under a route family from a fixed list, never its raw path.",
    file: "bridge/metrics/families.ts",
    find: '  return upstream ? "upstream" : "static";',
    replace: "  return path as RouteFamily;",
    tests: [...METRICS, ...FAMILIES],
  },
  {
    name: "metrics-requests-counted-twice",
    guarantee: "Each request is counted once, however often the metrics are scraped.",
    file: "bridge/metrics/metrics.ts",
    find: "          counts[i] = 0;\n",
    replace: "",
    tests: METRICS,
  },
  {
    name: "metrics-pending-never-falls",
    guarantee: "A prompt the person answered no longer counts as pending.",
    file: "bridge/metrics/metrics.ts",
    find: "        this.#pending.dec();\n",
    replace: "",
    tests: METRICS,
  },
  {
    name: "metrics-prompt-unseen",
    guarantee: "An invocation waiting for the person counts as a pending confirmation.",
    file: "bridge/core/invocation_watch.ts",
    find: "        watch.awaiting();\n",
    replace: "",
    tests: METRICS,
  },
  {
    name: "metrics-mcp-counted-as-http",
    guarantee: "An invocation is counted under the protocol it came by (MCP here).",
    file: "bridge/mcp/server.ts",
    find: '        protocol: "mcp",',
    replace: '        protocol: "http",',
    tests: METRICS,
  },
  {
    name: "metrics-a2a-counted-as-acp",
    guarantee: "An A2A task's invocation is counted under a2a, not under the other runs' protocol.",
    file: "bridge/a2a/tasks.ts",
    find: '{ client, protocol: "a2a" }',
    replace: '{ client, protocol: "acp" }',
    tests: SOURCES,
  },
  {
    name: "metrics-hang-up-as-app-failure",
    guarantee: "A client that hung up is no failure of the app's behind --upstream.",
    file: "bridge/upstream/proxy.ts",
    find:
      "      if (request.signal.aborted) return new Response(null, { status: CLIENT_CLOSED_REQUEST });",
    replace: "      if (request.signal.aborted) {\n" +
      '        this.#options.onFailure?.("bad_gateway");\n' +
      "        return new Response(null, { status: CLIENT_CLOSED_REQUEST });\n" +
      "      }",
    tests: SOURCES,
  },
  {
    name: "metrics-noscript-as-redis-error",
    guarantee: "A script Redis loads on first use is no Redis error.",
    file: "bridge/metrics/redis_trace.ts",
    find: "      if (context.batchMode === undefined && !unloaded(context)) {",
    replace: "      if (context.batchMode === undefined) {",
    tests: SOURCES,
  },
  {
    name: "metrics-on-bridge-port-cli",
    guarantee: "aim serve refuses --metrics on the bridge's own port, as a usage error.",
    file: "bridge/cli/serve.ts",
    find: "  if (address.port !== 0 && address.port === bridge.port) {",
    replace: "  if (false) {",
    tests: CLI,
  },
];
