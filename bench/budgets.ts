/**
 * The budgets `deno task bench` (bench/run.ts) reports, every one of DESIGN §8 and §11 (and §12's
 * of issue 34), in the order the design lists them.
 *
 * @module
 */

/** A budget's name in {@linkcode BUDGETS}. */
export type BudgetKey =
  | "manifest"
  | "sessionJson"
  | "sessionToon"
  | "notModified"
  | "invokeAtRest"
  | "memory10k"
  | "bundle"
  | "mcpV2"
  | "mcpV1"
  | "cluster"
  | "testCommand"
  | "tokensMcp"
  | "tokensHttp"
  | "invokeBack"
  | "upstreamNginx"
  | "upstreamFetch"
  | "beside"
  | "playwright";

/**
 * Every budget of DESIGN §8 and §11 (and §12's), in the order the design lists them, with what
 * this run measured of it: held, missed, or null until a part of the run measures it.
 */
export const BUDGETS: Readonly<Record<BudgetKey, string>> = {
  manifest: "§8 a public manifest at >= 0.85x a bare Deno.serve's rate",
  sessionJson: "§8 a session manifest (JSON) at >= 0.80x",
  sessionToon: "§8 a session manifest (TOON) at >= 0.80x",
  notModified: "§8 a 304 at >= 0.90x",
  invokeAtRest: "§8 an invocation adds < 1.5 ms median, < 4 ms p95 at rest (demo, Chromium)",
  memory10k: "§8 10,000 idle sessions with connected tabs under 300 MB resident",
  bundle: "§8 what a page loads up front from the elements under 12 KB gzip",
  mcpV2: "§8 aim's own MCP layer adds at most 0.1 ms over the bare official SDK server (v2 client)",
  mcpV1: "§8 aim's own MCP layer adds at most 0.1 ms over the bare official SDK server (v1 client)",
  cluster: "§8 a tab on another instance adds < 1 ms median, as an outside client measures it",
  testCommand: "§11 README's test command within 5 minutes on a 2-core machine",
  tokensMcp: "§11 the demo task in at most 1,000 tokens over MCP",
  tokensHttp: "§11 the demo task in at most 700 tokens over the cheapest HTTP path",
  invokeBack: "§11 an invocation adds at most 3 ms median back to back",
  upstreamNginx: "§11 --upstream at >= 0.8x nginx proxy_pass, < 1 ms added at the median",
  upstreamFetch: "§12 --upstream at >= 0.9x a bare proxy on the runtime's fetch",
  beside: "§12 pages beside nginx at >= 0.95x nginx alone",
  playwright: "§12 an invocation >= 20x faster than Playwright MCP's nearest tool in the same run",
};
