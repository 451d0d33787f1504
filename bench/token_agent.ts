/**
 * The agent of `deno task bench:tokens` (bench/tokens.ts): one over HTTP against a fresh demo
 * with its fake control panel, that keeps every body it wrote and read and counts their tokens
 * (o200k_base, by gpt-tokenizer), the request lines and headers apart.
 *
 * @module
 */
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer";
import { startDemo } from "../demo/app.ts";
import { type DemoTab, openDemoTab } from "./demo_tab.ts";

/** The demo's person, who signs in. */
export const ALICE = { username: "alice", password: "wonderland" };

const encoder = new TextEncoder();
/** The UTF-8 bytes of `text`. */
export const bytes: (text: string) => number = (text: string) => encoder.encode(text).length;
/** The o200k_base tokens of `text`. */
export const tokens: (text: string) => number = (text: string) => text ? countTokens(text) : 0;
/** One request and its answer, as the agent wrote and read them. */
export interface Exchange {
  step: string;
  status: number;
  /** The body the agent wrote. */
  sent: string;
  /** The body the agent read. */
  body: string;
  /** The request line and headers the agent wrote, the status line and headers it read. */
  overhead: string;
  headers: Headers;
}

/** An agent over HTTP that keeps what it wrote and read. */
export class Agent {
  readonly log: Exchange[] = [];
  constructor(readonly origin: string, readonly token: string) {}

  async #send(
    step: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    sent = "",
    withToken = true,
  ): Promise<Exchange> {
    const res = await fetch(this.origin + path, {
      method,
      headers: {
        ...(withToken ? { Authorization: `Bearer ${this.token}` } : {}),
        ...(sent ? { "Content-Type": "application/json" } : {}),
        ...headers,
      },
      ...(sent ? { body: sent } : {}),
    });
    const body = await res.text();
    // What an agent writes with curl, the token as a variable; what it reads besides the body.
    const written = Object.entries(headers).map(([k, v]) => `-H '${k}: ${v}'`).join(" ");
    const etag = res.headers.get("etag");
    const exchange: Exchange = {
      step,
      status: res.status,
      sent,
      body,
      overhead: `curl -s${method === "GET" ? "" : ` -X ${method}`}` +
        (withToken ? ` -H "Authorization: Bearer $TOKEN"` : "") +
        ` ${written} ${this.origin}${path}\nHTTP/1.1 ${res.status}` +
        (etag ? `\netag: ${etag}` : ""),
      headers: res.headers,
    };
    this.log.push(exchange);
    return exchange;
  }

  get(step: string, path: string, headers: Record<string, string> = {}): Promise<Exchange> {
    return this.#send(step, "GET", path, headers);
  }

  /** A read without the token: what anyone sees. */
  getPublic(step: string, path: string): Promise<Exchange> {
    return this.#send(step, "GET", path, {}, "", false);
  }

  invoke(
    step: string,
    actionId: string,
    input: unknown,
    headers: Record<string, string> = {},
  ): Promise<Exchange> {
    return this.#send(
      step,
      "POST",
      "/__aim/invoke",
      headers,
      JSON.stringify({ actionId, input }),
    );
  }
}

/** Tokens of an exchange: written, read, and the request lines and headers apart. */
export function cost(e: Exchange): { wrote: number; read: number; overhead: number } {
  return { wrote: tokens(e.sent), read: tokens(e.body), overhead: tokens(e.overhead) };
}

export function total(
  log: Exchange[],
): { wrote: number; read: number; overhead: number; all: number } {
  const sum = { wrote: 0, read: 0, overhead: 0 };
  for (const e of log) {
    const c = cost(e);
    sum.wrote += c.wrote;
    sum.read += c.read;
    sum.overhead += c.overhead;
  }
  return { ...sum, all: sum.wrote + sum.read };
}

export function printLog(log: Exchange[]): void {
  for (const e of log) {
    const c = cost(e);
    console.log(
      `  ${e.step.padEnd(58)} ${String(e.status).padStart(3)}  wrote ${
        String(c.wrote).padStart(3)
      }, read ${String(c.read).padStart(4)} tokens (${bytes(e.body)} B)`,
    );
  }
}

/** The state version an answer's ETag names. */
export const etagVersion = (e: Exchange): number =>
  Number(/"v(\d+)"/.exec(e.headers.get("etag") ?? "")?.[1]);

/** A fresh demo (its own data), with the fake control panel holding one session. */
export async function freshDemo(): Promise<
  AsyncDisposable & {
    origin: string;
    panel: DemoTab;
    store: Awaited<ReturnType<typeof startDemo>>["store"];
  }
> {
  const data = Deno.makeTempDirSync({ prefix: "aim-tokens-" });
  const demo = await startDemo({ data, hostname: "127.0.0.1", port: 0 });
  const panel = await openDemoTab(demo.served.url);
  return {
    origin: demo.served.url,
    panel,
    store: demo.store,
    async [Symbol.asyncDispose]() {
      await panel.close();
      await demo[Symbol.asyncDispose]();
      Deno.removeSync(data, { recursive: true });
    },
  };
}

export async function signIn(agent: Agent): Promise<Exchange> {
  const login = await agent.invoke("sign in", "login", ALICE);
  assert.equal(login.status, 200, login.body);
  return login;
}
