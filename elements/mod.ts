/**
 * @module The browser entry point, served as `/__aim/elements.js`: defines `<aim-action>`,
 * `<aim-state>` and `<aim-panel>` and starts the page's one tab client.
 */
import { AimAction } from "./aim_action.ts";
import { AimState } from "./aim_state.ts";
import { AimPanel } from "./aim_panel.ts";
import { client } from "./client.ts";

export { AimAction, AimPanel, AimState, client };
export type { ActionHandler, InvokeDetail } from "./aim_action.ts";
export type { Activity, AimClient, ConfirmRequest, EndReason, Status } from "./client.ts";

const elements: [string, CustomElementConstructor][] = [
  ["aim-action", AimAction],
  ["aim-state", AimState],
  ["aim-panel", AimPanel],
];
// A second copy of the bundle on the page (another URL) must not throw nor start a second
// client: the first one wins.
if (!customElements.get("aim-action")) {
  for (const [name, element] of elements) customElements.define(name, element);
  client.start();
}

declare global {
  interface HTMLElementTagNameMap {
    "aim-action": AimAction;
    "aim-state": AimState;
    "aim-panel": AimPanel;
  }
}
