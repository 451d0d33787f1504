/**
 * Named mutants of issue 33 item 10, two real apps others wrote behind `aim serve --upstream`:
 * what they needed of aim. The next page's answer carries its actions (an agent invokes them at
 * once), a person's form of a declared length reaches an app server that reads only a
 * `Content-Length` (Fossil's), and the apps' own tasks, with the person asked exactly for the
 * steps that save.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const ARRIVAL = "tests/browser/arrival_test.ts";
const FOSSIL = "tests/browser/fossil_test.ts";
const BODY = "tests/upstream/request_body_test.ts";

export const mutants: Mutant[] = [
  {
    name: "apps-arrival-before-registrations",
    guarantee: "A page that another one left for counts as arrived only once the registrations " +
      "its tab sent before its state applied: the agent answered may invoke its actions at once.",
    file: "bridge/core/tab_messages.ts",
    find: "h.then(() => h.session.tab.markReported(h.tab));",
    replace: "h.session.tab.markReported(h.tab);",
    tests: [ARRIVAL, FOSSIL],
  },
  {
    name: "apps-state-before-actions",
    guarantee: "A tab that connects sends its actions before its state, so that the bridge holds " +
      "them when the state makes the page arrived.",
    file: "elements/client.ts",
    find: "    this.#register();\n    this.#flush();",
    replace: "    this.#flush(true);",
    tests: [ARRIVAL],
  },
  {
    name: "apps-body-always-chunked",
    guarantee: "A request body of a declared length within the bound reaches the app with its " +
      "Content-Length, so that an app server that reads only that (Fossil's) gets the form.",
    file: "bridge/upstream/request_body.ts",
    find: "if (length !== null && length <= BUFFERED_BODY_BYTES) {",
    replace: "if (length !== null && length < 0) {",
    tests: [BODY, FOSSIL],
  },
  {
    name: "apps-body-buffered-unbounded",
    guarantee: "A body over the bound streams to the app as it comes, never read whole into " +
      "aim's memory.",
    file: "bridge/upstream/request_body.ts",
    find: "if (length !== null && length <= BUFFERED_BODY_BYTES) {",
    replace: "if (length !== null) {",
    tests: [BODY],
  },
];
