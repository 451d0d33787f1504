/**
 * `aim mcp URL`: a stdio MCP server for hosts that only launch local commands. It
 * forwards to the MCP endpoint of the bridge at URL with the session token from `AIM_TOKEN`,
 * so its tools and results are the session's own.
 *
 * @module
 */
import process from "node:process";
import { Transform } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { MCP_PATH } from "../mcp/routes.ts";
import { connectRemote, createProxyServer } from "../mcp/proxy.ts";
import { CliError, type CliIO, Exit, parseFlags, sessionToken } from "./common.ts";

export const MCP_USAGE = `Usage: AIM_TOKEN=<token> aim mcp URL [--token TOKEN]

Serves the page's session as an MCP server on stdin and stdout, for MCP hosts that launch a
local command. URL is the page (http://127.0.0.1:8000/control-panel), the bridge, or its MCP
endpoint (.../__aim/mcp). The token is the one the page shows: the AIM_TOKEN environment
variable (the "env" of a host's server entry), or --token, as for aim invoke. Prefer AIM_TOKEN:
a command line is visible to every user of the machine while the server runs.

Options:
  --token TOKEN  the session token (default: $AIM_TOKEN)
  -h, --help     this help
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

/** The longest line `screenedStdin` holds while it waits for the line's end. */
const MAX_LINE = 10 * 1024 * 1024;

/** JSON-RPC 2.0's answer to what cannot be read as a request: it has no id to answer with. */
function unreadable(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }) + "\n";
}

/**
 * Stdin, with each line that is not JSON answered with JSON-RPC's `-32700` (parse error) and
 * left out: the SDK's stdio transport skips such a line without a word, and the host would
 * wait for an answer forever. A line longer than MAX_LINE goes through for the transport to
 * refuse.
 */
function screenedStdin(): Transform {
  const decoder = new TextDecoder();
  let pending = "";
  const screened = new Transform({
    transform(chunk: Uint8Array, _encoding, done) {
      pending += decoder.decode(chunk, { stream: true });
      let out = "";
      for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n")) {
        const line = pending.slice(0, end + 1);
        pending = pending.slice(end + 1);
        if (line.trim() === "" || parses(line)) out += line;
        else process.stdout.write(unreadable(-32700, "Parse error: the line is not JSON"));
      }
      if (pending.length > MAX_LINE) [out, pending] = [out + pending, ""];
      done(null, out);
    },
    flush(done) {
      done(null, pending + decoder.decode());
    },
  });
  return process.stdin.pipe(screened);
}

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/**
 * Answers JSON that is no JSON-RPC message with `-32600` (invalid request), with a null id, as
 * JSON-RPC 2.0 asks: the SDK's stdio transport only reports it to `onerror`.
 */
function answerUnreadable(transport: StdioServerTransport): void {
  const reported = transport.onerror;
  transport.onerror = (error) => {
    if (error.name === "ZodError" || error.constructor.name === "ZodError") {
      process.stdout.write(
        unreadable(-32600, "Invalid request: the line is not a JSON-RPC 2.0 message"),
      );
    }
    reported?.(error);
  };
}

/** Runs `aim mcp`; resolves when the host closes stdin or the session ends. */
export async function mcpCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, { token: { type: "string" } }, MCP_USAGE);
  if (values.help) {
    io.stdout(MCP_USAGE);
    return Exit.Ok;
  }
  if (positionals.length !== 1) {
    throw new CliError("give one URL", Exit.Usage, { usage: MCP_USAGE });
  }
  const endpoint = endpointOf(positionals[0]!);
  const token = sessionToken(values.token, io);
  if (token === undefined) {
    throw new CliError(
      "set AIM_TOKEN (or --token) to the session token the page shows",
      Exit.Usage,
    );
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
  const transport = new StdioServerTransport(screenedStdin(), process.stdout);
  await server.connect(transport);
  answerUnreadable(transport);
  const code = await done;
  await server.close().catch(() => {});
  await remote.close().catch(() => {});
  return code;
}
