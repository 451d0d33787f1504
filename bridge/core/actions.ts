/**
 * ActionRegistry: the server actions of a bridge, and which actions a session offers
 * now (the server's, then those its tab registered).
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import {
  type ActionSpec,
  BUILTIN_ACTION_IDS,
  isActionIdAmong,
  parseActionSpec,
} from "../input/action_spec.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import { isAvailable, type ServerAction } from "./server_actions.ts";
import type { Session } from "./session.ts";

const interned = new BoundedMap<string, ActionSpec>(2000);

/**
 * One shared object per distinct action: thousands of tabs of one page register the same
 * actions, and each would otherwise keep its own copies. Specs are never changed once made.
 */
export function intern(spec: ActionSpec): ActionSpec {
  return interned.getOrSet(JSON.stringify(spec), () => spec);
}

/** An action found for an invocation: its spec, and its handler when it runs on the server. */
export interface FoundAction {
  spec: ActionSpec;
  server?: ServerAction;
}

/** The server actions of a bridge, checked once when it starts. */
export class ActionRegistry {
  readonly #actions = new Map<string, ServerAction>();
  readonly #specs = new Map<string, ActionSpec>();

  /** @throws {Error} when an id is registered twice or an action is not valid. */
  constructor(actions: ServerAction[]) {
    for (const action of actions) {
      if (this.#actions.has(action.id)) {
        throw new Error(`Server action "${action.id}" is registered twice`);
      }
      const spec = parseActionSpec({
        id: action.id,
        description: action.description,
        input_schema: action.input_schema,
        input_example: action.input_example,
        consequential: action.consequential ?? false,
        protected: action.protected ?? false,
      });
      this.#actions.set(action.id, action);
      this.#specs.set(action.id, spec);
    }
  }

  /** Whether `id` is a server action's id, which a page may not reuse. */
  has(id: string): boolean {
    // Case-insensitively: a page's `Login` or `APPROVE` must not pass for a server action.
    // The built-in ids stay reserved on a site without users, which offers no login.
    return isActionIdAmong(id, this.#actions.keys()) || isActionIdAmong(id, BUILTIN_ACTION_IDS);
  }

  /** The server actions listed for a session in this login state. */
  available(signedIn: boolean): ActionSpec[] {
    const out: ActionSpec[] = [];
    for (const [id, action] of this.#actions) {
      if (isAvailable(action, signedIn)) out.push(this.#specs.get(id)!);
    }
    return out;
  }

  /**
   * The server actions of the public catalog: every one the page can offer, those that need
   * signing in (`logout`, protected ones) too, as the page's own actions are listed.
   */
  public(): ActionSpec[] {
    return [...this.#specs.values()];
  }

  /** The actions a session offers now: the server's, then its tab's (protected ones signed in). */
  forSession(session: Session): ActionSpec[] {
    const signedIn = session.identity !== null;
    const out = this.available(signedIn);
    for (const spec of session.tab.actions) {
      if (!spec.protected || signedIn) out.push(spec);
    }
    return out;
  }

  /**
   * The action `actionId` of a session: a server action (a protected one too, so that the
   * caller answers 403 rather than 404), else one its tab registered.
   *
   * @throws {AimError} 404 `unknown_action`, with the available actions.
   */
  find(session: Session, actionId: string): FoundAction {
    const server = this.#actions.get(actionId);
    if (server && (server.protected || isAvailable(server, session.identity !== null))) {
      return { spec: this.#specs.get(actionId)!, server };
    }
    const spec = (session.tab.connected ? session.tab.actions : session.tab.lastActions)
      .find((a) => a.id === actionId);
    if (spec) return { spec };
    throw new AimError(
      "unknown_action",
      `No action "${actionId}" is registered for this session now.`,
      { details: { available_actions: this.forSession(session).map((a) => a.id) } },
    );
  }
}
