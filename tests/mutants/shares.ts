/**
 * Named mutants of the bounded shares of costly work (issue 31, deliverable 4): session mints and
 * password checks go at an address's rate, runs past an address's bound wait in a bounded line for
 * one of theirs to end, the tabs of one address share one budget of characters (a person behind
 * the same address never closed for another's flood), and a session that spent its budget gets
 * no new tab socket until it refills.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const SHARES = ["tests/security/fair_share_test.ts"];
const GATE = ["tests/unit/fair_gate_test.ts"];
const RUNS = ["tests/acp/run_store_test.ts"];
const BUDGET = ["tests/protocol/channel_budget_test.ts"];

export const mutants: Mutant[] = [
  {
    name: "mint-rate-unbounded",
    guarantee: "An address's session mints past its burst wait for their turns at its rate.",
    file: "bridge/core/bridge.ts",
    find: "rate: options.mintRate ?? CORE_DEFAULTS.mintRate,",
    replace: "rate: undefined,",
    tests: SHARES,
  },
  {
    name: "mint-line-unbounded",
    guarantee: "Past its line of waiting mints, an address is refused at once with 429.",
    file: "bridge/core/bridge.ts",
    find: "maxWaiting: DEFAULTS.maxWaitingPerClient,\n          rate: options.mintRate",
    replace: "maxWaiting: Infinity,\n          rate: options.mintRate",
    tests: SHARES,
  },
  {
    name: "mints-under-way-unbounded",
    guarantee: "An address has at most eight mints under way; its ninth waits for one to end.",
    file: "bridge/core/bridge.ts",
    find: "max: DEFAULTS.maxMintsPerClient,",
    replace: "max: Infinity,",
    tests: SHARES,
  },
  {
    name: "login-rate-unbounded",
    guarantee: "An address starts its password checks at a rate, whatever the accounts.",
    file: "bridge/core/server_actions.ts",
    find: "rate: options.loginRatePerAddress ?? LOGIN_DEFAULTS.loginRatePerAddress,",
    replace: "rate: undefined,",
    tests: SHARES,
  },
  {
    name: "login-throttled-refused-out-of-turn",
    guarantee:
      "A login that must wait is refused on its address's turn, so that a flood of refusals costs no more than one of checks.",
    file: "bridge/core/server_actions.ts",
    find: "const throttled = (await waitOf()) > 0;",
    replace:
      "const throttled = (await waitOf()) > 0;\n        if (throttled) throw tooManyAttempts(Math.max(1, await waitOf()));",
    tests: SHARES,
  },
  {
    name: "gate-line-unbounded-per-key",
    guarantee: "A key's line holds at most its bound; the next caller is refused at once.",
    file: "bridge/core/fair_gate.ts",
    find: "const crowded = keys.some((key) => this.waitingOf(key) >= this.#limit(key).maxWaiting);",
    replace: "const crowded = false;",
    tests: GATE,
  },
  {
    name: "gate-newcomer-takes-turn",
    guarantee: "A newcomer never takes the turn of a caller already waiting for it.",
    file: "bridge/core/fair_gate.ts",
    find: "    if (this.#waiting.length) this.#admit();\n",
    replace: "",
    tests: GATE,
  },
  {
    name: "run-line-refused-at-once",
    guarantee: "A run past its address's runs under way waits in line before it is refused.",
    file: "bridge/runs/registry.ts",
    find: "this.#line.size >= this.limits.maxWaiting || this.limits.lineWaitMs <= 0",
    replace: "true",
    tests: [...RUNS, ...SHARES],
  },
  {
    name: "run-line-unbounded-per-client",
    guarantee: "The line of one address holds at most maxWaitingPerClient runs.",
    file: "bridge/runs/registry.ts",
    find: "signal?.aborted || waiting >= this.limits.maxWaitingPerClient ||",
    replace: "signal?.aborted ||",
    tests: RUNS,
  },
  {
    name: "run-end-not-a-turn",
    guarantee: "A run that ends lets the longest waiting run of its session or address in.",
    file: "bridge/runs/registry.ts",
    find: "    run.ended.then(() => this.#turn(run));\n",
    replace: "",
    tests: RUNS,
  },
  {
    name: "address-characters-unbounded",
    guarantee: "The tabs of one address share one budget of characters, all its sessions together.",
    file: "bridge/core/tab_messages.ts",
    find: "(credited ? null : this.#addresses.charge(tab.client, session.id, length, now));",
    replace: "null;",
    tests: [...BUDGET, "tests/unit/address_budget_test.ts"],
  },
  {
    name: "address-budget-closes-light-session",
    guarantee:
      "Past an address's budget, only a session that sent at least its share is closed: never a person behind the same address.",
    file: "bridge/core/address_budget.ts",
    find: "if (short && (this.#heavy(entry, session) ||",
    replace: "if (short && (true ||",
    tests: [...BUDGET, "tests/unit/address_budget_test.ts"],
  },
  {
    name: "tab-upgrade-while-budget-spent",
    guarantee:
      "A session whose tabs spent their budget gets no new socket (429, Retry-After) until it refills.",
    file: "bridge/http/tab_socket.ts",
    find: "if (wait > 0) {",
    replace: "if (false) {",
    tests: BUDGET,
  },
];
