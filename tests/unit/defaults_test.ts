/**
 * Documented defaults are the code's: every `@default` is spelled `@default {value}` on a line of
 * its own (where `deno doc` reads it), no doc comment states a default in prose, and the value of
 * each tag equals the value the code falls back to, read from the defaults object the code uses
 * for that options type ({@linkcode DEFAULTS_OF}).
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_LIMITS, DEFAULTS } from "../../bridge/core/limits.ts";
import { CORE_DEFAULTS } from "../../bridge/core/core_options.ts";
import { STREAM_DEFAULTS } from "../../bridge/core/streams.ts";
import { SESSION_STORE_DEFAULTS } from "../../bridge/core/session_store_options.ts";
import { TAB_CHANNEL_DEFAULTS } from "../../bridge/core/tab_connection.ts";
import { TAB_MESSAGE_DEFAULTS } from "../../bridge/core/tab_messages.ts";
import { ATTEMPT_DEFAULTS, SCRYPT_DEFAULTS } from "../../bridge/core/login.ts";
import { LOGIN_DEFAULTS, SERVER_ACTION_DEFAULTS } from "../../bridge/core/server_actions.ts";
import { AUDIT_DEFAULTS } from "../../bridge/audit/log.ts";
import { MCP_DEFAULTS } from "../../bridge/mcp/routes.ts";
import { RUN_LIMITS } from "../../bridge/runs/registry.ts";
import { MIRROR_DEFAULTS } from "../../bridge/runs/shared.ts";
import { SERVE_DEFAULTS } from "../../bridge/serve/serve.ts";
import { BRIDGE_DEFAULTS } from "../../bridge/serve/bridge.ts";
import { REDIS_DEFAULTS } from "../../bridge/share/redis.ts";
import { SITE_CATALOG_DEFAULTS } from "../../bridge/site/catalog.ts";
import { CATALOG_DEFAULTS } from "../../bridge/upstream/catalog.ts";
import { PROXY_DEFAULTS } from "../../bridge/upstream/proxy.ts";
import { PARSE_JSON_DEFAULTS } from "../../bridge/wire/json.ts";
import { READABLE_DEFAULTS } from "../../elements/prompt.ts";
import { DEMO_DEFAULTS } from "../../demo/app.ts";
import { AIM_CREDENTIALS_DEFAULTS } from "../../bridge/http/credentials.ts";
import { RELAY_DEFAULTS } from "../../bridge/upstream/websocket.ts";
import { FRONT_DOOR_DEFAULTS } from "../../bridge/http/front_door.ts";
import { WEB_SERVER_CONFIG_DEFAULTS } from "../../bridge/upstream/beside_config.ts";
import { AGENT_INVOKE_DEFAULTS } from "../../bridge/core/invocation_watch.ts";
import { METRICS_FETCH_DEFAULTS, METRICS_LISTEN_DEFAULTS } from "../../bridge/metrics/endpoint.ts";
import { FAIR_GATE_DEFAULTS } from "../../bridge/core/fair_gate.ts";
import { ADDRESS_BUDGET_DEFAULTS } from "../../bridge/core/address_budget.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * For each options type whose properties document a default, the object the code takes its
 * defaults from. An optional boolean documented `@default {false}` needs none: an absent flag is
 * off by the language itself.
 */
