/**
 * The site as one A2A agent (bridge/a2a/card.ts) and the caller of an A2A request
 * (bridge/a2a/caller.ts), imported directly over a real BridgeCore on a temporary site: one skill
 * per agent-enabled page with its actions as examples, the bearer scheme, both protocol versions'
 * interfaces, the v0.3 shape, and the parts and messages the agent answers with.
 *
 * @module
 */
import assert from "node:assert/strict";
import { AgentCard, Role } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import {
  A2A_PATH,
  AGENT_CARD_PATH,
  AGENT_VERSION,
  agentCard,
  cardV03,
  cardV1,
  SCHEME,
} from "../../bridge/a2a/card.ts";
import {
  agentMessage,
  callerOf,
  dataPart,
  SessionUser,
  textPart,
} from "../../bridge/a2a/caller.ts";
import type { Session } from "../../bridge/core/session.ts";
import { BASIC_SITE, writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

const ORIGIN = "http://127.0.0.1:8000";

/** BASIC_SITE with a page of 25 actions and descriptions that end in punctuation. */
const SITE = {
  ...BASIC_SITE,
  "bare.html": '<aim-action name="go" description="Go" input-example="x"></aim-action>',
  "many.html": `<!doctype html><title>Many</title>
<meta name="description" content="Many   actions">
${
    Array.from({ length: 25 }, (_, i) =>
      `<aim-action name="a${i}" description="Action ${i};" input-example="x"></aim-action>`)
      .join("\n")
  }`,
};

Deno.test("agentCard() has one skill per agent-enabled page, with at most 20 actions as examples that run", async () => {
  await using dir = await tempDir();
  writeSite(dir.path, SITE);
  const core = new BridgeCore({ root: dir.path });
  try {
    const card = await agentCard(core, ORIGIN);
    const ids = card.skills.map((s) => s.id).sort();
    assert.deepEqual(ids, ["/", "/bare", "/control-panel", "/many", "/orders"]);
    assert.ok(!ids.includes("/plain"), "a page without declarations is no skill");
    const panel = card.skills.find((s) => s.id === "/control-panel")!;
    assert.equal(panel.name, "Control panel");
    assert.match(
      panel.description,
      /^Control panel\. Each task runs one action of http:\/\/127\.0\.0\.1:8000\/control-panel in the session/,
    );
    assert.match(panel.description, /http:\/\/127\.0\.0\.1:8000\/control-panel\.json\.$/);
    assert.deepEqual(panel.tags, ["aim", "approve_request", "search", "disconnect"]);
    assert.ok(panel.examples.includes('Search requests: {"actionId":"search","input":"pending"}'));
    const bare = card.skills.find((s) => s.id === "/bare")!;
    assert.equal(bare.name, "/bare", "no title: the page's path");
    assert.match(bare.description, /^The page \/bare of this site\. Each task/);
    const many = card.skills.find((s) => s.id === "/many")!;
    assert.equal(many.description.split(" Each task")[0], "Many actions.");
    assert.equal(many.examples.length, 20);
    assert.equal(many.tags.length, 21);
    assert.equal(
      many.examples[0],
      'Action 0: {"actionId":"a0","input":"x"}',
      "the trailing ; goes",
    );
    const home = card.skills.find((s) => s.id === "/")!;
    assert.match(home.description, /^The home page\. /, "a full stop added");
  } finally {
    core.close();
  }
});

Deno.test("agentCard() names the host, the bearer scheme and both versions' interfaces; without an origin, no skills", async () => {
  await using dir = await tempDir();
  writeSite(dir.path, SITE);
  const core = new BridgeCore({ root: dir.path });
  try {
    const card = await agentCard(core, ORIGIN);
    assert.equal(card.name, "aim at 127.0.0.1:8000");
    assert.equal(card.version, AGENT_VERSION);
    assert.equal(card.documentationUrl, `${ORIGIN}/sitemap.json`);
    assert.deepEqual(card.supportedInterfaces.map((i) => [i.url, i.protocolVersion]), [
      [`${ORIGIN}${A2A_PATH}`, "1.0"],
      [`${ORIGIN}${A2A_PATH}`, "0.3"],
    ]);
    const scheme = card.securitySchemes[SCHEME]?.scheme;
    assert.equal(scheme?.$case, "httpAuthSecurityScheme");
    assert.equal(scheme?.$case === "httpAuthSecurityScheme" && scheme.value.scheme, "Bearer");
    assert.deepEqual(card.securityRequirements, [{ schemes: { [SCHEME]: { list: [] } } }]);
    assert.equal(card.capabilities?.streaming, true);
    assert.equal(card.capabilities?.pushNotifications, false);
    const bare = await agentCard(core);
    assert.deepEqual([bare.name, bare.skills, bare.documentationUrl], ["aim", [], undefined]);
    assert.equal(AGENT_CARD_PATH, "/.well-known/agent-card.json");
    // v1's JSON is the SDK's own encoding, and reads back as the same card.
    assert.deepEqual(cardV1(AgentCard.fromJSON(cardV1(card))), cardV1(card));
  } finally {
    core.close();
  }
});

Deno.test("cardV03() gives v0.3's shape: the 0.3 interface on top, the bearer scheme as OpenAPI's, the skills' fields", async () => {
  await using dir = await tempDir();
  writeSite(dir.path, SITE);
  const core = new BridgeCore({ root: dir.path });
  try {
    const card = await agentCard(core, ORIGIN);
    const old = cardV03(card);
    assert.equal(old.url, `${ORIGIN}${A2A_PATH}`);
    assert.equal(old.preferredTransport, "JSONRPC");
    assert.equal(old.protocolVersion, "0.3");
    assert.deepEqual(old.capabilities, { streaming: true, pushNotifications: false });
    assert.deepEqual(old.security, [{ [SCHEME]: [] }]);
    const schemes = old.securitySchemes as Record<string, Record<string, unknown>>;
    assert.equal(schemes[SCHEME]?.type, "http");
    assert.equal(schemes[SCHEME]?.scheme, "bearer", "lower case, as OpenAPI writes it");
    assert.match(String(schemes[SCHEME]?.description), /session token/);
    assert.equal(old.supportsAuthenticatedExtendedCard, false);
    assert.equal(old.documentationUrl, `${ORIGIN}/sitemap.json`);
    const skills = old.skills as Record<string, unknown>[];
    assert.deepEqual(Object.keys(skills[0]!).sort(), [
      "description",
      "examples",
      "id",
      "inputModes",
      "name",
      "outputModes",
      "tags",
    ]);
    assert.notEqual(old.supportedInterfaces, card.supportedInterfaces, "a copy");
    assert.equal("documentationUrl" in cardV03(await agentCard(core)), false);
  } finally {
    core.close();
  }
});

Deno.test("SessionUser speaks for its session by id; callerOf() finds it only in a context the bridge made", () => {
  const session = { id: "s1" } as unknown as Session;
  const user = new SessionUser(session, { client: "10.0.0.1", origin: ORIGIN });
  assert.deepEqual([user.isAuthenticated, user.userName, user.client, user.origin], [
    true,
    "s1",
    "10.0.0.1",
    ORIGIN,
  ]);
  assert.equal(callerOf(new ServerCallContext({ user })), user);
  const stranger = { isAuthenticated: true, userName: "s1" };
  assert.equal(callerOf(new ServerCallContext({ user: stranger })), undefined);
  assert.equal(callerOf(new ServerCallContext()), undefined);
});

Deno.test("textPart(), dataPart() and agentMessage() build the agent's parts and messages, each message its own id", () => {
  assert.deepEqual(textPart("hi"), {
    content: { $case: "text", value: "hi" },
    metadata: undefined,
    filename: "",
    mediaType: "text/plain",
  });
  assert.deepEqual(dataPart({ a: 1 }).content, { $case: "data", value: { a: 1 } });
  assert.equal(dataPart(null).mediaType, "application/json");
  const ids = { taskId: "t", contextId: "c" };
  const one = agentMessage([textPart("x")], ids);
  const two = agentMessage([], ids);
  assert.equal(one.role, Role.ROLE_AGENT);
  assert.deepEqual([one.taskId, one.contextId], ["t", "c"]);
  assert.notEqual(one.messageId, two.messageId);
  assert.match(one.messageId, /^[0-9a-f-]{36}$/);
});
