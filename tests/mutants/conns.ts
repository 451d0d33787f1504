/**
 * Named mutants of the bounds on connections and streams: a bridge whose accepting failed
 * listens again, and requests that stay open are bounded per client address and in all.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const STREAMS = ["tests/security/streams_test.ts"];

export const mutants: Mutant[] = [
  {
    name: "no-relisten-after-accept-failure",
    guarantee:
      "A bridge whose accept loop failed (Too many open files) listens again once the flood ends.",
    file: "bridge/serve/serve.ts",
    find: "  watch(server);\n  const shutdown = () => {",
    replace: "  const shutdown = () => {",
    tests: ["tests/security/connections_test.ts"],
  },
  {
    name: "no-stream-bound-per-client",
    guarantee: "One client address holds at most perClient event streams and long polls.",
    file: "bridge/core/streams.ts",
    find: "if (held >= this.limits.perClient) {",
    replace: "if (false) {",
    tests: STREAMS,
  },
  {
    name: "no-stream-bound-in-all",
    guarantee: "The bridge holds at most `total` event streams and long polls in all.",
    file: "bridge/core/streams.ts",
    find: "if (this.#open >= this.limits.total) {",
    replace: "if (false) {",
    tests: STREAMS,
  },
  {
    name: "stream-slot-kept-after-hang-up",
    guarantee: "A stream whose reader hangs up gives its slot back.",
    file: "bridge/core/streams.ts",
    find: "{ flush: release, cancel: release }",
    replace: "{ flush: release }",
    tests: STREAMS,
  },
  {
    name: "long-poll-not-counted",
    guarantee: "A long poll (Prefer: wait=N) takes one of its client's stream slots.",
    file: "bridge/http/session_manifests.ts",
    find: 'const release = this.#core.streams.take(c.get("client"));',
    replace: "const release = () => {};",
    tests: STREAMS,
  },
  {
    name: "event-stream-not-counted",
    guarantee: "An event stream takes one of its client's stream slots.",
    file: "bridge/http/session_routes.ts",
    find: 'return await core.streams.hold(c.get("client"), ',
    replace: 'return await ((_: string, make: () => Response) => make())(c.get("client"), ',
    tests: STREAMS,
  },
  {
    name: "mcp-stream-not-counted",
    guarantee: "The MCP session's GET stream takes one of its client's stream slots.",
    file: "bridge/mcp/routes.ts",
    find: 'if (progressCall || method === "GET") {',
    replace: "if (false) {",
    tests: STREAMS,
  },
  {
    name: "a2a-stream-not-counted",
    guarantee: "An A2A message/stream takes one of its client's stream slots.",
    file: "bridge/a2a/routes.ts",
    find: "STREAMING_METHODS.has(methodOf(body))",
    replace: "false",
    tests: STREAMS,
  },
  {
    name: "acp-stream-not-counted",
    guarantee: "An ACP run in stream mode takes one of its client's stream slots.",
    file: "bridge/acp/routes.ts",
    find: 'request.mode === "stream" ? core.streams.take',
    replace: "false ? core.streams.take",
    tests: STREAMS,
  },
  {
    name: "shutdown-waits-on-open-requests",
    guarantee:
      "A shutdown waits a bounded time for open requests: a client that never reads cannot keep aim serve alive.",
    file: "bridge/serve/serve.ts",
    find: "new Promise((resolve) => timer = setTimeout(resolve, DEFAULTS.serverCloseMs)),",
    replace: "new Promise(() => {}),",
    tests: ["tests/cli/serve_test.ts", "tests/cli/file_limit_test.ts"],
  },
];
