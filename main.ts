/**
 * @module The `aim` command line: `aim serve [ROOT]` runs the bridge over a site folder.
 */
import { parseArgs } from "node:util";
import { serve } from "./bridge/mod.ts";
import { createUserStore, type UserRecord } from "./bridge/core/auth.ts";

const VERSION = "0.1.0";

const USAGE = `Usage: aim serve [ROOT] [options]

Serves the static site in ROOT (default: the current folder) with the AIM bridge:
manifests at <page>.json and <page>.toon, sessions, invocation and the tab channel.

Options:
  --port N         port to listen on; 0 picks a free one (default 8000)
  --host H         address to listen on (default 127.0.0.1)
  --allowed-host H a host name allowed in Host besides loopback names (repeatable)
  --users FILE     JSON list of {"username","passwordHash","name"?} for login
  -h, --help       show this help
  -V, --version    show the version
`;

/** Exit codes. */
const EXIT_USAGE = 2;
const EXIT_FAILURE = 1;

function fail(message: string, code = EXIT_FAILURE): never {
  console.error(`aim: ${message}`);
  Deno.exit(code);
}

async function loadUsers(file: string): Promise<UserRecord[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    fail(`cannot read users file ${file}: ${error instanceof Error ? error.message : error}`);
  }
  let records: unknown;
  try {
    records = JSON.parse(text);
  } catch {
    fail(`users file ${file} is not valid JSON`);
  }
  if (
    !Array.isArray(records) ||
    !records.every((r) => typeof r?.username === "string" && typeof r?.passwordHash === "string")
  ) {
    fail(`users file ${file} must be a JSON list of {"username", "passwordHash"} objects`);
  }
  return records as UserRecord[];
}

/** Runs the command line. */
export async function main(args: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "allowed-host": { type: "string", multiple: true },
        users: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    });
  } catch (error) {
    console.error(`aim: ${error instanceof Error ? error.message : error}\n\n${USAGE}`);
    Deno.exit(EXIT_USAGE);
  }
  const { values, positionals } = parsed;
  if (values.help) return void console.log(USAGE);
  if (values.version) return void console.log(`aim ${VERSION}`);
  const [command = "serve", ...rest] = positionals;
  if (command !== "serve") {
    console.error(`aim: unknown command "${command}"\n\n${USAGE}`);
    Deno.exit(EXIT_USAGE);
  }
  if (rest.length > 1) fail(`serve takes one ROOT, got ${rest.length}`, EXIT_USAGE);
  const root = rest[0] ?? ".";
  try {
    if (!(await Deno.stat(root)).isDirectory) fail(`ROOT ${root} is not a folder`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) fail(`ROOT ${root} does not exist`);
    throw error;
  }
  const port = Number(values.port ?? "8000");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    fail(`--port must be a whole number from 0 to 65535, got "${values.port}"`, EXIT_USAGE);
  }
  const users = values.users ? createUserStore(await loadUsers(values.users)) : undefined;
  let served;
  try {
    served = serve({
      root,
      port,
      hostname: values.host ?? "127.0.0.1",
      users,
      allowedHosts: values["allowed-host"]?.map((h) => h.toLowerCase()),
      onError: (error) => console.error("aim: internal error:", error),
      onListen: ({ url }) => console.log(`aim: serving ${root} at ${url}`),
    });
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) fail(`port ${port} is already in use`);
    if (error instanceof Deno.errors.AddrNotAvailable) fail(`cannot listen on ${values.host}`);
    throw error;
  }
  const stop = () => {
    console.log("aim: shutting down");
    served.shutdown();
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await served.finished;
}

if (import.meta.main) await main(Deno.args);
