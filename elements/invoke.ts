/**
 * One invocation in the tab, from the bridge's `invoke` to the tab's `result`: the person's
 * approval of a consequential action, the action run while the page is watched (where it goes,
 * what stops it: elements/leaving.ts), and the answer. Part of the bindings' chunk, which the
 * client loads with the first invocation: a page no agent acts on never loads it.
 *
 * @module
 */
// Types only: the chunk must not carry the client (the entry has it) nor zod.
import type { BridgeMessage, TabMessage } from "../bridge/wire/channel.ts";
import type { InputValue } from "../bridge/wire/schemas.ts";
import { NavigationWatch } from "./leaving.ts";

/** What the tab sends for an invocation: `awaiting` while the person is asked, then `result`. */
export type InvocationMessage = Extract<TabMessage, { type: "awaiting" | "result" }>;

/** One invocation the bridge relays to the tab. */
export type Invoke = Extract<BridgeMessage, { type: "invoke" }>;

/**
 * What an invocation needs of the page's client (elements/client.ts `AimClient`, which hands
 * itself over): it is not imported, so that the client and this chunk do not know each other.
 * `cancel` events on it (detail: the invocation's id) withdraw the person's prompt; `pagehide`
 * says the page is hidden for good, before the client closes the channel.
 */
export interface InvokingClient extends EventTarget {
  /** Asks the person before a consequential action; true once they approve. */
  approve(
    request: { id: string; actionId: string; input: InputValue },
    signal: AbortSignal,
    onAsk?: () => void,
  ): Promise<boolean>;
  /** Runs the action, its result kept on `watch` as soon as it has one. */
  run(actionId: string, input: InputValue, watch: NavigationWatch): Promise<unknown>;
}

/**
 * Runs the invocation `message` relayed by the bridge for `client`, and answers it through
 * `send`. A page hidden for good before its answer went out (it loads the page the action took it
 * to) answers at once, since its channel closes next.
 */
export async function invoke(
  client: InvokingClient,
  { id, actionId, input, consequential }: Invoke,
  send: (message: InvocationMessage) => void,
): Promise<void> {
  let answer: InvocationMessage;
  let watch: NavigationWatch | undefined;
  const withdrawn = new AbortController();
  const onCancel = (e: Event) => (e as CustomEvent).detail === id && withdrawn.abort();
  client.addEventListener("cancel", onCancel);
  try {
    // The person may take longer than the tab timeout: the bridge then waits longer.
    const approved = !consequential ||
      await client.approve(
        { id, actionId, input },
        withdrawn.signal,
        () => send({ type: "awaiting", id, message: "Asking the person." }),
      );
    if (approved) {
      watch = new NavigationWatch(() => send(watch!.answer(id)));
      // The client says when the page is hidden for good, before it closes the channel.
      const hidden = () => watch!.hidden();
      client.addEventListener("pagehide", hidden);
      try {
        await client.run(actionId, input, watch);
      } finally {
        client.removeEventListener("pagehide", hidden);
      }
      answer = watch.answer(id);
    } else {
      answer = {
        type: "result",
        id,
        ok: false,
        error: { code: "declined", message: `The person declined "${actionId}".` },
      };
    }
  } catch (error) {
    const message = String((error as Error)?.message ?? error).slice(0, 2000);
    answer = watch?.answer(id, message) ??
      { type: "result", id, ok: false, error: { code: "action_failed", message } };
  }
  client.removeEventListener("cancel", onCancel);
  send(answer);
}
