/**
 * Test helper: Fossil (Debian's `fossil`, an SCM with its own web app in C: tickets, wiki, login
 * with CSRF-checked forms), serving a new repository with `fossil server`, its templates (the
 * skin's header and footer, the ticket pages) those of tests/apps/fossil/: Fossil's own, with
 * aim's markup added between `<!-- aim -->` and `<!-- /aim -->`.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the annotated templates are. */
export const FOSSIL_TEMPLATES: string = fileURLToPath(new URL("../apps/fossil/", import.meta.url));

/** Each template: the repository setting that holds it, and its file in tests/apps/fossil/. */
export const FOSSIL_TEMPLATE_FILES: Readonly<Record<string, string>> = {
  header: "header.txt",
  footer: "footer.txt",
  "ticket-newpage": "ticket-newpage.th1",
  "ticket-viewpage": "ticket-viewpage.th1",
  "ticket-editpage": "ticket-editpage.th1",
};

/** The person's account in the repository. */
export const FOSSIL_USER = { name: "ada", password: "lovelace-1843" } as const;

/** Whether `fossil` can be run here (CI installs it: .ci/run). */
export const NO_FOSSIL: boolean = await new Deno.Command("fossil", {
  args: ["version"],
  stdout: "null",
  stderr: "null",
}).output().then((out) => !out.success, () => true);
if (NO_FOSSIL) {
  console.warn("fossil is missing: the Fossil app's tests are skipped (apt-get install fossil).");
}

/** Runs `fossil ARGS…` in `cwd`; its standard output, or a throw with what it said. */
async function fossil(cwd: string, args: string[], stdin?: string): Promise<string> {
  const child = new Deno.Command("fossil", {
    args,
    cwd,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    // Fossil names the acting user from USER; CI's environment may have none.
    env: { USER: "admin" },
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`fossil ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}${text}`);
  }
  return text;
}

/** A new repository in a temporary folder, with the person's account; returns the folder. */
export async function newRepository(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "aim-fossil-" });
  await fossil(dir, ["init", "repo.fossil", "--admin-user", "admin"]);
  await fossil(dir, [
    "user",
    "new",
    FOSSIL_USER.name,
    "ada@example.com",
    FOSSIL_USER.password,
    "-R",
    "repo.fossil",
  ]);
  // Read, file, change and comment on tickets, see contacts, read the wiki.
  await fossil(dir, ["user", "capabilities", FOSSIL_USER.name, "cejnrw", "-R", "repo.fossil"]);
  return dir;
}

/**
 * The text Fossil itself has for a template setting in the repository of `dir` (its built-in
 * default before any is set), read from its setup page as the administrator would, through
 * `fossil http` on standard input.
 */
export async function fossilTemplate(dir: string, setting: string): Promise<string> {
  const page = setting === "header" || setting === "footer"
    ? `/setup_skinedit?w=${setting === "header" ? 2 : 1}&sk=1`
    : `/tktsetup_${setting.replace("ticket-", "")}`;
  const answer = await fossil(dir, [
    "http",
    "repo.fossil",
    "--localauth",
    "--ipaddr",
    "127.0.0.1",
  ], `GET ${page} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n`);
  const textarea = answer.match(/<textarea[^>]*>([\s\S]*?)<\/textarea>/);
  if (!textarea) throw new Error(`fossil showed no template at ${page}: ${answer.slice(0, 300)}`);
  return textarea[1]!.replace(
    /&(lt|gt|quot|amp|#39);/g,
    (_, name: string) => ({ lt: "<", gt: ">", quot: '"', amp: "&", "#39": "'" })[name]!,
  );
}

/** A template of tests/apps/fossil/ without aim's blocks: what Fossil had there. */
export function withoutAim(template: string): string {
  return template.replace(/<!-- aim -->\n[\s\S]*?<!-- \/aim -->\n/g, "");
}

/** Fossil serving a repository, stopped (and its folder removed) on dispose. */
export interface FossilApp extends AsyncDisposable {
  readonly url: string;
  /** The repository's folder. */
  readonly dir: string;
}

/** A new repository with the templates of tests/apps/fossil/, served by `fossil server`. */
export async function startFossil(): Promise<FossilApp> {
  const dir = await newRepository();
  try {
    const rows = Object.entries(FOSSIL_TEMPLATE_FILES).map(([setting, file]) =>
      `('${setting}', readfile('${join(FOSSIL_TEMPLATES, file)}'), now())`
    );
    await fossil(dir, [
      "sql",
      "-R",
      "repo.fossil",
      `REPLACE INTO config(name, value, mtime) VALUES ${rows.join(", ")};`,
    ]);
    return await serveRepository(dir);
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}

/** `fossil server` on a free port of 127.0.0.1; resolves once it listens. */
async function serveRepository(dir: string): Promise<FossilApp> {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const child = new Deno.Command("fossil", {
    args: ["server", "--localhost", "--port", String(port), "repo.fossil"],
    cwd: dir,
    stdout: "piped",
    stderr: "null",
    env: { USER: "admin" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes("Listening for HTTP requests")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`fossil server did not start: ${output}`);
    output += value;
  }
  const drained = (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
