/**
 * A Lit `ReactiveController` that wires an element to the page's client: it updates the
 * element when the client's status or actions change, keeps the agent's activity log, ticks
 * while a countdown runs, and, while the element is connected, is where the person confirms
 * consequential actions. Only the panel uses it, so it loads with the panel's chunk.
 *
 * @example An element that shows the client's status and asks the person itself
 * ```ts
 * import { html, LitElement } from "lit";
 * import { ClientController } from "./client_controller.ts";
 *
 * class AgentStatus extends LitElement {
 *   #client = new ClientController(this);
 *   override render() {
 *     const pending = this.#client.pending;
 *     return pending
 *       ? html`<p>Run ${pending.actionId}? <button class="approve"
 *           aria-disabled=${String(!pending.gate.armed)}
 *           @click=${() => this.#client.answer(true)}>Approve</button></p>`
 *       : html`${this.#client.client.status}`;
 *   }
 *   override updated() {
 *     const box = this.renderRoot.querySelector("p");
 *     if (box) this.#client.pending?.gate.watch(box, box.textContent ?? "");
 *   }
 * }
 * ```
 *
 * @module
 */
import type { ReactiveController, ReactiveElement } from "@lit/reactive-element";
import { type Activity, type AimClient, client, type ConfirmRequest } from "./client.ts";
import { loadActionMarkup } from "./load_markup.ts";
import type { ApproveGate as Gate } from "./prompt.ts";

// The rules of every prompt (elements/prompt.ts) come with the dialog's chunk, loaded on demand.
const { ApproveGate } = await import("./confirm_dialog.ts");

/**
 * While an agent's calls keep coming, the activity log is drawn at most this often, ms: four
 * times a second still reads as live, and the first entry after a pause is drawn in the next
 * frame.
 */
const LOG_INTERVAL_MS = 250;

/** A confirmation waiting for the person's answer. */
export interface PendingConfirmation extends ConfirmRequest {
  resolve(approved: boolean): void;
  /**
   * When its Approve works: the host renders Approve disabled until `gate.armed`, and gives it
   * the prompt's element after each render (`gate.watch`).
   */
  gate: Gate;
}

/** Subscribes its host to the page's {@linkcode AimClient} while the host is connected. */
export class ClientController implements ReactiveController {
  /** The page's client. */
  readonly client: AimClient = client;
  /** What the agent did, newest first (at most 50 entries). */
  log: Activity[] = [];
  /** The confirmation the person is asked now, if any. */
  pending: PendingConfirmation | null = null;
  readonly #host: ReactiveElement;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The frame the log renders in, when new entries wait for one. */
  #logFrame = 0;
  /** The timer before that frame, while the log was drawn less than LOG_INTERVAL_MS ago. */
  #logTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the log was last drawn for new entries (`performance.now()`). */
  #logDrawn = -Infinity;

  constructor(host: ReactiveElement) {
    this.#host = host;
    host.addController(this);
  }

  #update = () => this.#host.requestUpdate();

  #onActivity = (e: Event) => {
    this.log = [(e as CustomEvent<Activity>).detail, ...this.log].slice(0, 50);
    if (this.#logFrame || this.#logTimer !== undefined) return;
    // In the next frame, and while calls keep coming at most once every LOG_INTERVAL_MS: each
    // render of the log is laid out and painted in the frame after it, on the same thread that
    // must take the agent's next call, so that drawing it in every frame held up back-to-back
    // calls by 8–22 % at the median (docs/mcp.md). A hidden page renders it when shown.
    const draw = () => {
      this.#logTimer = undefined;
      this.#logFrame = requestAnimationFrame(() => {
        this.#logFrame = 0;
        this.#logDrawn = performance.now();
        this.#update();
      });
    };
    const wait = this.#logDrawn + LOG_INTERVAL_MS - performance.now();
    if (wait > 0) this.#logTimer = setTimeout(draw, wait);
    else draw();
  };

  #confirmer = (request: ConfirmRequest, signal?: AbortSignal) =>
    new Promise<boolean>((resolve) => {
      // A new request means the bridge stopped waiting for the last one.
      this.#withdraw();
      if (signal?.aborted) return resolve(false);
      const pending = { ...request, resolve, gate: new ApproveGate(this.#update) };
      this.pending = pending;
      // The bridge stopped waiting for this one: the prompt goes.
      signal?.addEventListener("abort", () => this.pending === pending && this.#withdraw());
      this.#update();
      // The prompt takes focus, not a button, so that a stray Enter approves nothing.
      this.#host.updateComplete.then(() =>
        this.#host.renderRoot.querySelector<HTMLElement>("[tabindex]")?.focus()
      );
    });

  /**
   * The person answers the pending confirmation (if any): true approves, false declines. An
   * approval before the prompt's Approve works (`pending.gate.armed`) does nothing.
   */
  answer(approved: boolean): void {
    if (approved && !this.pending?.gate.armed) return;
    this.#end(approved, true);
  }

  /** The prompt goes unanswered: it declines, and the next prompt says it replaced one. */
  #withdraw(): void {
    this.#end(false, false);
  }

  #end(approved: boolean, answered: boolean): void {
    this.pending?.gate.close(answered);
    this.pending?.resolve(approved);
    this.pending = null;
    this.#update();
  }

  hostConnected(): void {
    client.addEventListener("change", this.#update);
    document.addEventListener("aim-activity", this.#onActivity);
    client.confirmer = this.#confirmer;
    // The panel lists the page's actions (an example in its instructions): their markup is read
    // once its reader loaded, which a page without a session would never load otherwise.
    loadActionMarkup().then(() => client.changed());
  }

  hostDisconnected(): void {
    client.removeEventListener("change", this.#update);
    document.removeEventListener("aim-activity", this.#onActivity);
    if (client.confirmer === this.#confirmer) client.confirmer = null;
    // Gone from the page, the prompt cannot be answered: it declines.
    this.#withdraw();
    clearTimeout(this.#timer);
    cancelAnimationFrame(this.#logFrame);
    this.#logFrame = 0;
    clearTimeout(this.#logTimer);
    this.#logTimer = undefined;
  }

  hostUpdated(): void {
    clearTimeout(this.#timer);
    // A countdown (to the next reconnect) ticks once a second.
    if (client.until > Date.now()) this.#timer = setTimeout(this.#update, 1000);
  }
}
