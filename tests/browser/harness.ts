/**
 * Test helper for the real-browser tests: Debian's Chromium driven by puppeteer-core,
 * a fresh profile per launch, an incognito context per case, and an agent that talks HTTP.
 *
 * @module
 */
import { existsSync } from "node:fs";
import puppeteer, {
  type Browser,
  type BrowserContext,
  type ElementHandle,
  type Page,
} from "puppeteer-core";
import type { TestBridge } from "../helpers/bridge.ts";

/** Where Debian installs Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** True when there is no Chromium: the browser tests are then skipped, saying why. */
export const NO_CHROMIUM: boolean = !existsSync(CHROMIUM);
if (NO_CHROMIUM) {
  console.warn(`${CHROMIUM} is missing: the browser tests are skipped (apt-get install chromium).`);
}

/** Screenshots of the panel go here. */
export const OUTPUT_DIR = new URL("../../test-output/", import.meta.url);

/** Where Debian installs Firefox ESR. */
export const FIREFOX = "/usr/bin/firefox-esr";

/** True when there is no Firefox ESR: the Firefox tests are then skipped, saying why. */
export const NO_FIREFOX: boolean = !existsSync(FIREFOX);

/** The `<script>` that loads the elements. */
export const ELEMENTS = '<script type="module" src="/__aim/elements.js"></script>';

/** A browser for one test module, closed (and its profile removed) on dispose. */
export interface TestBrowser extends AsyncDisposable {
  readonly browser: Browser;
  /** A fresh incognito context: its own cookies, so its own sessions. */
  context(): Promise<BrowserContext & AsyncDisposable>;
}

/** Options of {@linkcode launchBrowser}. */
export interface LaunchOptions {
  /**
   * Start Chromium with `--enable-features=WebMCP`: pages on a secure origin (loopback counts)
   * get `document.modelContext`, and the DevTools protocol its `WebMCP` domain. @default {false}
   */
  webmcp?: boolean;
  /** Which browser: Chromium over the DevTools protocol, or Firefox ESR over WebDriver BiDi. */
  browser?: "chromium" | "firefox";
  /**
   * Whether puppeteer follows the pages' network (the DevTools `Network` domain). The benchmarks
   * turn it off: with it, every WebSocket frame a page sends or gets costs Chromium a DevTools
   * event and the benchmark's process (the bridge's too) its handling, which a person's browser,
   * with no DevTools attached, never pays. @default {true}
   */
  networkEvents?: boolean;
}

