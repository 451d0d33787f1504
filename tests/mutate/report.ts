/**
 * Reading Stryker's JSON report (the mutation-testing-report-schema) for `deno task mutate`: each
 * mutant's identity as tests/mutate/equivalent.ts matches it (file, mutator, enclosing function,
 * original and replacement text), which survivors the list of equivalents accepts, the score of
 * each file, and the report printed for a person.
 *
 * @module
 */
import { parse } from "../deps/babel_parser.ts";
import type { Equivalent } from "./equivalent.ts";

/** A position in Stryker's report: lines from 1, columns from 1 (the end exclusive). */
export interface ReportPosition {
  line: number;
  column: number;
}

/** One mutant of Stryker's report (the fields read here). */
export interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  statusReason?: string;
  location: { start: ReportPosition; end: ReportPosition };
}

/** Stryker's JSON report (the fields read here). */
export interface StrykerReport {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
}

/** What a mutant is, independent of where its file puts it. */
export interface MutantIdentity {
  file: string;
  mutator: string;
  in: string;
  original: string;
  replacement: string;
}

/** One mutant of the report with its identity and where it is, for the person reading. */
export interface ReadMutant extends MutantIdentity {
  id: string;
  /** The text of the lines the mutant is on, white space as single spaces. */
  lines: string;
  status: string;
  line: number;
  column: number;
  /** The first lines of why it was killed (the failing test), or why it errored. */
  statusReason: string;
}

/** Each run of white space as one space, trimmed: how texts are compared. */
export function normalized(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The offset in `source` of a position of the report. */
export function offsetOf(source: string, position: ReportPosition): number {
  let offset = 0;
  for (let line = 1; line < position.line; line++) {
    const next = source.indexOf("\n", offset);
    if (next < 0) throw new RangeError(`line ${position.line} is past the end of the source`);
    offset = next + 1;
  }
  return offset + position.column - 1;
}

/** A node of Babel's tree, as far as it is read here. */
interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null &&
    typeof (value as Node).type === "string" && typeof (value as Node).start === "number";
}

/** The written name of a key (`name`, `#name`, `"name"`), or undefined for a computed one. */
function keyName(key: unknown): string | undefined {
  if (!isNode(key)) return undefined;
  if (key.type === "Identifier") return String(key.name);
  if (key.type === "PrivateName") return `#${keyName(key.id)}`;
  if (key.type === "StringLiteral" || key.type === "NumericLiteral") return String(key.value);
  return undefined;
}

const FUNCTIONS = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
  "ClassMethod",
  "ClassPrivateMethod",
  "ObjectMethod",
]);

/** The name of a function-like node from itself or what holds it, or undefined (anonymous). */
function functionName(node: Node, parent: Node | undefined): string | undefined {
  if (node.type === "FunctionDeclaration" || node.type === "FunctionExpression") {
    const own = keyName(node.id);
    if (own) return own;
  }
  if (node.type === "ClassMethod" || node.type === "ClassPrivateMethod") {
    return keyName(node.key);
  }
  if (node.type === "ObjectMethod") return keyName(node.key);
  if (!parent) return undefined;
  if (parent.type === "VariableDeclarator") return keyName(parent.id);
  if (
    parent.type === "ClassProperty" || parent.type === "ClassPrivateProperty" ||
    parent.type === "ObjectProperty"
  ) {
    return keyName(parent.key);
  }
  return undefined;
}

/**
 * A finder of the function that holds a range of `source` (TypeScript): the named functions
 * around it, outermost first, joined by dots, a class member (a method, or a field's
 * initializer) with its class: `mergeHints`, `PageTools.#read`, `ApproveGate.#moved`,
 * `startPageTools.sync`; an anonymous function counts as the named one around it. `(top level)`
 * outside any named function or field. The source is parsed once.
 */
