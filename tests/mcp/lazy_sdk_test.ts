import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The packages loaded only when an MCP client uses the bridge, or `aim mcp` runs. */
const MCP_PACKAGE_REGEXP = /^@modelcontextprotocol\//;

interface InfoDependency {
  code?: { specifier?: string };
  isDynamic?: boolean;
}

interface Info {
  modules: { specifier: string; npmPackage?: string; dependencies?: InfoDependency[] }[];
  redirects: Record<string, string>;
}

/**
 * The npm packages (`name@version`) that loading `entry` loads: the modules reached from it by
 * static value imports. Type-only imports load nothing, nor does a dynamic `import()` until it
 * runs; with `dynamic`, what its dynamic imports with static specifiers load too (what
 * `deno compile` embeds).
 */
async function packagesOf(entry: string, options: { dynamic?: boolean } = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--lock=deno.test.lock", "--frozen=false", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.ok(out.success, `deno info ${entry}: ${new TextDecoder().decode(out.stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as Info;
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const resolve = (specifier: string) => info.redirects[specifier] ?? specifier;
  const packages = new Set<string>();
  const seen = new Set<string>();
  const stack = [resolve(new URL(entry, `file://${ROOT}`).href)];
  for (let specifier = stack.pop(); specifier !== undefined; specifier = stack.pop()) {
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    const module = modules.get(specifier);
    assert.ok(module, `deno info ${entry} does not list ${specifier}`);
    if (module.npmPackage) packages.add(module.npmPackage);
    for (const dep of module.dependencies ?? []) {
      if (dep.isDynamic && !options.dynamic) continue;
      if (dep.code?.specifier) stack.push(resolve(dep.code.specifier));
    }
  }
  return packages;
}

for (const entry of ["bridge/mod.ts", "bridge/cli/serve.ts", "main.ts"]) {
  Deno.test(`${entry} imports no MCP SDK package statically, so that a bridge no MCP client uses never loads it`, async () => {
    const loaded = [...await packagesOf(entry)].filter((id) => MCP_PACKAGE_REGEXP.test(id));
    assert.deepEqual(
      loaded,
      [],
      `${entry} loads ${loaded.join(", ")} as it starts: import the SDK's values with a ` +
        "dynamic import() where they are first needed (see loadRuntime in bridge/mcp/runtime.ts), " +
        "and its types with `import type`",
    );
  });
}

Deno.test("the dynamic imports of the MCP SDKs are ones deno compile sees and embeds", async () => {
  const expected: [entry: string, prefix: string][] = [
    ["bridge/mod.ts", "@modelcontextprotocol/server@"],
    ["main.ts", "@modelcontextprotocol/server@"],
    ["main.ts", "@modelcontextprotocol/client@"],
  ];
  for (const [entry, prefix] of expected) {
    const all = [...await packagesOf(entry, { dynamic: true })];
    assert.ok(
      all.some((id) => id.startsWith(prefix)),
      `the module graph of ${entry}, dynamic imports included, has no ${prefix}: ` +
        `${all.join(", ")}; an import() with a computed specifier is left out of a compiled aim`,
    );
  }
});
