/**
 * The confirmation the elements show themselves when the page has no `<aim-panel>`: a
 * native modal `<dialog>` with the action's description and its exact input, shown and armed
 * by the rules of elements/prompt.ts. The client loads this module (its own chunk) the first
 * time a consequential action needs it; the panel loads it for those rules.
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
 *
 * @module
 */
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { InputValue } from "../bridge/wire/schemas.ts";
import { ApproveGate, cutNote, readable, REPLACED_NOTICE, shownInput } from "./prompt.ts";

// The panel loads this chunk for the same rules (elements/client_controller.ts).
export * from "./prompt.ts";

/** What the person is asked before a consequential action runs. */
export interface ConfirmRequest {
  /** The invocation's id: a `cancel` for it withdraws the prompt (see `oncancel`). */
  id: string;
  /** The action that would run. */
  actionId: string;
  /** The agent's input, exactly as the action will receive it. */
  input: InputValue;
  /**
   * What the action will do to what, in words ("press “Approve” on the row req-3"), when the
   * page can say: the prompt shows it, while the elements it names are outlined on the page.
   */
  target?: string;
}

/** How an element the action will act on is outlined while the person is asked. */
const OUTLINE = "3px solid #e8a000";

/**
 * Outlines `elements` (the first boldly: the row, the form, the button) and scrolls the first
 * into view, as far as it needs; returns what takes the outlines off again, as they were.
 */
function outline(elements: readonly Element[]): () => void {
  const before = elements.map((el) => {
    const style = (el as HTMLElement).style;
    const had = el.hasAttribute("style");
    const was = ["outline", "outline-offset"].map((p) =>
      [p, style.getPropertyValue(p), style.getPropertyPriority(p)] as const
    );
    style.setProperty(
      "outline",
      OUTLINE.replace(/^3px/, el === elements[0] ? "3px" : "2px"),
      "important",
    );
    style.setProperty("outline-offset", "2px", "important");
    return () => {
      for (const [p, value, priority] of was) {
        if (value) style.setProperty(p, value, priority);
        else style.removeProperty(p);
      }
      if (!had && !el.getAttribute("style")) el.removeAttribute("style");
    };
  });
  elements[0]?.scrollIntoView({ block: "nearest", inline: "nearest" });
  return () => before.forEach((restore) => restore());
}

// Written compactly, unformatted: this is browser code loaded on demand; keep it small.
// deno-fmt-ignore
const TEMPLATE = `<style>
dialog{box-sizing:border-box;max-width:min(32rem,calc(100vw - 2rem));max-height:calc(100vh - 2rem);padding:16px;border:1px solid #555;border-radius:8px;background:#fff;color:#111;font:15px/1.4 system-ui,sans-serif}
dialog[open]{display:flex;flex-direction:column}
dialog::backdrop{background:#0008}
h2{font-size:1.1em;margin:0 0 8px}
p{margin:0 0 8px}
#d{overflow:auto;flex:0 1 auto;min-height:1.5em}
.r{padding:4px 8px;background:#fff4d6;border-left:4px solid #b60;font-weight:bold}
pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:40vh;min-height:2.5em;flex:0 1 auto;overflow:auto;margin:0 0 12px;padding:8px;background:#f4f4f4;border:1px solid #ccc;font:13px monospace}
form{display:flex;flex:none;flex-wrap:wrap;gap:8px;justify-content:flex-end}
button{font:inherit;min-height:40px;padding:0 16px;border-radius:6px;border:2px solid #0b57d0;cursor:pointer}
.approve{background:#0b57d0;color:#fff;font-weight:bold}
.approve[aria-disabled=true]{opacity:.5;cursor:not-allowed}
.decline{background:#fff;color:#0b57d0}
button:focus-visible,dialog:focus-visible{outline:3px solid #e8a000;outline-offset:2px}
</style><dialog aria-labelledby="t" aria-describedby="r d w i c" tabindex="-1" autofocus>
<h2 id="t"></h2><p id="r" class="r" role="alert" hidden></p><p id="d"></p><p id="w"></p><p>With this input:</p><pre id="i"></pre><p id="c"></p>
<form method="dialog"><button class="decline" value="decline">Decline</button><button class="approve" value="approve" aria-disabled="true">Approve</button></form></dialog>`;

/**
 * What asking needs of the page's client (elements/client.ts `AimClient`, which loads this
 * module: it is not imported back).
 */
export interface Asker {
  /** A connected `<aim-panel>`'s way of asking; null without one. */
  readonly confirmer:
    | ((request: ConfirmRequest, signal: AbortSignal) => boolean | Promise<boolean>)
    | null;
}

/** What asking reads of the `<aim-action>` that runs (elements/client_types.ts `ActionSource`). */
export interface AskedAction {
  /** Its declaration now, whose description the dialog shows. */
  declaration(): Record<string, unknown> | null;
  /** What it will act on with `input`: the elements outlined, and their name in words. */
  target?(
    input: InputValue,
  ): Promise<{ readonly elements: readonly Element[]; readonly words: string } | undefined>;
}

