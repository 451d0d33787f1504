/**
 * Tests of `deno task mutate` itself, without running Stryker: the mapping names existing
 * modules and test files (Deno tests for elements/ modules, never browser ones), every entry of
 * the list of equivalents parses, has a reason and still names text of its file, a mutant is
 * matched by what it is and not by its line, and the report counts each file's score.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { EQUIVALENTS } from "./equivalents.ts";
import {
  enclosingFunctions,
  entryFor,
  normalized,
  offsetOf,
  outcomeOf,
  readMutants,
  type StrykerReport,
} from "./report.ts";
import { STRYKER, strykerConfig, targetPath } from "./run.ts";
import { TARGETS } from "./targets.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Stryker's mutators (its instrumenter's names, as its report prints them). */
const MUTATORS = new Set([
  "ArithmeticOperator",
  "ArrayDeclaration",
  "ArrowFunction",
  "AssignmentOperator",
  "BlockStatement",
  "BooleanLiteral",
  "CallExpression",
  "ConditionalExpression",
  "EqualityOperator",
  "LogicalOperator",
  "MethodExpression",
  "ObjectLiteral",
  "OptionalChaining",
  "Regex",
  "StringLiteral",
  "UnaryOperator",
  "UpdateOperator",
]);

function exists(path: string): boolean {
  try {
    return Deno.statSync(`${ROOT}${path}`).isFile;
  } catch {
    return false;
  }
}

Deno.test("every module of the mapping and every test file it names exists", () => {
  assert.ok(Object.keys(TARGETS).length >= 20);
  for (const [file, target] of Object.entries(TARGETS)) {
    assert.ok(exists(file), `${file} does not exist`);
    assert.ok(target.tests.length > 0, `${file} names no test file`);
    for (const test of target.tests) {
      assert.ok(exists(test), `${file}: its test file ${test} does not exist`);
      assert.match(test, /^tests\/.+_test\.ts$/, `${file}: ${test} is not a test file`);
    }
  }
});

Deno.test("the elements' modules are mutated with Deno tests, which mutant switching reaches, never browser tests", () => {
  const elements = Object.entries(TARGETS).filter(([file]) => file.startsWith("elements/"));
  assert.ok(elements.length >= 2);
  for (const [file, target] of elements) {
    for (const test of target.tests) {
      assert.ok(!test.startsWith("tests/browser/"), `${file}: ${test}`);
      const text = Deno.readTextFileSync(`${ROOT}${test}`);
      assert.doesNotMatch(text, /puppeteer|browser\/harness|launchBrowser/, `${file}: ${test}`);
    }
  }
});

Deno.test("the modules the issue names as holding a security or consent rule are all mapped", () => {
  const required = [
    "elements/page_tools.ts",
    "bridge/wire/webmcp_tools.ts",
    "bridge/core/actions.ts",
    "elements/prompt.ts",
    "bridge/http/hang_up.ts",
    "bridge/http/request.ts",
    "bridge/http/token.ts",
  ];
  const folders = ["bridge/input/", "bridge/upstream/"];
  for (const folder of folders) {
    for (const entry of Deno.readDirSync(`${ROOT}${folder}`)) {
      if (entry.isFile && entry.name.endsWith(".ts")) required.push(`${folder}${entry.name}`);
    }
  }
  for (const entry of Deno.readDirSync(`${ROOT}bridge/core`)) {
    if (/^tab.*\.ts$/.test(entry.name)) required.push(`bridge/core/${entry.name}`);
  }
  for (const file of required) {
    assert.ok(TARGETS[file], `${file} is not in tests/mutate/targets.ts`);
  }
});

