/**
 * Which test files must kill the mutants of each module that `deno task mutate` mutates: the
 * modules that hold a security or consent rule (issue 32). One place, read by the task
 * (tests/mutate/run.ts) and checked by tests/mutate/mutate_test.ts (every file exists, every
 * elements/ module is tested from Deno, not from a browser).
 *
 * Stryker's command runner runs a target's tests once per mutant, so a target names the fastest
 * test files that should kill its mutants: the module's unit tests, and a protocol or security
 * suite only where the rule is only reachable through the bridge. An elements/ module runs in
 * the browser, where Stryker's mutant switching cannot reach (the browser loads the bundle, built
 * before any mutant is chosen): its targets are Deno tests of its logic, never browser tests.
 *
 * @module
 */

/** The tests that must kill one module's mutants. */
export interface MutateTarget {
  /** Test files, relative to the repository root; a mutant survives when they all pass. */
  tests: readonly string[];
  /** Environment for the test run (for example `AIM_TEST_FAST_READS=0`). */
  env?: Readonly<Record<string, string>>;
  /**
   * Added to each mutant's time limit, ms, when `--timeout-ms` is not given: lower for a module
   * whose mutants often loop (a parser that no longer moves on), since each such mutant costs
   * its whole limit. @default {10000}
   */
  timeoutMs?: number;
  /**
   * Why these tests, when the choice is not obvious, or why the module is mapped but not yet
   * held to "no survivor that is not listed".
   */
  note?: string;
}

const UPSTREAM_NOTE =
  "Mapped for the lead's run after the upstream boundary's rewrite (issue 31); " +
  "its survivors are not chased on the branch that added the tool.";
const CREDENTIAL_NOTE = "Mapped for the lead's run after the rewrite of credential reading " +
  "(issue 32, front door); its survivors are not chased on the branch that added the tool.";
const TAB_NOTE = "Mapped for the lead's run after the tab channel's rewrite (issue 31, bounds); " +
  "its survivors are not chased on the branch that added the tool.";