export function enclosingFunctions(source: string): (start: number, end: number) => string {
  const tree = parse(source, {
    sourceType: "module",
    plugins: ["typescript"],
    errorRecovery: true,
  }) as unknown as { program: Node };
  return (start, end) => {
    const names: string[] = [];
    let className = "(class)";
    const visit = (node: Node, parent: Node | undefined): void => {
      if (node.type === "ClassDeclaration" || node.type === "ClassExpression") {
        className = keyName(node.id) ?? (parent ? keyName(parent.id) : undefined) ?? "(class)";
      }
      const property = node.type === "ClassProperty" || node.type === "ClassPrivateProperty";
      if (property) {
        // A field's initializer, a function or not, is the field's.
        const own = keyName(node.key);
        if (own) names.push(`${className}.${own}`);
      } else if (FUNCTIONS.has(node.type)) {
        const own = functionName(node, parent);
        const member = node.type === "ClassMethod" || node.type === "ClassPrivateMethod";
        const field = parent?.type === "ClassProperty" || parent?.type === "ClassPrivateProperty";
        if (own && !field) names.push(member ? `${className}.${own}` : own);
      }
      for (const [key, child] of Object.entries(node)) {
        if (key === "leadingComments" || key === "trailingComments" || key === "loc") continue;
        for (const item of Array.isArray(child) ? child : [child]) {
          if (isNode(item) && item.start <= start && end <= item.end) visit(item, node);
        }
      }
    };
    visit(tree.program, undefined);
    return names.length ? names.join(".") : "(top level)";
  };
}

