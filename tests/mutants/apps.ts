/**
 * Named mutants of issue 33 item 10, two real apps others wrote behind `aim serve --upstream`:
 * what they needed of aim: a person's form of a declared length reaches an app server that reads
 * only a `Content-Length` (Fossil's).
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const FOSSIL = "tests/browser/fossil_test.ts";
const BODY = "tests/upstream/request_body_test.ts";

export const mutants: Mutant[] = [
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