/** The prompt the person sees now, if any: the next one waits for its answer. */
let prompts: Promise<unknown> = Promise.resolve();

/**
 * Asks the person about `request` for `client` (its `approve` decided it must):
 * through the client's `confirmer` (a connected `<aim-panel>`), else in the modal dialog. One
 * prompt at a time, whichever agent asks: a request waits for the answer to the one before,
 * and is false when `signal` aborted meanwhile.
 */
export function ask(
  client: Asker,
  request: ConfirmRequest,
  el: AskedAction | undefined,
  signal: AbortSignal,
): Promise<boolean> {
  const turn = prompts.then(async () => {
    if (signal.aborted) return false;
    // A panel on the page asks; while its module loads, wait for it, not for the modal.
    if (!client.confirmer && document.querySelector("aim-panel")) {
      await customElements.whenDefined("aim-panel");
    }
    // What the action will act on is outlined, and named in the prompt, while it waits.
    const target = await el?.target?.(request.input).catch(() => undefined);
    if (signal.aborted) return false;
    const asked = target ? { ...request, target: target.words } : request;
    const unmark = outline(target?.elements ?? []);
    try {
      return (client.confirmer
        ? await client.confirmer(asked, signal)
        : await confirmInDialog(asked, String(el?.declaration()?.description ?? ""), signal)) ===
        true;
    } finally {
      unmark();
    }
  });
  prompts = turn.catch(() => {});
  return turn;
}

/** The dialog open now, and its gate: a new request closes it (the bridge stopped waiting). */
let current: { dialog: HTMLDialogElement; gate: ApproveGate } | null = null;

/**
 * Asks the person, in a modal dialog, whether the agent may run `request`. Resolves to true only
 * when they press Approve once it works (see `ApproveGate`: the dialog has been on screen for
 * `READ_DELAY_MS`, and pointed at again when it replaced a withdrawn one); Decline, Escape, a
 * newer request and `signal` aborting (the bridge no longer waits) all resolve to false.
 *
 * The dialog itself takes focus, not a button, so that a stray Enter approves nothing.
 */
export function confirmInDialog(
  request: ConfirmRequest,
  description: string,
  signal?: AbortSignal,
): Promise<boolean> {
  // Withdrawn: the gate closes now, so that this prompt knows it replaced one.
  current?.gate.close(false);
  current?.dialog.close();
  if (signal?.aborted) return Promise.resolve(false);
  // A shadow root keeps the page's styles off the dialog, and the dialog off the page.
  const host = document.createElement("aim-confirm");
  const root = host.attachShadow({ mode: "open" });
  root.innerHTML = TEMPLATE;
  const dialog = root.querySelector("dialog")!;
  const $ = (id: string) => root.getElementById(id)!;
  const approve = root.querySelector<HTMLButtonElement>(".approve")!;
  const gate = new ApproveGate(() => approve.setAttribute("aria-disabled", String(!gate.armed)));
  // Text only: the action id, its description and the agent's input are never markup, and
  // what could hide or disguise text shows as escapes.
  const input = shownInput(request.input);
  $("t").textContent = `Allow the agent to run “${readable(request.actionId).text}”?`;
  $("d").textContent = readable(description || "This action is consequential.").text;
  // What it acts on, outlined on the page meanwhile.
  $("w").textContent = request.target ? `It will ${readable(request.target).text}.` : "";
  $("w").hidden = !request.target;
  $("i").textContent = input.text;
  // Empty when there is nothing to say: the dialog's description reads these too.
  $("c").textContent = cutNote(input.more);
  $("c").hidden = !input.more;
  $("r").textContent = gate.replaced ? REPLACED_NOTICE : "";
  $("r").hidden = !gate.replaced;
  let approved = false;
  let answered = false;
  dialog.addEventListener("cancel", () => answered = true);
  root.querySelector("form")!.addEventListener("submit", (e) => {
    // Approve before it works does nothing: the dialog stays.
    if (e.submitter === approve && !gate.armed) return e.preventDefault();
    approved = e.submitter === approve;
    answered = true;
  });
  return new Promise((resolve) => {
    const withdraw = () => dialog.close();
    dialog.addEventListener("close", () => {
      signal?.removeEventListener("abort", withdraw);
      gate.close(answered);
      if (current?.dialog === dialog) current = null;
      host.remove();
      resolve(approved);
    }, { once: true });
    signal?.addEventListener("abort", withdraw, { once: true });
    (document.body ?? document.documentElement).append(host);
    try {
      dialog.showModal();
    } catch (error) {
      host.remove();
      gate.close(false);
      throw error;
    }
    current = { dialog, gate };
    gate.watch(dialog, input.text);
    dialog.focus();
  });
}
