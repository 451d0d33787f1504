/**
 * @module docs/scaling.md's metrics: the scrape configuration and the alert rules pass Prometheus's
 * own checks (`promtool`, Debian's `prometheus`; skipped with a message where it is missing), every
 * metric they and the table name is one a bridge serves, and a real scrape passes `promtool check
 * metrics` (names, types, units).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { startBridge } from "../helpers/bridge.ts";
import { NO_CLUSTER } from "../helpers/cluster.ts";
import { startRedis } from "../helpers/redis.ts";
import { readScrape } from "./scrape.ts";

const DOCS = fileURLToPath(new URL("../../docs/scaling.md", import.meta.url));

/** The Metrics section of docs/scaling.md. */
function metricsSection(): string {
  const text = Deno.readTextFileSync(DOCS);
  const start = text.indexOf("\n## Metrics\n");
  assert.ok(start >= 0, "docs/scaling.md has a Metrics section");
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The ```yaml blocks of the section: the scrape configuration, then the rules. */
function yamlBlocks(): { config: string; rules: string } {
  const blocks = [...metricsSection().matchAll(/```yaml\n([^]*?)```/g)].map((m) => m[1]!);
  assert.equal(blocks.length, 2, "a scrape configuration and a rules file");
  return { config: blocks[0]!, rules: blocks[1]! };
}

const PROMTOOL = ["/usr/bin/promtool", "/usr/local/bin/promtool"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});
if (!PROMTOOL) {
  console.warn(
    "promtool is not installed (apt-get install --no-install-recommends prometheus): " +
      "the Prometheus checks of docs/scaling.md's metrics are skipped",
  );
}

async function promtool(args: string[], stdin?: string): Promise<string> {
  const child = new Deno.Command(PROMTOOL!, {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.ok(out.success, `promtool ${args.join(" ")}: ${text}`);
  return text;
}

/** A scrape of a bridge that used Redis, so that every family is in it. */
async function fullScrape(): Promise<string> {
  await using redis = NO_CLUSTER ? undefined : await startRedis();
  await using bridge = await startBridge({
    metrics: { port: 0 },
    ...(redis ? { redis: redis.url } : {}),
  });
  await bridge.served.ready;
  await bridge.openSession("/control-panel");
  const res = await fetch(bridge.served.metricsUrl!);
  return await res.text();
}

Deno.test("every metric docs/scaling.md names is one a bridge serves", async () => {
  const text = await fullScrape();
  const scraped = readScrape(text);
  const served = new Set(scraped.families.keys());
  const named = new Set(
    [...metricsSection().matchAll(/\baim_[a-z_]+\b(?!\.)/g)]
      .map((m) => m[0].replace(/_(bucket|sum|count)$/, ""))
      // A route family, not a metric.
      .filter((name) => name !== "aim_other"),
  );
  assert.ok(named.size >= 10);
  for (const name of named) {
    if (name.startsWith("aim_redis") && NO_CLUSTER) continue;
    assert.ok(served.has(name), `${name} is served`);
  }
  // And the table lists every family served.
  for (const name of served) assert.ok(named.has(name), `docs/scaling.md lists ${name}`);
});

Deno.test({
  name: "docs/scaling.md's scrape configuration and alert rules pass promtool's checks",
  ignore: !PROMTOOL,
  fn: async () => {
    const { config, rules } = yamlBlocks();
    const dir = await Deno.makeTempDir({ prefix: "aim-prometheus-" });
    try {
      Deno.writeTextFileSync(join(dir, "prometheus.yml"), config);
      Deno.writeTextFileSync(join(dir, "aim_rules.yml"), rules);
      const checked = await promtool(["check", "config", join(dir, "prometheus.yml")]);
      assert.match(checked, /SUCCESS: 1 rule files found/);
      const ruled = await promtool(["check", "rules", join(dir, "aim_rules.yml")]);
      assert.match(ruled, /SUCCESS: \d+ rules found/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a scrape passes promtool check metrics: names, types and units as Prometheus wants them",
  ignore: !PROMTOOL,
  fn: async () => {
    const text = await fullScrape();
    const linted = await promtool(["check", "metrics"], text);
    assert.equal(linted.trim(), "");
  },
});