/** Every mutant of `file` in the report, with its identity. */
export function readMutants(report: StrykerReport, file: string): ReadMutant[] {
  const entry = report.files[file];
  if (!entry) return [];
  const { source } = entry;
  const enclosing = enclosingFunctions(source);
  const sourceLines = source.split("\n");
  return entry.mutants.map((mutant) => {
    const start = offsetOf(source, mutant.location.start);
    const end = offsetOf(source, mutant.location.end);
    return {
      id: mutant.id,
      file,
      mutator: mutant.mutatorName,
      in: enclosing(start, end),
      original: normalized(source.slice(start, end)),
      replacement: normalized(mutant.replacement ?? ""),
      lines: normalized(
        sourceLines.slice(mutant.location.start.line - 1, mutant.location.end.line).join("\n"),
      ),
      status: mutant.status,
      line: mutant.location.start.line,
      column: mutant.location.start.column,
      statusReason: mutant.statusReason ?? "",
    };
  }).sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Whether `entry` names the mutant `mutant`. */
export function matches(entry: Equivalent, mutant: MutantIdentity & { lines: string }): boolean {
  return entry.file === mutant.file && entry.mutator === mutant.mutator &&
    entry.in === mutant.in && normalized(entry.original) === mutant.original &&
    normalized(entry.replacement) === mutant.replacement &&
    (entry.near === undefined || mutant.lines.includes(normalized(entry.near)));
}

/** The five values an entry matches by, as one key. */
export function identityKey(mutant: MutantIdentity): string {
  return JSON.stringify([
    mutant.file,
    mutant.mutator,
    mutant.in,
    mutant.original,
    mutant.replacement,
  ]);
}

/** Statuses that count as detected: a test failed, or the run took too long. */
const DETECTED = new Set(["Killed", "Timeout"]);
/** Statuses that count as undetected. */
const UNDETECTED = new Set(["Survived", "NoCoverage"]);

/** What one file's run came to. */
export interface FileOutcome {
  file: string;
  mutants: number;
  killed: number;
  timeouts: number;
  /** Survivors an entry of the list of equivalents names. */
  listed: ReadMutant[];
  /** Survivors no entry names: each one fails the run. */
  unlisted: ReadMutant[];
  /** Mutants Stryker could not run (a compile or runtime error, ignored ones). */
  errors: number;
  /** Entries of the list for this file that named no survivor of this run. */
  stale: Equivalent[];
  /** Detected out of all valid mutants, in percent, as Stryker counts it. */
  score: number;
  /** Detected out of the valid mutants not listed as equivalent, in percent. */
  scoreWithoutEquivalents: number;
}

/** The outcome of `file` from its mutants and the list of equivalents. */
export function outcomeOf(
  file: string,
  mutants: readonly ReadMutant[],
  equivalents: readonly Equivalent[],
): FileOutcome {
  const mine = equivalents.filter((entry) => entry.file === file);
  const used = new Set<Equivalent>();
  const listed: ReadMutant[] = [];
  const unlisted: ReadMutant[] = [];
  let killed = 0;
  let timeouts = 0;
  let errors = 0;
  for (const mutant of mutants) {
    if (mutant.status === "Killed") killed++;
    else if (mutant.status === "Timeout") timeouts++;
    else if (UNDETECTED.has(mutant.status)) {
      const entry = mine.find((candidate) => matches(candidate, mutant));
      if (entry) {
        used.add(entry);
        listed.push(mutant);
      } else unlisted.push(mutant);
    } else errors++;
  }
  const detected = killed + timeouts;
  const valid = detected + listed.length + unlisted.length;
  const percent = (part: number, whole: number) =>
    whole === 0 ? 100 : Math.floor((part / whole) * 10000) / 100;
  return {
    file,
    mutants: mutants.length,
    killed,
    timeouts,
    listed,
    unlisted,
    errors,
    stale: mine.filter((entry) => !used.has(entry)),
    score: percent(detected, valid),
    scoreWithoutEquivalents: percent(detected, valid - listed.length),
  };
}

/** Whether a status counts as detected (killed, or timed out). */
export function isDetected(status: string): boolean {
  return DETECTED.has(status);
}

/** A string as a TypeScript literal for an entry to paste (double quotes, as deno fmt writes). */
function literal(text: string): string {
  return JSON.stringify(text);
}

/**
 * An entry of tests/mutate/equivalents.ts for `mutant`, its reason left to write; with `near`
 * (its line) when another mutant of `all` has the same five values.
 */
export function entryFor(mutant: ReadMutant, all: readonly ReadMutant[] = [mutant]): string {
  const key = identityKey(mutant);
  const twin = all.some((other) => other !== mutant && identityKey(other) === key);
  return [
    "  {",
    `    file: ${literal(mutant.file)},`,
    `    mutator: ${literal(mutant.mutator)},`,
    `    in: ${literal(mutant.in)},`,
    `    original: ${literal(mutant.original)},`,
    `    replacement: ${literal(mutant.replacement)},`,
    ...(twin ? [`    near: ${literal(mutant.lines)},`] : []),
    `    reason: "",`,
    "  },",
  ].join("\n");
}

/** The lines a person reads for one file's outcome. */
export function describeOutcome(outcome: FileOutcome, seconds: number): string[] {
  const lines = [
    `${outcome.file}: ${outcome.mutants} mutants, ${outcome.killed} killed, ` +
    `${outcome.timeouts} timed out, ${outcome.listed.length} survived and listed as ` +
    `equivalent, ${outcome.unlisted.length} survived unlisted, ${outcome.errors} errors; ` +
    `score ${outcome.score}% (${outcome.scoreWithoutEquivalents}% of the mutants not listed); ` +
    `${seconds.toFixed(0)} s`,
  ];
  for (const mutant of outcome.unlisted) {
    lines.push(
      `  SURVIVED ${mutant.file}:${mutant.line}:${mutant.column} ${mutant.mutator} in ` +
        `${mutant.in}: ${mutant.original.slice(0, 160)} -> ${mutant.replacement.slice(0, 160)}`,
    );
  }
  for (const entry of outcome.stale) {
    lines.push(
      `  stale entry (no survivor of this run matches it; remove it if a test now kills it): ` +
        `${entry.mutator} in ${entry.in}: ${entry.original.slice(0, 100)} -> ` +
        entry.replacement.slice(0, 100),
    );
  }
  return lines;
}
