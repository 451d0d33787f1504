/**
 * `<aim-panel>`: the "agent instructions" panel a person uses to hand the tab to an
 * agent, watch what it does, confirm consequential actions, and disconnect it.
 *
 * @module
 */
import { css, type CSSResult, html, LitElement, nothing, type TemplateResult } from "lit";
import { repeat } from "lit/directives/repeat.js";
import { type Activity, client, manifestPath } from "./client.ts";
import { ClientController, type PendingConfirmation } from "./client_controller.ts";

// How an agent's request is shown to a person (elements/prompt.ts), with the dialog's chunk.
const { cutNote, readable, REPLACED_NOTICE, shownInput } = await import("./confirm_dialog.ts");

/** Quotes a string for a POSIX shell. */
function sh(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * `<aim-panel>`: the "agent access" panel (docs/elements.md). It sits where the page puts it;
 * to float it, style the element (`aim-panel { position: fixed; bottom: 0 }`). While it is on
 * the page, it is where the person confirms consequential actions. elements/mod.ts loads this
 * module (its own chunk, with LitElement and lit-html) only when an `<aim-panel>` is in the
 * document; a {@linkcode ClientController} wires it to the page's client.
 */
export class AimPanel extends LitElement {
  /** Lit's reactive properties: `confirm`, and `status` reflected to its attribute. */
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
  #client = new ClientController(this);
  #note = "";
  /**
   * Each log entry's local time, formatted once. The log changes on every invocation: its lines
   * are keyed by entry (`repeat`), so that a new one adds a line instead of rewriting, and laying
   * out again, all fifty while the agent waits for its next answer.
   */
  #times = new WeakMap<Activity, string>();

  #time(entry: Activity): string {
    let time = this.#times.get(entry);
    if (time === undefined) this.#times.set(entry, time = new Date(entry.at).toLocaleTimeString());
    return time;
  }

  /** Takes the client's status before each render. */
  protected override willUpdate(): void {
    this.status = client.status;
  }

  async #copy(): Promise<void> {
    this.#note = await navigator.clipboard.writeText(client.token).then(
      () => "Token copied.",
      () => "Copy failed: select the token.",
    );
    this.requestUpdate();
  }

  #instructions(): string {
    // An example safe to try now: never disconnect (it ends the agent's own session), nothing
    // consequential, nothing protected before someone signs in, and an input the page gives
    // (the bridge makes the others); else a template.
    const action = client.declarations.find((d) =>
      !d.consequential && (!d.protected || client.session?.authenticated) &&
      d.input_example !== undefined
    );
    const auth = sh(`Authorization: Bearer ${client.token}`);
    const body = action
      ? sh(JSON.stringify({ actionId: action.id, input: action.input_example }))
      : `'{"actionId": "<an id from the manifest>", "input": <as its input_schema says>}'`;
    // MCP hosts: the endpoint with the token as a header, or `aim mcp` for local commands.
    const http = {
      type: "http",
      url: `${location.origin}/__aim/mcp`,
      headers: { Authorization: `Bearer ${client.token}` },
    };
    const stdio = {
      command: "aim",
      args: ["mcp", location.origin + client.page],
      env: { AIM_TOKEN: client.token },
    };
    return `Operate ${location.origin}${client.page} for me. Its manifest (state, actions):
curl -H ${auth} ${location.origin}${manifestPath(client.page)}
Invoke an action; input exactly as its input_schema says:
curl -X POST ${location.origin}/__aim/invoke -H ${auth} -H 'Content-Type: application/json' -d ${body}
Ask me before consequential ones.

MCP hosts (Claude, Cursor, VS Code…), in mcpServers:
${JSON.stringify({ aim: http })}
or, where only local commands run:
${JSON.stringify({ aim: stdio })}`;
  }

  // Templates and styles are written compactly, unformatted, to keep the bundle small.
  // deno-fmt-ignore
  #prompt({ actionId, input, gate, target }: PendingConfirmation): TemplateResult {
    const shown = shownInput(input);
    const description = String(
      client.declarations.find((d) => d.id === actionId)?.description ?? "",
    );
    return html`<div class="confirm" role="alertdialog" tabindex="-1" aria-labelledby="q" aria-describedby="rp in cut">
${gate.replaced ? html`<p id="rp" class="replaced" role="alert">${REPLACED_NOTICE}</p>` : nothing}
<p id="q">The agent asks to run <b>${readable(actionId).text}</b> (${readable(description).text})${target ? `, to ${readable(target).text} (outlined on the page),` : ""} with:</p><pre id="in">${shown.text}</pre>
${shown.more ? html`<p id="cut">${cutNote(shown.more)}</p>` : nothing}
<div class="row"><button class="approve" aria-disabled=${String(!gate.armed)} @click=${() => this.#client.answer(true)}>Approve</button>
<button class="decline" @click=${() => this.#client.answer(false)}>Decline</button></div></div>`;
  }

  /** The prompt on screen is what its gate watches: read, unchanged, before Approve works. */
  protected override updated(): void {
    const box = this.renderRoot.querySelector(".confirm");
    if (box) this.#client.pending?.gate.watch(box, box.textContent ?? "");
  }

  // deno-fmt-ignore
  #session(): TemplateResult {
    return html`<label for="token">Session token</label>
<div class="row"><input id="token" readonly .value=${client.token}>
<button aria-label="Copy the session token" @click=${this.#copy}>Copy</button></div>
<label for="manifest">Manifest</label>
<input id="manifest" readonly .value=${location.origin + manifestPath(client.page)}>
<details><summary>Instructions for your agent</summary>
<textarea readonly rows="14" aria-label="Instructions for your agent" .value=${this.#instructions()}></textarea>
</details>`;
  }

  /** The panel: its status, a prompt waiting for the person, and the session once connected. */
  // deno-fmt-ignore
  protected override render(): TemplateResult {
    const { status } = client;
    const live = client.token && status !== "ended";
    return html`<section aria-labelledby="t"><header><h2 id="t">Agent access</h2>
<span class="badge" role="status">${status}</span></header>
<p>${client.detail}${client.until > Date.now()
  ? ` ${Math.ceil((client.until - Date.now()) / 1000)} s.` : ""}</p>
${status === "ended" ? html`<button @click=${() => client.newSession()}>Start a new session</button>` : nothing}
${status === "waiting" ? html`<button @click=${() => client.takeOver()}>Take over here</button>` : nothing}
${this.#client.pending ? this.#prompt(this.#client.pending) : nothing}
${live ? this.#session() : nothing}
<p aria-live="polite">${this.#note}</p>
<h3 id="log">Agent activity</h3>
<ol aria-labelledby="log">${repeat(this.#client.log, (a) => a, (a) => html`<li class=${a.status < 400 ? "" : "failed"}>
<time datetime=${a.at}>${this.#time(a)}</time> <code>${readable(a.actionId).text}</code>
<span>${a.status} ${a.outcome}</span> <span>${Math.round(a.durationMs)} ms</span></li>`)}</ol>
${live ? html`<button class="disconnect" @click=${() => client.disconnect()}>Disconnect</button>` : nothing}
</section>`;
  }

  /** The panel's own styles, in its shadow root. */
  // deno-fmt-ignore
  static override styles: CSSResult = css`
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
.confirm .approve[aria-disabled=true]{opacity:.5;cursor:not-allowed}
.replaced{padding:4px 8px;background:#fff4d6;border-left:4px solid #b60;font-weight:bold}
pre{white-space:pre-wrap;word-break:break-all;max-height:min(12em,30vh);overflow:auto}
ol{max-height:9em;overflow:auto;padding:0;list-style:none}
li{display:flex;flex-wrap:wrap;column-gap:.5em;padding:2px 0;border-top:1px solid #ddd}
li>*{white-space:nowrap}
code{overflow-wrap:anywhere;white-space:normal;font-weight:bold}
.failed{color:#900}`;
}
