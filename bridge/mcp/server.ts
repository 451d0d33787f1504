/**
 * One aim session as an MCP server (the official SDK's low-level `Server`): its actions
 * as tools, the read tool, and calls that go through {@linkcode BridgeCore.invoke}, the same
 * path as `POST /__aim/invoke`.
 *
 * @example
 * ```ts
 * import type { Transport } from "@modelcontextprotocol/server";
 * import type { BridgeCore } from "../core/bridge.ts";
 * import type { Session } from "../core/session.ts";
 * import { createSessionServer } from "./server.ts";
 *
 * declare const core: BridgeCore;
 * declare const session: Session; // await core.authenticate(token)
 * declare const transport: Transport; // any MCP transport
 * const server = createSessionServer({ core, session, origin: () => "http://127.0.0.1:8000" });
 * await server.connect(transport);
 * ```
 *
 * @module
 */
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { AimError } from "../errors/aim_error.ts";
import type { ActionSpec } from "../wire/schemas.ts";
import { ToldStates } from "./answers.ts";
import {
  errorResult,
  type McpToolResult,
  READ_TOOL,
  readResult,
  sessionTools,
  successResult,
  unwrapArguments,
} from "./tools.ts";

/** The name and version the server gives in `initialize`. */
export const SERVER_INFO = { name: "aim", version: "0.1.0" } as const;

/**
 * The `_meta` key of a `tools/call` that carries an idempotency key: a retry with the same key
 * in the same session gets the first answer and never runs the action twice, as with the
 * `Idempotency-Key` header of `POST /__aim/invoke`.
 */
export const IDEMPOTENCY_META_KEY = "aim/idempotency-key";

const INSTRUCTIONS = "These tools are the actions of a web page a person delegated to you, " +
  "run in their browser tab. A result holds the state the first time, then the changes (JSON " +
  "Patch) since the state_version you were last told. Destructive tools wait for the person " +
  "to confirm in the page, and fail with `declined` if they refuse.";

/** What one session's MCP server needs. */
export interface SessionServerOptions {
  core: BridgeCore;
  session: Session;
  /** The bridge's origin as the client reaches it, for the URLs in the manifest. */
  origin: () => string;
  /** The client's address, for per-client limits (login throttling). */
  client?: () => string;
  /** Also cancels the calls this server runs (a call served apart from its MCP session). */
  signal?: AbortSignal;
  /**
   * The states this MCP session told its agent, shared by every server that answers for it,
   * so that results say what changed since; without it, the server keeps its own.
   */
  told?: ToldStates;
}

/** The spec of `name` for this session: registered now, else the page's public catalog. */
async function findSpec(
  core: BridgeCore,
  session: Session,
  origin: string,
  name: string,
): Promise<ActionSpec | undefined> {
  const live = core.sessionActions(session).find((spec) => spec.id === name);
  if (live) return live;
  // No tab holds the session: the catalog still says how a page action takes its input, so a
  // call is answered `browser_not_connected` rather than refused for its wrapping.
  const manifest = await core.manifest(session.page, null, origin).catch(() => null);
  const action = manifest?.actions.find((a) => a.id === name);
  return action ? { ...action, protected: false, read_only: false } : undefined;
}

function idempotencyKey(ctx: ServerContext): string | undefined {
  const key = ctx.mcpReq._meta?.[IDEMPOTENCY_META_KEY];
  if (key === undefined) return undefined;
  if (typeof key !== "string" || !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `_meta["${IDEMPOTENCY_META_KEY}"] must be 1 to 255 visible ASCII characters.`,
    );
  }
  return key;
}

/** Creates the MCP server of one aim session. */
export function createSessionServer(options: SessionServerOptions): Server {
  const { core, session } = options;
  const told = options.told ?? new ToldStates();
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions: INSTRUCTIONS,
  });

  server.setRequestHandler("tools/list", () => ({
    tools: sessionTools(core.sessionActions(session)),
  }));

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const origin = options.origin();
    const project = (result: McpToolResult) =>
      server.projectCallToolResult(result as CallToolResult, undefined);
    if (name === READ_TOOL) {
      const since = (args as { since?: unknown } | undefined)?.since;
      if (since !== undefined && !(Number.isSafeInteger(since) && (since as number) > 0)) {
        return project(errorResult({
          error: "invalid_input",
          message: `since must be a state_version (a positive integer), or left out for the ` +
            `whole state; got ${JSON.stringify(since)}.`,
        }));
      }
      try {
        const manifest = await core.manifest(session.page, session, origin);
        return project(readResult(manifest, told, { since: since as number | undefined }));
      } catch (error) {
        if (error instanceof AimError) return project(errorResult(error.toJSON()));
        throw error;
      }
    }
    const key = idempotencyKey(ctx);
    const spec = await findSpec(core, session, origin, name);
    const { input, wrapped } = unwrapArguments(spec, args);
    const progressToken = ctx.mcpReq._meta?.progressToken;
    try {
      const answer = await core.invoke(session, { actionId: name, input }, {
        protocol: "mcp",
        idempotencyKey: key,
        client: options.client?.(),
        signal: options.signal
          ? AbortSignal.any([ctx.mcpReq.signal, options.signal])
          : ctx.mcpReq.signal,
        // Only a client that asked for progress hears that the person is being asked.
        onAwaiting: progressToken === undefined ? undefined : (message) => {
          ctx.mcpReq.notify({
            method: "notifications/progress",
            params: {
              progressToken,
              progress: 0,
              message: `Waiting for the person to confirm "${name}" in the page: ${message}`,
            },
          }).catch(() => {});
        },
      });
      return project(successResult(answer, told));
    } catch (error) {
      if (!(error instanceof AimError)) throw error;
      // An unknown tool (or a name no action could have) is a protocol error; everything the
      // action says is a tool result.
      if (error.code === "unknown_action" || error.code === "bad_request") {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool "${name}": ${error.message} List the tools again.`,
          error.toJSON(),
        );
      }
      return project(errorResult(error.toJSON(), spec, wrapped));
    }
  });

  return server;
}
