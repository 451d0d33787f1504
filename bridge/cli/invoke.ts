/**
 * `aim invoke URL [ACTION] [INPUT]`: a minimal agent. Without ACTION it prints the
 * page's manifest; with ACTION it invokes it and prints the result.
 *
 * @module
 */
import { CliError, type CliIO, Exit, parseFlags, sessionToken } from "./common.ts";

export const INVOKE_USAGE = `Usage: aim invoke URL [ACTION] [INPUT] [--token TOKEN] [--json]

URL is a page (http://127.0.0.1:8000/control-panel) or its manifest URL. Without ACTION, prints
the page's manifest (TOON; JSON with --json). With ACTION, invokes it and prints the result as
JSON. INPUT is the string itself, or a JSON object for object inputs ('{"username":"alice"}').
The token is the one the page shows: the AIM_TOKEN environment variable, or --token (which
every user of the machine can see in the process list while the command runs).

Options:
  --token TOKEN  the session token (default: $AIM_TOKEN)
  --text         send INPUT as a string even when it looks like JSON ('[draft] urgent')
  --json         print the manifest as JSON
  -h, --help     this help
`;

function pageUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`"${raw}" is not a URL`, Exit.Usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`"${raw}" is not an http(s) URL`, Exit.Usage);
  }
  url.search = "";
  url.hash = "";
  url.pathname = url.pathname.replace(/\.(json|toon)$/, "").replace(/\/index$/, "/");
  return url;
}

function manifestUrl(page: URL, format: "json" | "toon"): string {
  const path = page.pathname.endsWith("/") ? `${page.pathname}index` : page.pathname;
  return `${page.origin}${path}.${format}`;
}

function parseInput(raw: string | undefined, text: boolean): unknown {
  if (raw === undefined) return undefined;
  if (!text && /^\s*[{[]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      throw new CliError(
        `INPUT looks like JSON but is not valid JSON: ${raw} (use --text to send it as a string)`,
        Exit.Usage,
      );
    }
  }
  return raw;
}

async function request(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new CliError(`cannot reach ${url}: ${error instanceof Error ? error.message : error}`);
  }
}

async function failure(res: Response): Promise<CliError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text);
    const hint = body.hint && !String(body.message).includes(body.hint)
      ? `\nhint: ${body.hint}`
      : "";
    const available = Array.isArray(body.available_actions)
      ? `\navailable actions: ${body.available_actions.join(", ") || "none"}`
      : "";
    return new CliError(`${res.status} ${body.error}: ${body.message}${hint}${available}`);
  } catch {
    return new CliError(`${res.status}: ${text.slice(0, 200)}`);
  }
}

/**
 * Whether the session's manifest says `action` is consequential, so that the command says it is
 * waiting for the person rather than seem to hang. Any failure here says no: the invocation
 * itself reports what is wrong.
 */
async function isConsequential(
  url: string,
  auth: Record<string, string>,
  action: string,
): Promise<boolean> {
  try {
    const res = await fetch(url, { headers: auth });
    if (!res.ok) {
      await res.body?.cancel();
      return false;
    }
    const manifest = await res.json() as { actions?: { id?: unknown; consequential?: unknown }[] };
    return manifest.actions?.some((a) => a.id === action && a.consequential === true) ?? false;
  } catch {
    return false;
  }
}

/** Runs `aim invoke`. */
export async function invokeCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    token: { type: "string" },
    text: { type: "boolean" },
    json: { type: "boolean" },
  }, INVOKE_USAGE);
  if (values.help) {
    io.stdout(INVOKE_USAGE);
    return Exit.Ok;
  }
  if (positionals.length < 1 || positionals.length > 3) {
    throw new CliError("give URL, then optionally ACTION and INPUT", Exit.Usage, {
      usage: INVOKE_USAGE,
    });
  }
  // The length check above leaves at least the URL.
  const [raw, action, rawInput] = positionals as [string, string?, string?];
  const page = pageUrl(raw);
  const token = sessionToken(values.token, io, { withoutToken: "read the public manifest" });
  const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  if (action === undefined) {
    const url = manifestUrl(page, values.json ? "json" : "toon");
    const res = await request(url, { headers: auth });
    if (!res.ok) throw await failure(res);
    const text = await res.text();
    io.stdout(values.json ? JSON.stringify(JSON.parse(text), null, 2) + "\n" : text + "\n");
    return Exit.Ok;
  }
  if (!token) {
    throw new CliError("invoking needs the session token: --token or AIM_TOKEN", Exit.Usage);
  }
  const input = parseInput(rawInput, values.text ?? false);
  if (await isConsequential(manifestUrl(page, "json"), auth, action)) {
    io.stderr(`aim: ${action} waits for the person to confirm it in the page; waiting…\n`);
  }
  const res = await request(`${page.origin}/__aim/invoke`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify(input === undefined ? { actionId: action } : { actionId: action, input }),
  });
  if (!res.ok) throw await failure(res);
  const body = await res.json();
  io.stdout(JSON.stringify(body, null, 2) + "\n");
  return Exit.Ok;
}
