/**
 * `aim check [ROOT|FILE…]`: validates a site's declarations as a linter would.
 *
 * @module
 */
import { join } from "node:path";
import { checkPage, type CheckProblem } from "../site/check.ts";
import { CliError, type CliIO, Exit, parseFlags } from "./common.ts";

export const CHECK_USAGE = `Usage: aim check [ROOT|FILE...] [--format text|json] [--strict]

Checks the <aim-action> and <aim-state> declarations of every HTML page in ROOT (default: the
current folder) or of the given files: unique action ids, schemas of the allowed shape and types,
an input-example valid against its schema, descriptions, form= that matches a form, a click= that
would ignore a declared input, items=/key=/fill= bindings and <aim-field>s (duplicate or
secret-looking names, types that do not fit their control), patterns the bridge cannot run or
that backtrack catastrophically in a backtracking regex engine, and the elements script tag.
Selectors that match nothing in the static HTML (click=, from=, items=, fields) are warnings, since
a script may render what they name. Prints file:line:col: message; exits 1 when it finds a
problem. Warnings print as file:line:col: warning: message and fail only with --strict.

Options:
  --format F   text (default) or json (every problem with "severity": "error" or "warning")
  --strict     exit 1 on warnings too
  -h, --help   this help
`;

async function htmlFiles(path: string, out: string[], depth = 0): Promise<void> {
  if (depth > 32) return;
  for await (const entry of Deno.readDir(path)) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const full = join(path, entry.name);
    if (entry.isDirectory) await htmlFiles(full, out, depth + 1);
    else if (entry.isFile && /\.html?$/i.test(entry.name)) out.push(full);
  }
}

/** Runs `aim check`. */
export async function checkCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(
    args,
    { format: { type: "string" }, strict: { type: "boolean" } },
    CHECK_USAGE,
  );
  if (values.help) {
    io.stdout(CHECK_USAGE);
    return Exit.Ok;
  }
  const format = values.format ?? "text";
  if (format !== "text" && format !== "json") {
    throw new CliError(`--format must be text or json, got "${format}"`, Exit.Usage);
  }
  const files: string[] = [];
  for (const target of positionals.length ? positionals : ["."]) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(target);
    } catch {
      throw new CliError(`${target} does not exist`);
    }
    if (info.isDirectory) await htmlFiles(target, files);
    else files.push(target);
  }
  const problems: CheckProblem[] = [];
  for (const file of files.sort()) {
    let html: string;
    try {
      html = await Deno.readTextFile(file);
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${error instanceof Error ? error.message : error}`);
    }
    problems.push(...checkPage(html, file));
  }
  const errors = problems.filter((p) => p.severity !== "warning").length;
  const warnings = problems.length - errors;
  if (format === "json") {
    io.stdout(JSON.stringify({ files: files.length, problems, errors, warnings }, null, 2) + "\n");
  } else {
    for (const p of problems) {
      const kind = p.severity === "warning" ? "warning: " : "";
      io.stdout(`${p.file}:${p.line}:${p.column}: ${kind}${p.message}\n`);
    }
    const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const inFiles = count(files.length, "file");
    const summary = errors && warnings
      ? `${count(errors, "problem")} and ${count(warnings, "warning")} in ${inFiles}`
      : errors
      ? `${count(errors, "problem")} in ${inFiles}`
      : warnings
      ? `${inFiles} checked, no problems, ${count(warnings, "warning")}`
      : `${inFiles} checked, no problems`;
    io.stderr(`aim check: ${summary}\n`);
  }
  return errors || (values.strict && warnings) ? Exit.Failure : Exit.Ok;
}