/** Every module `deno task mutate` knows, relative to the repository root, with its tests. */
export const TARGETS: Readonly<Record<string, MutateTarget>> = {
  // Consent rules.
  "elements/page_tools.ts": {
    tests: ["tests/unit/page_tools_test.ts", "tests/unit/page_tool_runs_test.ts"],
  },
  "bridge/wire/webmcp_tools.ts": {
    tests: [
      "tests/unit/webmcp_tools_test.ts",
      "tests/unit/webmcp_tool_markup_test.ts",
      "tests/unit/webmcp_tools_rules_test.ts",
      "tests/unit/webmcp_tool_fields_test.ts",
    ],
  },
  "bridge/core/actions.ts": { tests: ["tests/unit/actions_test.ts"] },
  "elements/prompt.ts": {
    tests: ["tests/unit/prompt_test.ts", "tests/unit/approve_gate_test.ts"],
  },
  // The page's own check of an in-browser agent's input, with the bridge's bounds.
  "elements/input_check.ts": { tests: ["tests/unit/input_check_test.ts"] },
  // Input checks: the schema an action may declare, the check of an input against it (a
  // library validator with patterns and formats on RE2), the hint of a refusal, the example.
  "bridge/wire/input_schema.ts": {
    tests: ["tests/unit/input_schema_test.ts", "tests/unit/typed_input_test.ts"],
  },
  "bridge/input/action_spec.ts": {
    tests: ["tests/unit/action_spec_test.ts", "tests/unit/reserved_test.ts"],
  },
  // aim's bounds on an input, shared by the bridge's validator and the page's own check.
  "bridge/wire/input_bounds.ts": {
    tests: ["tests/unit/validate_test.ts", "tests/unit/input_check_test.ts"],
  },
  "bridge/input/validate.ts": {
    tests: [
      "tests/unit/validate_test.ts",
      "tests/unit/input_hint_test.ts",
      "tests/unit/schema_check_test.ts",
      "tests/unit/input_test.ts",
      "tests/unit/typed_input_test.ts",
    ],
  },
  "bridge/input/hint.ts": {
    tests: [
      "tests/unit/validate_test.ts",
      "tests/unit/input_hint_test.ts",
      "tests/unit/input_test.ts",
      "tests/unit/typed_input_test.ts",
    ],
  },
  "bridge/input/schema_check.ts": {
    tests: [
      "tests/unit/schema_check_test.ts",
      "tests/unit/validate_test.ts",
      "tests/unit/input_hint_test.ts",
      "tests/unit/input_test.ts",
    ],
  },
  "bridge/input/formats.ts": {
    tests: [
      "tests/unit/schema_check_test.ts",
      "tests/unit/validate_test.ts",
      "tests/unit/input_hint_test.ts",
    ],
  },
  "bridge/input/example.ts": { tests: ["tests/unit/example_test.ts"] },
  // The budget of the bridge's time a session's tabs may spend on checking new actions.
  "bridge/core/schema_checks.ts": { tests: ["tests/unit/schema_checks_test.ts"] },
  // The parser and its pieces: unit tests only (a mutant that loops costs its whole limit, and
  // the security suite's bridges would add seconds to each of some 700 mutants).
  "bridge/input/pattern.ts": {
    tests: ["tests/unit/pattern_parser_test.ts", "tests/unit/input_test.ts"],
    timeoutMs: 3000,
  },
  "bridge/input/pattern_parser.ts": {
    tests: ["tests/unit/pattern_parser_test.ts", "tests/unit/input_test.ts"],
    timeoutMs: 3000,
  },
  // The cache and the DFA's bounds (tests/security/pattern_test.ts holds them through a bridge,
  // at several times the cost per mutant).
  "bridge/input/pattern_cache.ts": {
    tests: ["tests/unit/pattern_cache_test.ts", "tests/unit/pattern_parser_test.ts"],
  },
  // The hang-up watch, on real TCP connections (tests/security/hang_up_test.ts holds the routes
  // that use it, end to end, at twice the cost per mutant).
  "bridge/http/hang_up.ts": {
    tests: ["tests/unit/hang_up_test.ts", "tests/unit/hang_up_watch_test.ts"],
    note: "Run on mutate3: 118 survivors, 19 since killed by hang_up_test's table of spellings; " +
      "the rest, most in the polling (check, probe, watchHangUp, canReadTables), are not chased.",
  },
  // The upstream boundary.
  "bridge/upstream/headers.ts": {
    tests: [
      "tests/upstream/header_filter_test.ts",
      "tests/upstream/headers_test.ts",
      "tests/upstream/hop_by_hop_test.ts",
      "tests/upstream/forwarding_test.ts",
    ],
    note: UPSTREAM_NOTE,
  },
  // The verdicts, without a bridge (tests/upstream/spellings_test.ts sends the same table
  // through a real aim, at several times the cost per mutant).
  "bridge/upstream/routes.ts": {
    tests: ["tests/upstream/paths_test.ts", "tests/upstream/headers_test.ts"],
  },
  "bridge/upstream/catalog.ts": {
    tests: [
      "tests/upstream/catalog_test.ts",
      "tests/upstream/catalog_bounds_test.ts",
      "tests/upstream/catalog_reads_test.ts",
    ],
    note: UPSTREAM_NOTE,
  },
  "bridge/upstream/anonymous_read.ts": {
    tests: ["tests/upstream/catalog_reads_test.ts", "tests/upstream/catalog_test.ts"],
    note: UPSTREAM_NOTE,
  },
  "bridge/upstream/sitemap.ts": {
    tests: ["tests/upstream/catalog_reads_test.ts", "tests/upstream/catalog_test.ts"],
    note: UPSTREAM_NOTE,
  },
  // UpstreamProxy itself in front of an app (tests/upstream/proxy_test.ts holds the same
  // through a real aim, with a 100 MB upload: ten times the cost per mutant).
  "bridge/upstream/proxy.ts": {
    tests: ["tests/upstream/forward_test.ts", "tests/upstream/answers_test.ts"],
  },
  // The proxy's time limits and hang-up watch, one timer for all.
  "bridge/upstream/deadlines.ts": {
    tests: ["tests/upstream/deadlines_test.ts", "tests/upstream/forward_test.ts"],
  },
  "bridge/upstream/request_body.ts": {
    tests: ["tests/upstream/request_body_test.ts"],
    note: UPSTREAM_NOTE,
  },
  "bridge/upstream/websocket.ts": {
    tests: ["tests/upstream/websocket_test.ts"],
    note: UPSTREAM_NOTE,
  },
  // aim beside the site's web server (the beside merge): mapped so that every upstream module
  // has its tests; the run over them is the upstream boundary's (mutate2).
  "bridge/upstream/beside.ts": {
    tests: ["tests/upstream/beside_credentials_test.ts", "tests/upstream/beside_config_test.ts"],
    note: UPSTREAM_NOTE,
  },
  "bridge/upstream/beside_config.ts": {
    tests: ["tests/upstream/beside_config_test.ts"],
    note: UPSTREAM_NOTE,
  },
  "bridge/upstream/beside_haproxy.ts": {
    tests: ["tests/upstream/beside_config_test.ts"],
    note: UPSTREAM_NOTE,
  },
  "bridge/upstream/beside_nginx.ts": {
    tests: ["tests/upstream/beside_config_test.ts"],
    note: UPSTREAM_NOTE,
  },
  "bridge/upstream/beside_paths.ts": {
    tests: ["tests/upstream/beside_config_test.ts"],
    note: UPSTREAM_NOTE,
  },
  // Token and credential reading, and the front door that reads them before routing.
  "bridge/http/credentials.ts": {
    tests: ["tests/upstream/credentials_test.ts"],
    note: CREDENTIAL_NOTE,
  },
  "bridge/http/front_door.ts": {
    tests: ["tests/unit/front_door_test.ts", "tests/security/front_door_test.ts"],
  },
  // Each module's own unit tests first (every spelling of a token, proxy hops, body limits; the
  // tab key over any token), then the credential suite through a bridge.
  "bridge/http/request.ts": {
    tests: [
      "tests/unit/http_request_test.ts",
      "tests/unit/http_request_edges_test.ts",
      "tests/security/credential_test.ts",
      "tests/unit/auth_test.ts",
    ],
    note: "Run on mutate3: four survivors are left to look at (the empty-body test with a length " +
      "declared and no body, the read's catch, hostName's bracket test twice).",
  },
  "bridge/http/token.ts": {
    tests: [
      "tests/unit/http_token_test.ts",
      "tests/security/credential_test.ts",
      "tests/protocol/http_tokens_test.ts",
    ],
  },
  "bridge/site/page_identity.ts": {
    tests: ["tests/upstream/page_identity_test.ts"],
    note: TAB_NOTE,
  },
  "bridge/core/channel_budget.ts": {
    tests: ["tests/unit/channel_budget_test.ts", "tests/protocol/channel_budget_test.ts"],
    note: TAB_NOTE,
  },
  // Bounds on the bridge's costly work and a tab's messages: the fair gate (a rate and a line
  // per key), the budget of addresses' characters, the count of a state's bytes.
  "bridge/core/fair_gate.ts": {
    tests: ["tests/unit/fair_gate_test.ts", "tests/unit/auth_test.ts"],
  },
  "bridge/core/address_budget.ts": { tests: ["tests/unit/address_budget_test.ts"] },
  // Its only tests are in the security suite; the one that drives a bridge costs a few seconds.
  "bridge/core/state_bytes.ts": { tests: ["tests/security/state_limit_test.ts"] },
  "bridge/core/tab.ts": {
    tests: [
      "tests/protocol/channel_test.ts",
      "tests/protocol/confirm_wait_test.ts",
      "tests/protocol/lease_test.ts",
      "tests/protocol/navigate_test.ts",
    ],
    note: TAB_NOTE,
  },
  "bridge/core/relay_queue.ts": {
    tests: [
      "tests/unit/relay_queue_test.ts",
      "tests/protocol/channel_test.ts",
      "tests/protocol/confirm_wait_test.ts",
      "tests/protocol/invoke_queue_test.ts",
      "tests/protocol/navigate_test.ts",
    ],
    note: TAB_NOTE,
  },
  "bridge/core/tab_connection.ts": {
    tests: [
      "tests/protocol/channel_test.ts",
      "tests/protocol/confirm_wait_test.ts",
      "tests/protocol/lease_test.ts",
      "tests/protocol/channel_budget_test.ts",
    ],
    note: TAB_NOTE,
  },
  "bridge/core/tab_messages.ts": {
    tests: [
      "tests/protocol/channel_test.ts",
      "tests/protocol/confirm_wait_test.ts",
      "tests/protocol/lease_test.ts",
      "tests/protocol/channel_budget_test.ts",
      "tests/protocol/navigate_test.ts",
    ],
    note: TAB_NOTE,
  },
};
