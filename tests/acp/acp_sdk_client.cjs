/**
 * Drives a bridge with the official ACP client and prints what it saw as JSON; usage:
 * `node acp_sdk_client.cjs <folder with node_modules/acp-sdk> <bridge origin> <token> <agent>`.
 *
 * @module
 */
"use strict";

const [sdkFolder, baseUrl, token, agentName] = process.argv.slice(2);
const { Client } = require(require.resolve("acp-sdk", { paths: [sdkFolder] }));

/** The client knows no session tokens; its `fetch` option is how a caller adds one. */
function withToken(url, init = {}) {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  return fetch(url, { ...init, headers });
}

async function failure(promise) {
  try {
    await promise;
    return null;
  } catch (error) {
    return { name: error.name, code: error.code ?? null, message: error.message };
  }
}

async function main() {
  const client = new Client({ baseUrl, fetch: withToken });
  await client.ping();
  const agents = await client.agents();
  const agent = await client.agent(agentName);
  const sessionId = "6f1c1a52-2d3e-4c8e-9a61-3f7d2b0c9e14";
  const sync = await client.withSession(
    (session) =>
      session.runSync(agentName, [{
        role: "user",
        parts: [{
          content_type: "application/json",
          content: JSON.stringify({ actionId: "search", input: "pending" }),
        }],
      }]),
    sessionId,
  );
  const streamed = [];
  for await (const event of client.runStream(agentName, "search streamed")) streamed.push(event);
  const runId = streamed[0].run.run_id;
  const events = await client.runEvents(runId);
  const status = await client.runStatus(runId);
  const failed = await client.runSync(agentName, "no_such_action x");
  const missingAgent = await failure(client.agent("no-such-agent"));
  const anonymous = await failure(new Client({ baseUrl }).runSync(agentName, "search x"));
  process.stdout.write(
    JSON.stringify({
      agents,
      agent,
      sessionId,
      sync,
      streamed,
      events,
      status,
      failed,
      missingAgent,
      anonymous,
    }),
  );
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
