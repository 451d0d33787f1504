/**
 * @module The confirmation the elements show themselves when the page has no `<aim-panel>`: a
 * native modal `<dialog>` with the action's description and its exact input. The client loads
 * this module (its own chunk) the first time a consequential action needs it.
 *
 * @example The client's use of it
 * ```ts
 * import { confirmInDialog } from "./confirm_dialog.ts";
 *
 * const approved = await confirmInDialog(
 *   { id: "inv-1", actionId: "pay", input: "bill-7" },
 *   "Pay one bill now",
 * );
 * ```
 */
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { InputValue } from "../bridge/protocol/schemas.ts";

/** What the person is asked before a consequential action runs. */
export interface ConfirmRequest {
  /** The invocation's id: a `cancel` for it withdraws the prompt (see `oncancel`). */
  id: string;
  actionId: string;
  /** The agent's input, exactly as the action will receive it. */
  input: InputValue;
}

// Written compactly, unformatted: this is browser code loaded on demand; keep it small.
// deno-fmt-ignore
const TEMPLATE = `<style>
dialog{box-sizing:border-box;max-width:min(32rem,calc(100vw - 2rem));padding:16px;border:1px solid #555;border-radius:8px;background:#fff;color:#111;font:15px/1.4 system-ui,sans-serif}
dialog::backdrop{background:#0008}
h2{font-size:1.1em;margin:0 0 8px}
p{margin:0 0 8px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:40vh;overflow:auto;margin:0 0 12px;padding:8px;background:#f4f4f4;border:1px solid #ccc;font:13px monospace}
form{display:flex;flex-wrap:wrap;gap:8px;justify-content:flex-end}
button{font:inherit;min-height:40px;padding:0 16px;border-radius:6px;border:2px solid #0b57d0;cursor:pointer}
.approve{background:#0b57d0;color:#fff;font-weight:bold}
.decline{background:#fff;color:#0b57d0}
button:focus-visible,dialog:focus-visible{outline:3px solid #e8a000;outline-offset:2px}
</style><dialog aria-labelledby="t" aria-describedby="d i" tabindex="-1" autofocus>
<h2 id="t"></h2><p id="d"></p><p>With this input:</p><pre id="i"></pre>
<form method="dialog"><button class="decline" value="decline">Decline</button><button class="approve" value="approve">Approve</button></form></dialog>`;

/** The dialog open now: a new request closes it (the bridge stopped waiting for its own). */
let current: HTMLDialogElement | null = null;

/**
 * Asks the person, in a modal dialog, whether the agent may run `request`. Resolves to true only
 * when they press Approve; Decline, Escape, a newer request and `signal` aborting (the bridge no
 * longer waits) all resolve to false.
 *
 * The dialog itself takes focus, not a button, so that a stray Enter approves nothing.
 */
export function confirmInDialog(
  request: ConfirmRequest,
  description: string,
  signal?: AbortSignal,
): Promise<boolean> {
  current?.close();
  if (signal?.aborted) return Promise.resolve(false);
  // A shadow root keeps the page's styles off the dialog, and the dialog off the page.
  const host = document.createElement("aim-confirm");
  const root = host.attachShadow({ mode: "open" });
  root.innerHTML = TEMPLATE;
  const dialog = root.querySelector("dialog")!;
  // Text only: the action id, its description and the agent's input are never markup.
  dialog.querySelector("h2")!.textContent = `Allow the agent to run “${request.actionId}”?`;
  dialog.querySelector("p")!.textContent = description || "This action is consequential.";
  dialog.querySelector("pre")!.textContent = JSON.stringify(request.input, null, 2) ?? "null";
  return new Promise((resolve) => {
    const withdraw = () => dialog.close();
    dialog.addEventListener("close", () => {
      signal?.removeEventListener("abort", withdraw);
      if (current === dialog) current = null;
      host.remove();
      resolve(dialog.returnValue === "approve");
    }, { once: true });
    signal?.addEventListener("abort", withdraw, { once: true });
    (document.body ?? document.documentElement).append(host);
    try {
      dialog.showModal();
    } catch (error) {
      host.remove();
      throw error;
    }
    current = dialog;
    dialog.focus();
  });
}
