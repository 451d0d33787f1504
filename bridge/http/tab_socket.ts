/**
 * The tab channel's HTTP side: `GET /__aim/tab` upgrades to a WebSocket for a tab that
 * presents its session's tab credential, and hands every message to the core.
 *
 * @module
 */
import { Hono } from "hono";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { AimError } from "../errors/aim_error.ts";
import { CREDENTIAL_PROTOCOL_PREFIX, TAB_PROTOCOL } from "../wire/names.ts";
import type { AppEnv } from "./env.ts";
import { forbiddenOrigin, isCrossOrigin } from "./request.ts";

/** A close reason within the 123 bytes a close frame allows. */
function closeReason(reason: string): string {
  const bytes = new TextEncoder().encode(reason);
  return bytes.length <= 120
    ? reason
    : new TextDecoder().decode(bytes.slice(0, 116)).replace(/\uFFFD$/, "") + "…";
}

/** The tab channel's route. */
export function tabRoutes(core: BridgeCore): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/__aim/tab", async (c) => {
    if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
      throw new AimError(
        "upgrade_required",
        "This is the tab channel; open it as a WebSocket.",
        {
          headers: { Upgrade: "websocket" },
        },
      );
    }
    if (isCrossOrigin(c, c.get("origin"))) throw forbiddenOrigin();
    // Only the tab credential opens the channel: never the agent's token, nor a cookie.
    const offered = (c.req.header("Sec-WebSocket-Protocol") ?? "").split(",").map((p) => p.trim());
    const credential = offered.find((p) => p.startsWith(CREDENTIAL_PROTOCOL_PREFIX))
      ?.slice(CREDENTIAL_PROTOCOL_PREFIX.length);
    const session = await core.sessions.findByCredential(credential);
    if (!offered.includes(TAB_PROTOCOL) || !session) {
      throw new AimError(
        "tab_credential_required",
        "The tab channel opens only with the tab credential the page received; an agent's token never opens it.",
      );
    }
    // A session whose tabs spent their budget gets no socket until it refills: one it got would
    // be closed at its first message, after its client pushed all its buffers hold.
    const client = c.get("client");
    const wait = core.tabWait(session, client);
    if (wait > 0) {
      throw new AimError(
        "too_many_requests",
        `This session's tabs sent more than their budget; open the channel again in ${wait} s.`,
        { headers: { "Retry-After": String(wait) } },
      );
    }
    return upgrade(c.req.raw, core, session, client);
  });
  return app;
}

/**
 * Upgrades a request to the tab channel. The handlers hold the socket, the session and the
 * tab, never the request: 10,000 idle tabs should not keep 10,000 requests alive.
 */
function upgrade(request: Request, core: BridgeCore, session: Session, client: string): Response {
  const { socket, response } = Deno.upgradeWebSocket(request, { protocol: TAB_PROTOCOL });
  openChannel(socket, core, { session, client });
  return response;
}

function openChannel(
  socket: WebSocket,
  core: BridgeCore,
  { session, client }: { session: Session; client: string },
): void {
  const state = { hello: false };
  const tab = core.connectTab(session, {
    send(message) {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    },
    close(code, reason) {
      if (socket.readyState === WebSocket.OPEN) socket.close(code, closeReason(reason));
      else if (socket.readyState === WebSocket.CONNECTING) {
        socket.addEventListener("open", () => socket.close(code, closeReason(reason)), {
          once: true,
        });
      }
    },
  }, client);
  socket.onmessage = (event) => core.tabMessage(session, tab, event.data, state);
  socket.onclose = () => session.tab.detach(tab);
  socket.onerror = () => session.tab.detach(tab);
}
