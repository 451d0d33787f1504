/**
 * The words of the warnings to page authors (elements/warnings.ts): the sentence of each code,
 * and the rules every warning follows: `[aim] <sentence> (docs/elements.md#<code>)`, once per
 * sentence, at most {@linkcode MAX_WARNINGS} in all, so that a page that keeps making new ones
 * cannot grow what the elements remember of them. A chunk of its own, loaded on the first
 * warning; it imports nothing at run time.
 *
 * @module
 */
/** Warnings given at most; past it, one last says that more were left out. */
export const MAX_WARNINGS = 100;

/** What makes a warning's sentence of the parts it names (an element's name, the problem). */
type Sentence = (parts: readonly unknown[]) => string;

/**
 * Every kind of warning: its code, named as its section in docs/elements.md ("Author warnings").
 */
export type WarningCode =
  | "action-markup"
  | "state-markup"
  | "state-not-json"
  | "state-too-large"
  | "password-field"
  | "action-rejected"
  | "channel-closed"
  | "chunk-not-loaded"
  | "wait-until-failed"
  | "webmcp-tool";

/** The sentence of each kind of warning, by its {@linkcode WarningCode}. */
export const SENTENCES: { readonly [code in WarningCode]: Sentence } = {
  "action-markup": ([name, problem]) => `<aim-action name="${name}">: ${problem}`,
  "state-markup": ([name, problem]) => `<aim-state name="${name}">: ${problem}`,
  "state-not-json": ([name]) => `<aim-state name="${name}"> is not JSON`,
  "state-too-large": ([limit]) =>
    `the state is over ${limit} bytes: the agent sees it cut (see its "_truncated" key)`,
  "password-field": ([tag, name]) => `<${tag} name="${name}">: passwords are never published`,
  "action-rejected": ([id, reason]) => `"${id}" was rejected: ${reason}`,
  "channel-closed": ([reason]) => `channel closed: ${reason}`,
  "chunk-not-loaded": ([what, error]) => `the ${what} did not load: ${error}`,
  "wait-until-failed": ([error]) => `waitUntil: ${error}`,
  "webmcp-tool": ([problem]) => `${problem}`,
};

const given = new Set<string>();

/** The warnings given so far, in order (a copy): for tests. */
export function givenWarnings(): string[] {
  return [...given];
}

/** Gives the warning of `code` with `parts`, unless it was given or the bound is reached. */
export function issue(code: WarningCode, parts: readonly unknown[], el?: Element): void {
  const sentence = SENTENCES[code](parts);
  if (given.has(sentence) || given.size > MAX_WARNINGS) return;
  given.add(sentence);
  console.warn(
    given.size > MAX_WARNINGS
      ? "[aim] more warnings were left out (docs/elements.md#author-warnings)"
      : `[aim] ${sentence} (docs/elements.md#${code})`,
    el ?? "",
  );
}