const DEFAULTS_OF: Record<string, Readonly<Record<string, unknown>>> = {
  Limits: DEFAULT_LIMITS,
  BridgeCoreOptions: CORE_DEFAULTS,
  StreamLimits: STREAM_DEFAULTS,
  SessionStoreOptions: SESSION_STORE_DEFAULTS,
  TabChannelOptions: TAB_CHANNEL_DEFAULTS,
  TabMessageContext: TAB_MESSAGE_DEFAULTS,
  AttemptLimiterOptions: ATTEMPT_DEFAULTS,
  ScryptOptions: SCRYPT_DEFAULTS,
  BuiltinActionsOptions: LOGIN_DEFAULTS,
  ServerAction: SERVER_ACTION_DEFAULTS,
  AuditLogOptions: AUDIT_DEFAULTS,
  ChangeBudget: DEFAULTS.changeBudget,
  McpEndpointOptions: MCP_DEFAULTS,
  RunLimits: RUN_LIMITS,
  RunMirrorOptions: MIRROR_DEFAULTS,
  ServeOptions: SERVE_DEFAULTS,
  BridgeOptions: BRIDGE_DEFAULTS,
  RedisShareOptions: REDIS_DEFAULTS,
  SiteCatalogOptions: SITE_CATALOG_DEFAULTS,
  UpstreamCatalogOptions: CATALOG_DEFAULTS,
  ProxyOptions: PROXY_DEFAULTS,
  ParseJsonOptions: PARSE_JSON_DEFAULTS,
  ReadableOptions: READABLE_DEFAULTS,
  DemoOptions: DEMO_DEFAULTS,
  AimCredentialsOptions: AIM_CREDENTIALS_DEFAULTS,
  RelayOptions: RELAY_DEFAULTS,
  FrontDoorOptions: FRONT_DOOR_DEFAULTS,
  WebServerConfigOptions: WEB_SERVER_CONFIG_DEFAULTS,
  AgentInvokeOptions: AGENT_INVOKE_DEFAULTS,
  MetricsListenOptions: METRICS_LISTEN_DEFAULTS,
  MetricsFetchOptions: METRICS_FETCH_DEFAULTS,
  FairGateOptions: FAIR_GATE_DEFAULTS,
  AddressBudgetsOptions: ADDRESS_BUDGET_DEFAULTS,
};