Deno.test("every accepted equivalent names a mapped file, a mutator, text still in its file and a reason", () => {
  const seen = new Set<string>();
  for (const entry of EQUIVALENTS) {
    const where = `${entry.file} ${entry.mutator} in ${entry.in}: ${entry.original}`;
    assert.ok(TARGETS[entry.file], `${where}: the file is not mapped`);
    assert.ok(MUTATORS.has(entry.mutator), `${where}: no mutator is named ${entry.mutator}`);
    assert.ok(entry.in.trim() !== "", `${where}: no enclosing function`);
    assert.notEqual(normalized(entry.original), normalized(entry.replacement), where);
    assert.ok(entry.original.trim() !== "", `${where}: no original text`);
    assert.match(entry.reason, /^[A-Z`"(].{20,}[.)]$/s, `${where}: the reason must be a sentence`);
    const source = normalized(Deno.readTextFileSync(`${ROOT}${entry.file}`));
    assert.ok(
      source.includes(normalized(entry.original)),
      `${where}: the text is no longer in the file; run deno task mutate ${entry.file} again`,
    );
    if (entry.near !== undefined) {
      assert.ok(
        source.includes(normalized(entry.near)),
        `${where}: its line is no longer in the file`,
      );
    }
    const key = JSON.stringify([
      entry.file,
      entry.mutator,
      entry.in,
      entry.original,
      entry.replacement,
      entry.near,
    ]);
    assert.ok(!seen.has(key), `${where}: listed twice`);
    seen.add(key);
  }
});

const SOURCE = `const top = 1 + 2;
export function plain(a: number): number {
  const inner = (b: number) => b * 2;
  return inner(a) - 1;
}
export class Gate {
  #field = (e: Event) => e.type === "x";
  plain = 3 > 2;
  method(): void {
    [1].map((n) => n + 1);
  }
  #secret(): boolean {
    function named() { return true; }
    return named();
  }
}
const holder = { act() { return "a" + "b"; } };
`;

Deno.test("a mutant's enclosing function is read from the source: class members, nested and anonymous functions", () => {
  const at = enclosingFunctions(SOURCE);
  const find = (text: string) => {
    const start = SOURCE.indexOf(text);
    assert.ok(start >= 0, text);
    return at(start, start + text.length);
  };
  assert.equal(find("1 + 2"), "(top level)");
  assert.equal(find("b * 2"), "plain.inner");
  assert.equal(find("inner(a) - 1"), "plain");
  assert.equal(find('e.type === "x"'), "Gate.#field");
  assert.equal(find("3 > 2"), "Gate.plain");
  assert.equal(find("n + 1"), "Gate.method");
  assert.equal(find("return true;"), "Gate.#secret.named");
  assert.equal(find("return named();"), "Gate.#secret");
  assert.equal(find('"a" + "b"'), "act");
});

Deno.test("offsetOf() reads the report's lines and columns from 1", () => {
  const source = "ab\ncd\nef";
  assert.equal(offsetOf(source, { line: 1, column: 1 }), 0);
  assert.equal(offsetOf(source, { line: 2, column: 2 }), 4);
  assert.equal(offsetOf(source, { line: 3, column: 3 }), 8);
  assert.throws(() => offsetOf(source, { line: 5, column: 1 }), RangeError);
});

/** A report of one mutant of `source` replacing `text`, with `status`. */
function reportOf(source: string, text: string, status: string): StrykerReport {
  const start = source.indexOf(text);
  const position = (offset: number) => {
    const before = source.slice(0, offset).split("\n");
    return { line: before.length, column: before.at(-1)!.length + 1 };
  };
  return {
    files: {
      "x.ts": {
        source,
        mutants: [{
          id: "1",
          mutatorName: "ArithmeticOperator",
          replacement: "inner(a) + 1",
          status,
          location: { start: position(start), end: position(start + text.length) },
        }],
      },
    },
  };
}

Deno.test("a survivor is matched by what it is: lines added above it or whitespace changed keep it listed", () => {
  const entry = {
    file: "x.ts",
    mutator: "ArithmeticOperator",
    in: "plain",
    original: "inner(a) - 1",
    replacement: "inner(a) + 1",
    reason: "An example.",
  };
  const moved = `// a comment\n\n${SOURCE.replace("inner(a) - 1", "inner(a)  -\n    1")}`;
  for (const [source, text] of [[SOURCE, "inner(a) - 1"], [moved, "inner(a)  -\n    1"]]) {
    const outcome = outcomeOf("x.ts", readMutants(reportOf(source!, text!, "Survived"), "x.ts"), [
      entry,
    ]);
    assert.equal(outcome.listed.length, 1);
    assert.equal(outcome.unlisted.length, 0);
    assert.deepEqual(outcome.stale, []);
    assert.equal(outcome.score, 0);
    assert.equal(outcome.scoreWithoutEquivalents, 100);
  }
  // The same text moved into another function is another mutant.
  const elsewhere = SOURCE.replace("inner(a) - 1", "inner(a)").replace(
    "return named();",
    "return named() && inner(a) - 1;",
  ).replace("#secret(): boolean {", "#secret(): boolean {\n    const inner = (n: number) => n;");
  const outcome = outcomeOf(
    "x.ts",
    readMutants(reportOf(elsewhere, "inner(a) - 1", "Survived"), "x.ts"),
    [entry],
  );
  assert.equal(outcome.unlisted.length, 1);
  assert.equal(outcome.unlisted[0]!.in, "Gate.#secret");
  assert.deepEqual(outcome.stale, [entry]);
});

Deno.test("near tells apart two mutants of the same text in one function, by the text of their lines", () => {
  const source =
    "export function f(a?: string[]) {\n  const x = a ?? [];\n  return [...x, ...(a ?? [])];\n}\n";
  const at = (text: string, from = 0) => source.indexOf(text, from);
  const position = (offset: number) => {
    const before = source.slice(0, offset).split("\n");
    return { line: before.length, column: before.at(-1)!.length + 1 };
  };
  const first = at("?? []") + 3;
  const second = at("?? []", first) + 3;
  const report: StrykerReport = {
    files: {
      "x.ts": {
        source,
        mutants: [first, second].map((start, i) => ({
          id: String(i),
          mutatorName: "ArrayDeclaration",
          replacement: '["Stryker was here"]',
          status: "Survived",
          location: { start: position(start), end: position(start + 2) },
        })),
      },
    },
  };
  const mutants = readMutants(report, "x.ts");
  const entry = {
    file: "x.ts",
    mutator: "ArrayDeclaration",
    in: "f",
    original: "[]",
    replacement: '["Stryker was here"]',
    near: "const x = a ?? [];",
    reason: "An example.",
  };
  const outcome = outcomeOf("x.ts", mutants, [entry]);
  assert.deepEqual(outcome.listed.map((m) => m.id), ["0"]);
  assert.deepEqual(outcome.unlisted.map((m) => m.id), ["1"]);
  assert.match(
    entryFor(mutants[1]!, mutants),
    /near: "return \[\.\.\.x, \.\.\.\(a \?\? \[\]\)\];"/,
  );
  assert.doesNotMatch(entryFor(mutants[1]!, [mutants[1]!]), /near/);
});

Deno.test("the outcome of a file counts killed, timed out, listed, unlisted and errors, and its scores", () => {
  const mutants = [
    "Killed",
    "Killed",
    "Timeout",
    "Survived",
    "Survived",
    "NoCoverage",
    "CompileError",
  ]
    .map((status, i) => ({
      id: String(i),
      lines: `f("${i}");`,
      file: "x.ts",
      mutator: "StringLiteral",
      in: "f",
      original: `"${i}"`,
      replacement: '""',
      status,
      line: i + 1,
      column: 1,
      statusReason: "",
    }));
  const outcome = outcomeOf("x.ts", mutants, [{
    file: "x.ts",
    mutator: "StringLiteral",
    in: "f",
    original: '"3"',
    replacement: '""',
    reason: "An example.",
  }]);
  assert.equal(outcome.mutants, 7);
  assert.equal(outcome.killed, 2);
  assert.equal(outcome.timeouts, 1);
  assert.deepEqual(outcome.listed.map((m) => m.id), ["3"]);
  assert.deepEqual(outcome.unlisted.map((m) => m.id), ["4", "5"]);
  assert.equal(outcome.errors, 1);
  assert.equal(outcome.score, 50);
  assert.equal(outcome.scoreWithoutEquivalents, 60);
});

Deno.test("Stryker runs the file's own tests with its command runner, without type checking, pinned", () => {
  const config = strykerConfig("bridge/core/actions.ts", {
    concurrency: 2,
    timeoutMs: 10000,
    reportFile: "/tmp/r.json",
  });
  assert.equal(config.testRunner, "command");
  assert.deepEqual(config.mutate, ["bridge/core/actions.ts"]);
  assert.equal(config.concurrency, 2);
  const command = (config.commandRunner as { command: string }).command;
  assert.match(command, / test --allow-all --no-check /);
  assert.ok(command.endsWith("'tests/unit/actions_test.ts'"), command);
  assert.throws(() =>
    strykerConfig("nowhere.ts", { concurrency: 1, timeoutMs: 1, reportFile: "" })
  );
  assert.equal(targetPath("./bridge/core/actions.ts", ROOT), "bridge/core/actions.ts");
  assert.equal(targetPath("../core/actions.ts", `${ROOT}bridge/http`), "bridge/core/actions.ts");
  const lock = JSON.parse(Deno.readTextFileSync(`${ROOT}tests/mutate/stryker.lock`));
  const version = /@stryker-mutator\/core@([\d.]+)/.exec(STRYKER)![1];
  assert.ok(
    Object.hasOwn(lock.npm, `@stryker-mutator/core@${version}`),
    "tests/mutate/stryker.lock locks the Stryker that run.ts runs",
  );
});
