/**
 * The public API check of `deno task check` (.ci/doc_lint.ts): `deno doc --lint` of the entry
 * points finds nothing to fix in the project; only references to types declared outside it (npm
 * packages', which deno doc reports as private) go through, counted.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type DocDiagnostic, isForeignTypeRef, parseDiagnostics } from "../../.ci/doc_lint.ts";
import { tempDir } from "../helpers/temp.ts";

const SCRIPT = fileURLToPath(new URL("../../.ci/doc_lint.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** deno doc --lint's output for a missing doc and a private type, as Deno 2.9 words it. */
const OUTPUT = `Warning Failed resolving types. Could not find package 'node'
error[missing-jsdoc]: exported symbol is missing JSDoc documentation
  --> /p/lib/a.ts:3:3
   | 
 3 |   size: number;
   |   ^

error[private-type-ref]: public type 'read' references private type 'Context'
   --> /p/lib/a.ts:9:1
    | 
  9 | export function read(c: Context): void {}
    | ^
    = hint: make the referenced type public or remove the reference
    | 
190 | export declare class Context<E extends Env = any> {
    | - this is the referenced type
    | 

  info: to ensure documentation is complete all types that are exposed in the public API must be public

error: Found 2 documentation lint errors.
`;

/** Runs the check in `cwd` over `entries`. */
async function check(cwd: string, entries: string[]): Promise<{ code: number; text: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-run", "--allow-read", SCRIPT, ...entries],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

Deno.test("parseDiagnostics() reads each diagnostic's code, place and referenced declaration", () => {
  assert.deepEqual(parseDiagnostics(OUTPUT), [
    {
      code: "missing-jsdoc",
      message: "exported symbol is missing JSDoc documentation",
      at: "/p/lib/a.ts:3:3",
    },
    {
      code: "private-type-ref",
      message: "public type 'read' references private type 'Context'",
      at: "/p/lib/a.ts:9:1",
      referenced: { line: 190, text: "export declare class Context<E extends Env = any> {" },
    },
  ]);
  assert.deepEqual(parseDiagnostics("Checked 3 files\n"), []);
});

Deno.test("isForeignTypeRef() lets through only a private type declared in no project file", () => {
  const [missing, privateRef] = parseDiagnostics(OUTPUT) as [DocDiagnostic, DocDiagnostic];
  const unrelated = new Map([["lib/a.ts", "export const a = 1;\n"]]);
  assert.equal(isForeignTypeRef(privateRef, unrelated), true);
  // The same declaration at that line of a project file: the project's own, to export or hide.
  const lines = Array.from({ length: 189 }, () => "");
  const own = new Map([["lib/b.ts", [...lines, privateRef.referenced!.text].join("\n")]]);
  assert.equal(isForeignTypeRef(privateRef, own), false);
  // Any other diagnostic is never let through.
  assert.equal(isForeignTypeRef(missing, unrelated), false);
  assert.equal(isForeignTypeRef({ ...privateRef, referenced: undefined! }, unrelated), false);
});

Deno.test("the public API of bridge/mod.ts, elements/mod.ts and main.ts has nothing to fix", async () => {
  const { code, text } = await check(ROOT, ["bridge/mod.ts", "elements/mod.ts", "main.ts"]);
  assert.equal(code, 0, text);
  assert.match(text, /nothing to fix/);
});

Deno.test("the check names an undocumented export and a private type, and passes once fixed", async () => {
  await using temp = await tempDir("aim-doc-lint-");
  const write = (text: string) => Deno.writeTextFile(`${temp.path}/mod.ts`, text);
  await write(
    "/**\n * A module.\n *\n * @module\n */\n" +
      "interface Size {\n  n: number;\n}\n" +
      "export function size(): Size {\n  return { n: 1 };\n}\n",
  );
  const bad = await check(temp.path, ["mod.ts"]);
  assert.equal(bad.code, 1, bad.text);
  assert.match(bad.text, /mod\.ts:9:17: missing-jsdoc/);
  assert.match(bad.text, /private-type-ref: public type 'size' references private type 'Size'/);
  await write(
    "/**\n * A module.\n *\n * @module\n */\n" +
      "/** A size. */\nexport interface Size {\n  /** How many. */\n  n: number;\n}\n" +
      "/** The size. */\nexport function size(): Size {\n  return { n: 1 };\n}\n",
  );
  const good = await check(temp.path, ["mod.ts"]);
  assert.equal(good.code, 0, good.text);
  assert.match(good.text, /nothing to fix$/m);
});
