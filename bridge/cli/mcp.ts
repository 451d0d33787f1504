/**
 * `aim mcp URL`: a stdio MCP server for hosts that only launch local commands. It
 * forwards to the MCP endpoint of the bridge at URL with the session token from `AIM_TOKEN`,
 * so its tools and results are the session's own.
 *
 * @module
 */
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { MCP_PATH } from "../mcp/routes.ts";
import { connectRemote, createProxyServer } from "../mcp/proxy.ts";
import { CliError, type CliIO, Exit, parseFlags } from "./common.ts";

export const MCP_USAGE = `Usage: AIM_TOKEN=<token> aim mcp URL

Serves the page's session as an MCP server on stdin and stdout, for MCP hosts that launch a
local command. URL is the page (http://127.0.0.1:8000/control-panel), the bridge, or its MCP
endpoint (.../__aim/mcp). The token is the one the page shows, from the AIM_TOKEN environment
variable only: a command line is visible to every user of the machine.

Options:
  -h, --help  this help
`;

/** The MCP endpoint of the bridge that serves `raw`. */
export function endpointOf(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`"${raw}" is not a URL`, Exit.Usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`"${raw}" is not an http(s) URL`, Exit.Usage);
  }
  return new URL(MCP_PATH, url.origin);
}

/** Runs `aim mcp`; resolves when the host closes stdin or the session ends. */
export async function mcpCommand(args: string[], io: CliIO): Promise<number> {
  if (args.some((arg) => arg === "--token" || arg.startsWith("--token="))) {
    throw new CliError(
      "aim mcp reads the token from AIM_TOKEN only, never from the command line",
      Exit.Usage,
    );
  }
  const { values, positionals } = parseFlags(args, {}, MCP_USAGE);
  if (values.help) {
    io.stdout(MCP_USAGE);
    return Exit.Ok;
  }
  if (positionals.length !== 1) throw new CliError(`give one URL\n\n${MCP_USAGE}`, Exit.Usage);
  const endpoint = endpointOf(positionals[0]!);
  const token = io.env("AIM_TOKEN");
  if (!token) {
    throw new CliError("set AIM_TOKEN to the session token the page shows", Exit.Usage);
  }
  // Checked here, so that a bad token is never echoed in an HTTP library's error.
  if (!/^[\x21-\x7e]{1,4096}$/.test(token)) {
    throw new CliError("AIM_TOKEN holds characters a token never has: copy it again", Exit.Usage);
  }
  let remote;
  try {
    remote = await connectRemote(endpoint, token);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(
      `cannot open an MCP session at ${endpoint}: ${message.replaceAll(token, "…")}`,
    );
  }
  const server = createProxyServer(remote);
  let closing = false;
  const done = new Promise<number>((resolve) => {
    server.onclose = () => {
      closing = true;
      resolve(Exit.Ok);
    };
    // The bridge went away: nothing more to serve.
    remote.onclose = () => {
      if (closing) return;
      closing = true;
      io.stderr("aim: the connection to the bridge closed\n");
      resolve(Exit.Failure);
    };
  });
  await server.connect(new StdioServerTransport());
  const code = await done;
  await server.close().catch(() => {});
  await remote.close().catch(() => {});
  return code;
}