/** Launches Chromium (or Firefox ESR) headless with a temporary profile. */
export async function launchBrowser(options: LaunchOptions = {}): Promise<TestBrowser> {
  const firefox = options.browser === "firefox";
  const profile = await Deno.makeTempDir({ prefix: firefox ? "aim-firefox-" : "aim-chromium-" });
  const browser = firefox
    ? await puppeteer.launch({
      browser: "firefox",
      executablePath: FIREFOX,
      userDataDir: profile,
      headless: true,
    })
    : await puppeteer.launch({
      executablePath: CHROMIUM,
      userDataDir: profile,
      networkEnabled: options.networkEvents ?? true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        ...(options.webmcp ? ["--enable-features=WebMCP"] : []),
      ],
    });
  return {
    browser,
    async context() {
      const context = await browser.createBrowserContext();
      return Object.assign(context, {
        [Symbol.asyncDispose]: () => context.close().catch(() => {}),
      });
    },
    async [Symbol.asyncDispose]() {
      await browser.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

/** A page's console warnings (and uncaught errors), for the tests of author warnings. */
export class Warnings {
  readonly lines: string[] = [];
  #waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];

  constructor(page: Page) {
    page.on("console", (message) => {
      if (message.type() === "warn") this.#add(message.text());
    });
    page.on("pageerror", (error) => this.#add(`pageerror: ${error}`));
  }

  #add(line: string): void {
    this.lines.push(line);
    for (const waiter of this.#waiters.filter((w) => w.pattern.test(line))) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  }

  /** The first warning that matches `pattern`, now or when it comes. */
  waitFor(pattern: RegExp, timeoutMs = 5_000): Promise<string> {
    const seen = this.lines.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no warning ${pattern}; got: ${this.lines.join(" | ")}`)),
        timeoutMs,
      );
      this.#waiters.push({
        pattern,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }
}

/**
 * Before the page loads, records what its client sends on the channel (`aimSent`, the JSON
 * texts) and the `aim-status` events it fires (`aimStatuses`), as globals of the page.
 */
export async function recordChannel(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(() => {
    const w = window as unknown as { aimSent: string[]; aimStatuses: string[] };
    w.aimSent = [];
    w.aimStatuses = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      w.aimSent.push(String(data));
      return send.call(this, data);
    };
    document.addEventListener("aim-status", (e) => {
      w.aimStatuses.push((e as CustomEvent<{ status: string }>).detail.status);
    });
  });
}

/** Opens `path` of the bridge in a new tab of `context`. */
export async function openPage(
  context: BrowserContext,
  bridge: TestBridge,
  path: string,
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(bridge.origin + path);
  return page;
}

/**
 * Opens `path` in a new tab opened by `opener`'s script, as a person duplicating a tab: the new
 * tab starts with a copy of the opener's session storage, so it resumes the same session.
 */
export async function openFromPage(
  context: BrowserContext,
  opener: Page,
  path: string,
): Promise<Page> {
  const created = new Promise<Page>((resolve) => {
    context.once("targetcreated", async (target) => resolve((await target.page())!));
  });
  await opener.evaluate((p) => void open(p, "_blank"), path);
  const page = await created;
  await page.waitForFunction(() => document.readyState === "complete");
  return page;
}

/** Waits until the panel's status is `status` (its reflected attribute). */
export async function panelStatus(page: Page, status: string, timeout = 10_000): Promise<void> {
  await page.waitForFunction(
    (s) => document.querySelector("aim-panel")?.getAttribute("status") === s,
    { timeout },
    status,
  );
}

/** The token the panel shows, once it shows one. */
export async function panelToken(page: Page): Promise<string> {
  const handle = await page.waitForFunction(() => {
    const input = document.querySelector("aim-panel")?.shadowRoot?.querySelector<HTMLInputElement>(
      "#token",
    );
    return input?.value || false;
  }, { timeout: 10_000 });
  return await handle.jsonValue() as string;
}

/** The panel's text (its shadow DOM), for assertions on what it says. */
export function panelText(page: Page): Promise<string> {
  return page.evaluate(() =>
    (document.querySelector("aim-panel")?.shadowRoot?.textContent ?? "").replace(/\s+/g, " ")
  );
}

/**
 * Clicks a button of the panel by its text. Approve works only once the prompt has been read
 * (elements/prompt.ts): the pointer moves onto it as a person's does, and the click waits for it.
 */
export async function clickPanelButton(page: Page, text: string): Promise<void> {
  const button = await page.waitForFunction(
    (t) => {
      const buttons = document.querySelector("aim-panel")?.shadowRoot?.querySelectorAll("button");
      return [...buttons ?? []].find((b) => b.textContent?.trim() === t) ?? false;
    },
    { timeout: 10_000 },
    text,
  ) as unknown as ElementHandle<HTMLButtonElement>;
  if (text === "Approve") await pointAtApprove(page, button);
  await button.click();
}

/**
 * Moves the pointer onto a prompt's Approve button as a person does (from a corner of it to its
 * middle) and waits until the button works (no `aria-disabled="true"`): the prompt has been on
 * screen for its read delay (elements/prompt.ts `READ_DELAY_MS`).
 */
export async function pointAtApprove(
  page: Page,
  button: ElementHandle<HTMLButtonElement>,
  timeout = 10_000,
): Promise<void> {
  await button.scrollIntoView();
  const box = (await button.boundingBox())!;
  await page.mouse.move(box.x + 2, box.y + 2);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 2 });
  await page.waitForFunction(
    (b: HTMLButtonElement) => b.getAttribute("aria-disabled") !== "true",
    { timeout },
    button,
  );
}

/** Presses Approve in the elements' own dialog once it works (see {@linkcode pointAtApprove}). */
export async function approveInDialog(page: Page): Promise<void> {
  const button = await page.waitForSelector("aim-confirm >>> dialog[open] button.approve", {
    timeout: 10_000,
  }) as ElementHandle<HTMLButtonElement>;
  await pointAtApprove(page, button);
  await button.click();
}

/** Saves a screenshot of the panel under test-output/. */
export async function screenshotPanel(page: Page, name: string): Promise<void> {
  await Deno.mkdir(OUTPUT_DIR, { recursive: true });
  const panel = await page.$("aim-panel");
  await panel!.screenshot({ path: new URL(`panel-${name}.png`, OUTPUT_DIR).pathname });
}

/** The answer an agent gets: status and JSON body. */
export interface AgentAnswer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** An agent: plain HTTP with `Authorization: Bearer`. */
export class Agent {
  constructor(readonly bridge: TestBridge, readonly token: string) {}

  async #answer(res: Response): Promise<AgentAnswer> {
    return { status: res.status, body: await res.json() };
  }

  /** GET a page's manifest (`/x.json`). */
  async manifest(path: string): Promise<AgentAnswer> {
    return await this.#answer(
      await this.bridge.fetch(path, { headers: { Authorization: `Bearer ${this.token}` } }),
    );
  }

  /** POST /__aim/invoke. */
  async invoke(actionId: string, input: unknown = {}): Promise<AgentAnswer> {
    return await this.#answer(await this.bridge.invoke(this.token, actionId, input));
  }

  /** Waits until the manifest of `path` satisfies `test`: the tab pushes its changes a frame later. */
  async manifestWhen(
    path: string,
    // deno-lint-ignore no-explicit-any
    test: (manifest: any) => boolean,
    timeoutMs = 5_000,
  ): Promise<AgentAnswer> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const answer = await this.manifest(path);
      if (answer.status === 200 && test(answer.body)) return answer;
      if (Date.now() > deadline) {
        throw new Error(`the manifest never matched; last: ${JSON.stringify(answer)}`);
      }
      // An agent polls over HTTP; there is no event to wait on from outside the page.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** The status the demo's control panel shows for request `id` (its table's fifth cell), or null. */
export function demoRequestStatus(page: Page, id: string): Promise<string | null> {
  return page.evaluate((id) => {
    const row = [...document.querySelectorAll("#requests tbody tr")]
      .find((tr) => tr.firstElementChild?.textContent === id);
    return row ? row.children[4]!.textContent : null;
  }, id);
}
