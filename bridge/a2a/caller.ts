/**
 * The caller of an A2A request (an AIM session, from its Bearer token) and the parts of the
 * agent's messages.
 *
 * @module
 */
import type { ServerCallContext, User } from "@a2a-js/sdk/server";
import { type Message, type Part, Role } from "@a2a-js/sdk";
import type { Session } from "../core/session.ts";

/** The caller of an A2A request: an AIM session, from the Bearer token the page showed. */
export class SessionUser implements User {
  readonly session: Session;
  /** The client's address, for per-client bounds. */
  readonly client: string;
  /** The bridge's origin as the client sees it, for URLs in answers. */
  readonly origin: string;

  constructor(session: Session, options: { client: string; origin: string }) {
    this.session = session;
    this.client = options.client;
    this.origin = options.origin;
  }

  get isAuthenticated(): boolean {
    return true;
  }

  /** The session's id: the SDK scopes its event buses and locks by it. */
  get userName(): string {
    return this.session.id;
  }
}

/** The session of an SDK call context, if it came through the bridge's route. */
export function callerOf(context: ServerCallContext): SessionUser | undefined {
  return context.user instanceof SessionUser ? context.user : undefined;
}

/** A text part. */
export function textPart(text: string): Part {
  return {
    content: { $case: "text", value: text },
    metadata: undefined,
    filename: "",
    mediaType: "text/plain",
  };
}

/** A data part: JSON. */
export function dataPart(value: unknown): Part {
  return {
    content: { $case: "data", value },
    metadata: undefined,
    filename: "",
    mediaType: "application/json",
  };
}

/** A message of the agent's. */
export function agentMessage(parts: Part[], ids: { taskId: string; contextId: string }): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
