/**
 * The `aim` command line: `serve` (the default), `check`, `manifest`, `invoke`, `mcp`,
 * `hash-password` and `proxy-config`.
 *
 * @module
 */
import { CliError, type CliIO, Exit, processIO } from "./bridge/cli/common.ts";

export type { CliIO };

/** The version of aim. */
export const VERSION = "0.1.0";

const USAGE = `Usage: aim <command> [options]

Commands:
  serve [ROOT]             serve a site with the bridge (the default command)
  check [ROOT|FILE...]     check a site's <aim-action> and <aim-state> declarations
  manifest FILE.html       print a page's public manifest, offline
  invoke URL [ACTION] [IN] read a page's manifest or invoke an action, as an agent
  mcp URL                  serve a page's session as an MCP server on stdio (AIM_TOKEN)
  hash-password            read a password on stdin, print its scrypt hash
  proxy-config nginx|haproxy --upstream URL
                           print the web server's configuration with aim beside it

Run 'aim <command> --help' for a command's options. 'aim --version' prints the version.
`;

type Command = (args: string[], io: CliIO) => Promise<number>;

/**
 * Each command's module, loaded only when the command runs: `aim serve` never loads the MCP
 * client and stdio server of `aim mcp`. The specifiers are static strings, so that
 * `deno compile` embeds every command.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./bridge/cli/serve.ts")).serveCommand,
  check: async () => (await import("./bridge/cli/check.ts")).checkCommand,
  manifest: async () => (await import("./bridge/cli/manifest.ts")).manifestCommand,
  invoke: async () => (await import("./bridge/cli/invoke.ts")).invokeCommand,
  mcp: async () => (await import("./bridge/cli/mcp.ts")).mcpCommand,
  "hash-password": async () => (await import("./bridge/cli/hash_password.ts")).hashPasswordCommand,
  "proxy-config": async () => (await import("./bridge/cli/proxy_config.ts")).proxyConfigCommand,
};

/** Runs the command line; returns the exit code. */
export async function main(args: string[], io: CliIO = processIO): Promise<number> {
  const [first, ...rest] = args;
  if (first === "-h" || first === "--help" || first === "help") {
    io.stdout(USAGE);
    return Exit.Ok;
  }
  if (args.includes("-V") || args.includes("--version")) {
    io.stdout(`aim ${VERSION}\n`);
    return Exit.Ok;
  }
  // `aim`, `aim ROOT` and `aim --port 80` all mean serve.
  const named = first !== undefined && Object.hasOwn(COMMANDS, first);
  if (!named && first !== undefined && !first.startsWith("-") && /^[a-z][a-z-]*$/.test(first)) {
    try {
      await Deno.stat(first);
    } catch {
      io.stderr(`aim: unknown command "${first}"\n\n${USAGE}`);
      return Exit.Usage;
    }
  }
  const command = await COMMANDS[named ? first : "serve"]!();
  try {
    return await command(named ? rest : args, io);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    // `aim --bogus` implied serve: the general usage says what aim takes.
    const usage = error.usage === undefined ? "" : `\n${named ? error.usage : USAGE}`;
    io.stderr(`aim: ${error.message}\n${usage}`);
    return error.exitCode;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