/** The project's own modules whose doc comments are checked. */
function sourceFiles(): string[] {
  const files: string[] = ["main.ts", "demo/app.ts", "demo/data.ts"];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(`${ROOT}${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (path.endsWith(".ts")) files.push(path);
    }
  };
  walk("bridge");
  walk("elements");
  return files.sort();
}

/** The doc comment lines of a file, with their line numbers (1-based), stripped of `*`. */
function docLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inDoc = false;
  text.split("\n").forEach((raw, index) => {
    let line = raw.trim();
    if (!inDoc && line.startsWith("/**")) {
      inDoc = true;
      line = line.slice(3);
    } else if (!inDoc) return;
    const end = line.includes("*/");
    if (end) line = line.slice(0, line.indexOf("*/"));
    out.push({ line: index + 1, text: line.replace(/^\*\s?/, "").trim() });
    if (end) inDoc = false;
  });
  return out;
}

/** The text inside the braces that open `text` (balanced), or undefined. */
function braced(text: string): string | undefined {
  if (!text.startsWith("{")) return undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(1, i);
  }
  return undefined;
}

/**
 * How a value is stated as a default in prose ("Default 90.", "default `Date.now`", "Default one
 * hour"): what `@default {value}` says instead. A pointer to where defaults live ("the limits
 * default to {@linkcode RUN_LIMITS}") is not one, nor a library's own ("re2js's default").
 */
const PROSE_DEFAULT =
  /(?<!\b[Tt]he\s|'s\s)\b[Dd]efaults?:?\s+(?:to\s+)?(?:\d|one\b|two\b|half\b|true\b|false\b|`|")/;

Deno.test("every @default is spelled @default {value} on a line of its own, and none is in prose", () => {
  const wrong: string[] = [];
  for (const file of sourceFiles()) {
    const text = Deno.readTextFileSync(`${ROOT}${file}`);
    for (const { line, text: doc } of docLines(text)) {
      const at = doc.search(/(?<!`)@default\b/);
      if (at > 0) wrong.push(`${file}:${line}: @default after other text: ${doc}`);
      if (at === 0) {
        const value = braced(doc.slice("@default ".length));
        if (!doc.startsWith("@default {") || value === undefined || value.trim() === "") {
          wrong.push(`${file}:${line}: not @default {value}: ${doc}`);
        } else if (doc.slice("@default ".length).trim() !== `{${value}}`) {
          wrong.push(`${file}:${line}: text after @default {value}: ${doc}`);
        }
      }
      if (PROSE_DEFAULT.test(doc)) wrong.push(`${file}:${line}: a default in prose: ${doc}`);
    }
  }
  assert.deepEqual(wrong, []);
});

interface DocProperty {
  name: string;
  optional?: boolean;
  location: { filename: string; line: number };
  tsType?: { repr?: string; kind?: string; value?: unknown };
}

interface DocSymbol {
  name: string;
  declarations: {
    kind: string;
    location: { filename: string; line: number };
    def?: { properties?: DocProperty[] };
  }[];
}

/** Every property of an exported interface or class that documents a default, as written. */
async function documentedDefaults(): Promise<
  { file: string; owner: string; property: DocProperty; value: string }[]
> {
  const files = sourceFiles();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...files],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(out.success, "deno doc --json failed");
  const doc = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[] }>;
  };
  const found: { file: string; owner: string; property: DocProperty; value: string }[] = [];
  const seen = new Set<string>();
  for (const [url, module] of Object.entries(doc.nodes)) {
    const file = fileURLToPath(url).slice(ROOT.length);
    const lines = Deno.readTextFileSync(`${ROOT}${file}`).split("\n");
    for (const symbol of module.symbols) {
      for (const declaration of symbol.declarations) {
        // Re-exports are documented where they are declared.
        if (fileURLToPath(declaration.location.filename).slice(ROOT.length) !== file) continue;
        for (const property of declaration.def?.properties ?? []) {
          const key = `${file}:${property.location.line}`;
          if (seen.has(key)) continue;
          seen.add(key);
          // The doc comment right above the property.
          const comment: string[] = [];
          for (let i = property.location.line - 2; i >= 0; i--) {
            const line = lines[i]!.trim();
            comment.unshift(line);
            if (line.startsWith("/**")) break;
            if (!line.startsWith("*")) {
              comment.length = 0;
              break;
            }
          }
          const tag = docLines(comment.join("\n")).find((l) => l.text.startsWith("@default {"));
          if (!tag) continue;
          const value = braced(tag.text.slice("@default ".length));
          if (value !== undefined) found.push({ file, owner: symbol.name, property, value });
        }
      }
    }
  }
  return found;
}

/** The value a tag's text stands for, with the names its module exports in scope. */
async function valueOf(file: string, text: string): Promise<unknown> {
  const module = await import(pathToFileURL(`${ROOT}${file}`).href) as Record<string, unknown>;
  const names = Object.keys(module).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
  return new Function(...names, `"use strict"; return (${text});`)(
    ...names.map((name) => module[name]),
  );
}

Deno.test("every documented default equals the value in the defaults object its code uses", async () => {
  const documented = await documentedDefaults();
  assert.ok(documented.length >= 60, `only ${documented.length} documented defaults found`);
  const wrong: string[] = [];
  const owners = new Set<string>();
  const fileOf = new Map<string, string>();
  for (const { file, owner, property, value } of documented) {
    // An options type is known by its name: two of one name would share one defaults object.
    if ((fileOf.get(owner) ?? file) !== file) wrong.push(`${owner} is declared in two files`);
    fileOf.set(owner, file);
    const where = `${file}:${property.location.line} ${owner}.${property.name} @default {${value}}`;
    const expected = await valueOf(file, value);
    const defaults = DEFAULTS_OF[owner];
    if (!defaults) {
      const flag = property.optional && property.tsType?.repr === "boolean" && expected === false;
      if (!flag) wrong.push(`${where}: no defaults object is known for ${owner}`);
      continue;
    }
    owners.add(owner);
    if (!Object.hasOwn(defaults, property.name)) {
      wrong.push(`${where}: ${owner}'s defaults object has no ${property.name}`);
      continue;
    }
    try {
      assert.deepStrictEqual(defaults[property.name], expected);
    } catch {
      wrong.push(`${where}: the code's is ${String(defaults[property.name])}`);
    }
  }
  assert.deepEqual(wrong, []);
  // No stale entry: each defaults object is one a documented type uses.
  assert.deepEqual([...owners].sort(), Object.keys(DEFAULTS_OF).sort());
});
