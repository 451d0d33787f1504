/**
 * Test helper: what the person at the browser is shown while an agent works, recorded from the
 * page itself: every prompt the panel asks them (the action it names), and every browser dialog
 * (a "Leave site?", an alert), which is dismissed as a person who did not expect it would; and
 * the agent that works beside them, over HTTP, with aim in front of an app.
 * @module
 */
import type { Page } from "puppeteer-core";
import type { ServedBridge } from "../../bridge/mod.ts";
import type { TestBridge } from "../helpers/bridge.ts";
import { Agent } from "./harness.ts";

/** An agent of `aim` (in front of an app) holding `token`: `fetch` and `invoke` on its origin. */
export function agentOf(aim: ServedBridge, token: string): Agent {
  const bridge = {
    origin: aim.url,
    fetch: (path: string, init?: RequestInit) => fetch(aim.url + path, init),
    invoke: (token: string, actionId: string, input?: unknown) =>
      fetch(aim.url + "/__aim/invoke", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ actionId, input }),
      }),
  };
  return new Agent(bridge as unknown as TestBridge, token);
}

/** What the person was shown, in order. */
export interface Shown {
  /** The action each prompt of the panel named, once per prompt. */
  readonly prompts: string[];
  /** The message of each browser dialog. */
  readonly dialogs: string[];
}

/**
 * Records, on every document `page` loads from now on, the prompts its `<aim-panel>` shows (its
 * shadow root is watched from the moment the panel attaches it) and the browser's dialogs.
 */
export async function watchPerson(page: Page): Promise<Shown> {
  const shown: Shown = { prompts: [], dialogs: [] };
  await page.exposeFunction("aimTestPromptShown", (action: string) => {
    shown.prompts.push(action);
  });
  await page.evaluateOnNewDocument(() => {
    const report = (window as unknown as { aimTestPromptShown(action: string): void })
      .aimTestPromptShown;
    const attach = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init: ShadowRootInit): ShadowRoot {
      const root = attach.call(this, init);
      if (this.localName === "aim-panel") {
        const seen = new WeakSet<Element>();
        new MutationObserver(() => {
          for (const box of root.querySelectorAll(".confirm")) {
            if (seen.has(box)) continue;
            seen.add(box);
            report(box.querySelector("#q b")?.textContent ?? "");
          }
        }).observe(root, { childList: true, subtree: true });
      }
      return root;
    };
  });
  page.on("dialog", (dialog) => {
    shown.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return shown;
}
