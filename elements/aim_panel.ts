/**
 * @module `<aim-panel>`: the "agent instructions" panel a person uses to hand the tab to an
 * agent, watch what it does, confirm consequential actions, and disconnect it.
 */
import { css, html, LitElement, nothing, type TemplateResult } from "lit";
import { type Activity, client, type ConfirmRequest, manifestPath } from "./client.ts";

/** Quotes a string for a POSIX shell. */
function sh(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * `<aim-panel>`: see DESIGN §5. It sits where the page puts it; to float it, style the element
 * (`aim-panel { position: fixed; bottom: 0 }`). While it is on the page, it is where the person
 * confirms consequential actions. elements/mod.ts loads this module (its own chunk, with
 * LitElement and lit-html) only when an `<aim-panel>` is in the document.
 */
export class AimPanel extends LitElement {
  static override properties = {
    confirm: {},
    status: { reflect: true },
  };
  /**
   * Accepted for older pages (`confirm="consequential"`) and ignored: consequential actions
   * always wait for the person, here while the panel is on the page.
   */
  declare confirm: string | null;
  /** The client's status, reflected for styling (`aim-panel[status=connected]`). */
  declare status: string;
  #log: Activity[] = [];
  #pending: (ConfirmRequest & { resolve(ok: boolean): void }) | null = null;
  #note = "";
  #timer: ReturnType<typeof setTimeout> | undefined;
  #onChange = () => {
    this.status = client.status;
    this.requestUpdate();
  };
  #onActivity = (e: Event) => {
    this.#log = [(e as CustomEvent<Activity>).detail, ...this.#log].slice(0, 50);
    this.requestUpdate();
  };
  #confirmer = (request: ConfirmRequest, signal?: AbortSignal) =>
    new Promise<boolean>((resolve) => {
      // A new request means the bridge stopped waiting for the last one.
      this.#pending?.resolve(false);
      this.#pending = null;
      if (signal?.aborted) return resolve(false);
      this.#pending = { ...request, resolve };
      // The bridge stopped waiting for this one: the prompt goes.
      signal?.addEventListener(
        "abort",
        () => this.#pending?.id === request.id && this.#answer(false),
      );
      this.requestUpdate();
      // The prompt takes focus, not a button, so that a stray Enter approves nothing.
      this.updateComplete.then(() =>
        this.renderRoot.querySelector<HTMLElement>("[tabindex]")?.focus()
      );
    });

  override connectedCallback(): void {
    super.connectedCallback();
    client.addEventListener("change", this.#onChange);
    document.addEventListener("aim-activity", this.#onActivity);
    client.confirmer = this.#confirmer;
    this.#onChange();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    client.removeEventListener("change", this.#onChange);
    document.removeEventListener("aim-activity", this.#onActivity);
    if (client.confirmer === this.#confirmer) client.confirmer = null;
    // Gone from the page, the prompt cannot be answered: it declines.
    this.#answer(false);
    clearTimeout(this.#timer);
  }

  protected override updated(): void {
    clearTimeout(this.#timer);
    // A countdown ticks while waiting for the lease or for the next reconnect.
    if (client.until > Date.now()) this.#timer = setTimeout(() => this.requestUpdate(), 1000);
  }

  #answer(ok: boolean): void {
    this.#pending?.resolve(ok);
    this.#pending = null;
    this.requestUpdate();
  }

  async #copy(): Promise<void> {
    this.#note = await navigator.clipboard.writeText(client.token).then(
      () => "Token copied.",
      () => "Copy failed: select the token.",
    );
    this.requestUpdate();
  }

  #instructions(): string {
    // An example the agent can run now: a protected action answers 403 until it signs in.
    const action = client.declarations.find((d) => !d.protected || client.session?.authenticated) ??
      { id: "disconnect", input_example: {} };
    const auth = sh(`Authorization: Bearer ${client.token}`);
    const body = sh(JSON.stringify({ actionId: action.id, input: action.input_example }));
    return `Operate ${location.origin}${client.page} for me. Its manifest (state, actions):
curl -H ${auth} ${location.origin}${manifestPath(client.page)}
Invoke an action; input exactly as its input_schema says:
curl -X POST ${location.origin}/__aim/invoke -H ${auth} -H 'Content-Type: application/json' -d ${body}
Ask me before consequential ones.`;
  }

  // Templates and styles are written compactly, unformatted, to keep the bundle small.
  // deno-fmt-ignore
  #prompt({ actionId, input }: ConfirmRequest): TemplateResult {
    return html`<div class="confirm" role="alertdialog" tabindex="-1" aria-labelledby="q" aria-describedby="in">
<p id="q">The agent asks to run <b>${actionId}</b> (${client.declarations.find((d) => d.id === actionId)?.description}) with:</p><pre id="in">${JSON.stringify(input, null, 2)}</pre>
<div class="row"><button class="approve" @click=${() => this.#answer(true)}>Approve</button>
<button class="decline" @click=${() => this.#answer(false)}>Decline</button></div></div>`;
  }

  // deno-fmt-ignore
  #session(): TemplateResult {
    return html`<label for="token">Session token</label>
<div class="row"><input id="token" readonly .value=${client.token}>
<button aria-label="Copy the session token" @click=${this.#copy}>Copy</button></div>
<label for="manifest">Manifest</label>
<input id="manifest" readonly .value=${location.origin + manifestPath(client.page)}>
<details><summary>Instructions for your agent</summary>
<textarea readonly rows="9" aria-label="Instructions for your agent" .value=${this.#instructions()}></textarea>
</details>`;
  }

  // deno-fmt-ignore
  protected override render(): TemplateResult {
    const { status } = client;
    const live = client.token && status !== "ended";
    return html`<section aria-labelledby="t"><header><h2 id="t">Agent access</h2>
<span class="badge" role="status">${status}</span></header>
<p>${client.detail}${client.until > Date.now()
  ? ` ${Math.ceil((client.until - Date.now()) / 1000)} s.` : ""}</p>
${status === "ended" ? html`<button @click=${() => client.newSession()}>Start a new session</button>` : nothing}
${this.#pending ? this.#prompt(this.#pending) : nothing}
${live ? this.#session() : nothing}
<p aria-live="polite">${this.#note}</p>
<h3 id="log">Agent activity</h3>
<ol aria-labelledby="log">${this.#log.map((a) => html`<li class=${a.status < 400 ? "" : "failed"}>
${new Date(a.at).toLocaleTimeString()} <code>${a.actionId}</code>
${a.status} ${a.outcome} · ${Math.round(a.durationMs)} ms</li>`)}</ol>
${live ? html`<button class="disconnect" @click=${() => client.disconnect()}>Disconnect</button>` : nothing}
</section>`;
  }

  // deno-fmt-ignore
  static override styles = css`
:host{display:block;max-width:28rem;font:14px system-ui}
section{background:#fff;border:1px solid;border-radius:6px;padding:8px}
header,.row{display:flex;gap:8px;align-items:center}
h2,h3{font-size:1em;margin:4px auto 4px 0}
.badge{padding:2px 8px;border-radius:9px;background:#eee;text-transform:capitalize}
:host([status=connected]) .badge{background:#dfd}
label{display:block;font-weight:bold;margin-top:8px}
input,textarea{box-sizing:border-box;flex:1;width:100%;font:12px monospace;padding:6px}
button{font:inherit;min-height:40px}
.confirm{padding:8px;border:2px solid #b60}
.confirm button{padding:0 16px;border-radius:6px;border:2px solid #0b57d0;background:#fff;color:#0b57d0}
.confirm .approve{background:#0b57d0;color:#fff;font-weight:bold}
pre{white-space:pre-wrap;word-break:break-all}
ol{max-height:9em;overflow:auto;padding:0;list-style:none}
.failed{color:#900}`;
}
