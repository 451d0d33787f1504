/**
 * The browser entry point, served as `/__aim/elements.js`: defines `<aim-action>` and
 * `<aim-state>`, starts the page's one tab client, and defines `<aim-panel>` once one is in the
 * document. What only some pages need loads on demand, as chunks of its own: the panel (with
 * LitElement and lit-html) when an `<aim-panel>` appears, the confirmation dialog (with the
 * rules of every prompt, elements/prompt.ts) the first time a consequential action runs on a page
 * without a panel (see `AimClient.confirmer`), or with the panel; `<aim-action>`'s markup reader
 * (elements/load_markup.ts) when the page's actions are first read.
 *
 * @example A page that lets an agent pay, after the person confirms each payment
 * ```html
 * <script type="module" src="/__aim/elements.js"></script>
 * <aim-action name="pay" description="Pay one bill now" input-example="bill-1" consequential>
 * </aim-action>
 * <script type="module">
 *   document.querySelector("aim-action[name=pay]").handler = (bill) => ({ paid: bill });
 * </script>
 * ```
 *
 * @module
 */
import { AimAction } from "./aim_action.ts";
import { AimState } from "./aim_state.ts";
import { client } from "./client.ts";
import { warn } from "./warnings.ts";
import type { AimPanel } from "./aim_panel.ts";

export { AimAction, AimState, client };
export type { AimPanel };
export type { ActionHandler, InvokeDetail } from "./aim_action.ts";
export type {
  ActionSource,
  Activity,
  AimClient,
  ConfirmRequest,
  EndReason,
  SessionInfo,
  StateSource,
  Status,
  Target,
  WaitUntil,
} from "./client.ts";
export type { Declaration } from "./declaration.ts";
export type { ClientLink } from "./client_link.ts";
export type { InputValue } from "../bridge/wire/schemas.ts";

let panel: Promise<void> | undefined;

/**
 * Loads the panel's chunk and defines `<aim-panel>`, once. The elements call it when an
 * `<aim-panel>` is in the document; a page that puts one in a shadow root calls it itself.
 */
export function loadPanel(): Promise<void> {
  return panel ??= import("./aim_panel.ts").then(
    ({ AimPanel }) => {
      if (!customElements.get("aim-panel")) customElements.define("aim-panel", AimPanel);
    },
    (error) => warn("chunk-not-loaded", ["panel", error]),
  );
}

const isPanel = (node: Node) =>
  node instanceof Element && (node.localName === "aim-panel" || !!node.querySelector("aim-panel"));

// Watches the document until an <aim-panel> is added to it.
const watch = new MutationObserver((records) => {
  if (records.some((r) => [...r.addedNodes].some(isPanel))) {
    watch.disconnect();
    loadPanel();
  }
});

// A second copy of the bundle on the page (another URL) must not throw nor start a second
// client: the first one wins.
if (!customElements.get("aim-action")) {
  customElements.define("aim-action", AimAction);
  customElements.define("aim-state", AimState);
  // The bridge stopped waiting for an invocation: its prompt (panel or dialog) must go.
  client.oncancel = (id) => client.dispatchEvent(new CustomEvent("cancel", { detail: id }));
  if (document.querySelector("aim-panel")) loadPanel();
  else watch.observe(document, { childList: true, subtree: true });
  client.start();
}

declare global {
  interface HTMLElementTagNameMap {
    "aim-action": AimAction;
    "aim-state": AimState;
    "aim-panel": AimPanel;
  }
}
