/**
 * The floor under the MCP budget: the official SDKs alone. A bare SDK server (the low-level
 * `Server` aim uses, one tool that answers at once, JSON answers) and a bare JSON endpoint, in
 * this process, with no aim code and no tab: what a `tools/call` costs over a plain `POST` when
 * nothing but the SDKs is in the way (bench/mcp_bench.ts measures it beside aim's, call by call).
 *
 * ```ts
 * import { startSdkFloor } from "./sdk_floor.ts";
 *
 * await using floor = await startSdkFloor();
 * await floor.post("x"); // {ok: true, actionId: "echo", result: "x", settled: true}
 * await floor.rawCall("x"); // the same `tools/call` result a client SDK would get
 * // connectClient("v2", floor.origin, "any token") calls its `echo` tool at /__aim/mcp
 * ```
 *
 * @module
 */
import {
  LATEST_PROTOCOL_VERSION,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/** A bare SDK server and a bare JSON endpoint, answering `echo` as aim's bench page does. */
export interface SdkFloor extends AsyncDisposable {
  /** Where both listen: MCP at `/__aim/mcp`, the JSON endpoint at `/invoke`. */
  readonly origin: string;
  /** `POST /invoke` with `input`; resolves to the parsed answer. */
  post(input: string): Promise<unknown>;
  /**
   * A `tools/call` of `echo` as one plain JSON-RPC `POST`, with no client SDK (the session is
   * opened on the first call): what the server SDK costs alone. Resolves to the call's result.
   */
  rawCall(input: string): Promise<unknown>;
}

/** The answer both give, shaped as aim's invoke answer to the bench's `echo`. */
function answer(input: unknown) {
  return { ok: true, actionId: "echo", result: input, settled: true };
}

/** Starts the floor on a free port of 127.0.0.1. */
export function startSdkFloor(): SdkFloor {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    if (new URL(req.url).pathname === "/invoke") {
      const body = await req.json();
      return Response.json(answer(body.input));
    }
    const id = req.headers.get("mcp-session-id");
    let transport = id === null ? undefined : sessions.get(id);
    if (!transport) {
      const opened: WebStandardStreamableHTTPServerTransport =
        new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, opened),
        });
      transport = opened;
      const mcp = new Server({ name: "sdk-floor", version: "1.0.0" }, {
        capabilities: { tools: { listChanged: true } },
      });
      mcp.setRequestHandler("tools/list", () => ({
        tools: [{
          name: "echo",
          description: "Answer the input back",
          inputSchema: {
            type: "object",
            properties: { input: { type: "string" } },
            required: ["input"],
          },
        }],
      }));
      mcp.setRequestHandler("tools/call", (request) => {
        const input = (request.params.arguments as { input?: unknown } | undefined)?.input;
        return {
          content: [{ type: "text", text: `result: ${String(input)}` }],
          structuredContent: answer(input),
        };
      });
      await mcp.connect(opened);
    }
    return await transport.handleRequest(req);
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const endpoint = `${origin}/__aim/mcp`;
  let raw: Promise<Record<string, string>> | undefined;
  let ids = 0;
  // What a client SDK sends: JSON-RPC over POST, in a session it opened with `initialize`.
  const rpc = async (headers: Record<string, string>, message: object) => {
    const res = await fetch(endpoint, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    });
    if (!res.ok) throw new Error(`raw MCP: ${res.status} ${await res.text()}`);
    const text = await res.text();
    return { res, body: text ? JSON.parse(text) : undefined };
  };
  const open = async () => {
    const { res } = await rpc({}, {
      id: ++ids,
      method: "initialize",
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "raw", version: "1.0.0" },
      },
    });
    const headers = {
      "Mcp-Session-Id": res.headers.get("mcp-session-id") ?? "",
      "Mcp-Protocol-Version": LATEST_PROTOCOL_VERSION,
    };
    await rpc(headers, { method: "notifications/initialized" });
    return headers;
  };
  return {
    origin,
    async rawCall(input) {
      const headers = await (raw ??= open());
      const { body } = await rpc(headers, {
        id: ++ids,
        method: "tools/call",
        params: { name: "echo", arguments: { input } },
      });
      if (!body?.result) throw new Error(`raw MCP: ${JSON.stringify(body)}`);
      return body.result;
    },
    async post(input) {
      const res = await fetch(`${origin}/invoke`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Bearer floor" },
        body: JSON.stringify({ actionId: "echo", input }),
      });
      return await res.json();
    },
    async [Symbol.asyncDispose]() {
      // A client's GET stream stays open until its transport closes.
      await Promise.all([...sessions.values()].map((t) => t.close()));
      await server.shutdown();
    },
  };
}
