/**
 * What an observer (the metrics, bridge/metrics/) is told of the invocations agents send to this
 * instance: the protocol they came by, when the person is asked to confirm, and how each ended.
 * The core knows nothing of what the observer does with it.
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import type { InvokeOptions } from "./invocations.ts";

/** The protocols an agent invokes an action by (a page's own in-browser agent aside). */
export type InvokeProtocol = "http" | "mcp" | "acp" | "a2a";

/** Options of `BridgeCore.invoke`: an invocation's, and the protocol that carried it. */
export interface AgentInvokeOptions extends InvokeOptions {
  /**
   * The protocol the agent's call came by, for the metrics.
   *
   * @default {"http"}
   */
  protocol?: InvokeProtocol | undefined;
}

/** The defaults of {@linkcode AgentInvokeOptions}, as its `@default` tags say. */
export const AGENT_INVOKE_DEFAULTS: { readonly protocol: InvokeProtocol } = { protocol: "http" };

/** One invocation under watch. */
export interface InvocationWatch {
  /** The tab said the invocation waits for the person to confirm it. */
  awaiting(): void;
  /** The invocation was answered: `"ok"`, or the error code the agent got. */
  answered(outcome: string): void;
}

/** Starts watching one invocation of an agent, sent by `protocol`. */
export type WatchInvocation = (protocol: InvokeProtocol) => InvocationWatch;

/**
 * Runs `invoke` with `options` under `watch`: told when the tab says the person is asked (the
 * caller's own `onAwaiting` is called too), and of the answer or the error code.
 */
export async function watched<T>(
  watch: InvocationWatch,
  options: AgentInvokeOptions,
  invoke: (options: AgentInvokeOptions) => Promise<T>,
): Promise<T> {
  const onAwaiting = options.onAwaiting;
  let answer: T;
  try {
    answer = await invoke({
      ...options,
      onAwaiting: (message) => {
        watch.awaiting();
        onAwaiting?.(message);
      },
    });
  } catch (error) {
    watch.answered(error instanceof AimError ? error.code : "server_error");
    throw error;
  }
  watch.answered("ok");
  return answer;
}
