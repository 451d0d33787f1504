/**
 * The official ACP client (npm `acp-sdk`, pinned, its CommonJS build in Node) against the
 * bridge; a failed install fails the test, only an unreachable registry skips it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentManifest, Event, Run } from "../../bridge/acp/schemas.ts";
import { startBridge } from "../helpers/bridge.ts";
import { connected } from "./helpers.ts";

const SDK = "acp-sdk";
const SDK_VERSION = "1.0.3";
const SDK_FOLDER = join(tmpdir(), `aim-test-${SDK}-${SDK_VERSION}`);
const CLIENT_SCRIPT = new URL("./acp_sdk_client.cjs", import.meta.url).pathname;
const UNREACHABLE =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT)\b/;

type Install = { ok: true } | { ok: false; unreachable: boolean; output: string };

function installed(): boolean {
  try {
    const pkg = JSON.parse(
      Deno.readTextFileSync(join(SDK_FOLDER, "node_modules", SDK, "package.json")),
    );
    Deno.statSync(join(SDK_FOLDER, "node_modules", SDK, "dist", "index.cjs"));
    return pkg.version === SDK_VERSION;
  } catch {
    return false;
  }
}

/** Installs the pinned client with npm unless the cache folder already holds it. */
async function install(): Promise<Install> {
  if (installed()) return { ok: true };
  Deno.mkdirSync(SDK_FOLDER, { recursive: true });
  Deno.writeTextFileSync(
    join(SDK_FOLDER, "package.json"),
    JSON.stringify({ private: true, name: "aim-acp-sdk-cache" }),
  );
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command("npm", {
      args: [
        "install",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--no-save",
        `${SDK}@${SDK_VERSION}`,
      ],
      cwd: SDK_FOLDER,
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    return { ok: false, unreachable: false, output: `npm could not be started: ${error}` };
  }
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (output.success && installed()) return { ok: true };
  return { ok: false, unreachable: UNREACHABLE.test(text), output: text };
}

const setup = await install();
const unreachable = !setup.ok && setup.unreachable;
if (unreachable) {
  console.warn(
    `SKIPPED: the npm registry is unreachable, so ${SDK}@${SDK_VERSION} cannot be installed ` +
      "and the official ACP client is not tested against the bridge.",
  );
}

Deno.test({
  name: `the official ACP client (${SDK}@${SDK_VERSION}) lists the agents and completes runs`,
  ignore: unreachable,
  async fn() {
    if (!setup.ok) {
      throw new Error(`npm could not install ${SDK}@${SDK_VERSION}:\n${setup.output}`);
    }
    await using bridge = await startBridge();
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    const output = await new Deno.Command("node", {
      args: [CLIENT_SCRIPT, SDK_FOLDER, bridge.origin, token, "control-panel"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.ok(output.success, `the client script failed:\n${stderr}`);
    const seen = JSON.parse(new TextDecoder().decode(output.stdout));

    assert.deepEqual(seen.agents.map((a: { name: string }) => a.name).sort(), [
      "control-panel",
      "index",
      "orders",
    ]);
    const agent = AgentManifest.parse(seen.agent);
    assert.equal(agent.name, "control-panel");
    assert.ok(agent.metadata!.capabilities!.some((c) => c.name === "search"));

    const sync = Run.parse(seen.sync);
    assert.equal(sync.status, "completed");
    assert.equal(sync.session_id, seen.sessionId);
    assert.deepEqual(JSON.parse(sync.output[0]?.parts[0]?.content!).result, { found: ["pending"] });

    const streamed = (seen.streamed as unknown[]).map((e) => Event.parse(e));
    assert.deepEqual(streamed.map((e) => e.type), [
      "run.created",
      "run.in-progress",
      "message.created",
      "message.part",
      "message.completed",
      "run.completed",
    ]);
    const part = streamed[3];
    assert.ok(part?.type === "message.part");
    assert.deepEqual(JSON.parse(part.part.content!).result, { found: ["streamed"] });
    assert.deepEqual(seen.events, seen.streamed, "runEvents() gives what the stream delivered");
    assert.equal(Run.parse(seen.status).status, "completed");

    const failed = Run.parse(seen.failed);
    assert.equal(failed.status, "failed");
    assert.equal(failed.error!.code, "not_found");
    assert.deepEqual(seen.missingAgent, {
      name: "ACPError",
      code: "not_found",
      message: "Agent no-such-agent not found",
    });
    assert.equal(seen.anonymous.name, "ACPError");
    assert.equal(seen.anonymous.code, "server_error");
  },
});
