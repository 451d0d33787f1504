/**
 * `aim check` as a command (bridge/cli/check.ts), imported directly and run in this process on a
 * temporary site: which files of a folder it reads (each extension spelling; no dot folder, no
 * node_modules, at most 32 levels down), each summary line it may print, its exit code with and
 * without --strict, its JSON, and each refusal. What a page's problems are is
 * tests/cli/check_*_test.ts's and tests/unit/check_*_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CHECK_USAGE, checkCommand } from "../../bridge/cli/check.ts";
import { CliError, Exit } from "../../bridge/cli/common.ts";
import { writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

const SCRIPT = '<script type="module" src="/__aim/elements.js"></script>';
const CLEAN = `<!doctype html><title>T</title>${SCRIPT}<aim-state name="s"></aim-state>`;
/** One error: two actions of one id. */
const ERROR = `${SCRIPT}<aim-action name="a" description="A"></aim-action>
<aim-action name="a" description="A"></aim-action>`;
/** One warning: a selector that matches nothing in the static page. */
const WARNING = `${SCRIPT}<aim-action name="b" description="B" click="#nowhere"></aim-action>`;

/** Runs `aim check ARGS` in `cwd`; its exit code and what it printed. */
async function check(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await checkCommand(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: () => Promise.resolve(""),
    env: () => undefined,
  });
  return { code, stdout, stderr };
}

Deno.test("aim check reads every .html and .htm file of a folder in any case, but no dot folder, node_modules or 33rd level", async () => {
  await using dir = await tempDir();
  const deep = Array.from({ length: 33 }, (_, i) => `d${i}`).join("/");
  writeSite(dir.path, {
    "a.html": CLEAN,
    "b.HTM": CLEAN,
    "sub/c.Html": CLEAN,
    "notes.txt": ERROR,
    "page.html.bak": ERROR,
    ".git/x.html": ERROR,
    ".hidden.html": ERROR,
    "node_modules/pkg/x.html": ERROR,
    [`${deep.split("/").slice(0, 32).join("/")}/ok.html`]: CLEAN,
    [`${deep}/too-deep.html`]: ERROR,
  });
  const out = await check(["--format", "json", dir.path]);
  assert.equal(out.code, Exit.Ok, out.stdout);
  assert.deepEqual(JSON.parse(out.stdout), { files: 4, problems: [], errors: 0, warnings: 0 });
});

Deno.test("aim check says each summary in words, and fails on an error, or on a warning with --strict", async () => {
  const cases: [Record<string, string>, string, number, number][] = [
    [{ "a.html": CLEAN }, "1 file checked, no problems", Exit.Ok, Exit.Ok],
    [{ "a.html": CLEAN, "b.html": CLEAN }, "2 files checked, no problems", Exit.Ok, Exit.Ok],
    [{ "a.html": WARNING }, "1 file checked, no problems, 1 warning", Exit.Ok, Exit.Failure],
    [
      { "a.html": WARNING, "b.html": WARNING },
      "2 files checked, no problems, 2 warnings",
      Exit.Ok,
      Exit.Failure,
    ],
    [{ "a.html": ERROR }, "1 problem in 1 file", Exit.Failure, Exit.Failure],
    [{ "a.html": ERROR, "b.html": ERROR }, "2 problems in 2 files", Exit.Failure, Exit.Failure],
    [
      { "a.html": ERROR, "b.html": WARNING },
      "1 problem and 1 warning in 2 files",
      Exit.Failure,
      Exit.Failure,
    ],
  ];
  for (const [files, summary, code, strict] of cases) {
    await using dir = await tempDir();
    writeSite(dir.path, files);
    const out = await check([dir.path]);
    assert.equal(out.stderr, `aim check: ${summary}\n`);
    assert.equal(out.code, code, summary);
    assert.equal((await check(["--strict", dir.path])).code, strict, `${summary} --strict`);
  }
});

Deno.test("aim check prints each problem as file:line:col, a warning marked, and the same in JSON with its severity", async () => {
  await using dir = await tempDir();
  writeSite(dir.path, { "a.html": ERROR, "b.html": WARNING });
  const text = await check([join(dir.path, "b.html"), join(dir.path, "a.html")]);
  const lines = text.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 2);
  assert.match(
    lines[0]!,
    new RegExp(`^${join(dir.path, "a.html")}:2:1: (?!warning)`),
    "sorted by file",
  );
  assert.match(lines[1]!, new RegExp(`^${join(dir.path, "b.html")}:1:\\d+: warning: `));
  const json = JSON.parse((await check(["--format", "json", dir.path])).stdout);
  assert.deepEqual([json.files, json.errors, json.warnings], [2, 1, 1]);
  assert.deepEqual(json.problems.map((p: { severity: string }) => p.severity), [
    "error",
    "warning",
  ]);
});

Deno.test("aim check refuses an unknown format, a target that does not exist and a file it cannot read", async () => {
  await using dir = await tempDir();
  const refusals: [string[], number, string][] = [
    [["--format", "xml", dir.path], Exit.Usage, '--format must be text or json, got "xml"'],
    [[join(dir.path, "none.html")], Exit.Failure, `${join(dir.path, "none.html")} does not exist`],
  ];
  for (const [args, exitCode, message] of refusals) {
    await assert.rejects(
      check(args),
      (e) => e instanceof CliError && e.exitCode === exitCode && e.message === message,
      args.join(" "),
    );
  }
  const binary = join(dir.path, "bad.html");
  await Deno.writeFile(binary, new Uint8Array([0xff]));
  await Deno.chmod(binary, 0o000);
  if (Deno.uid() !== 0) {
    await assert.rejects(
      check([binary]),
      (e) => e instanceof CliError && e.message.startsWith(`cannot read ${binary}: `),
    );
  }
  assert.deepEqual(await check(["--help"]), { code: Exit.Ok, stdout: CHECK_USAGE, stderr: "" });
});
