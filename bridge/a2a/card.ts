/**
 * The site as one A2A agent: its Agent Card, with one skill per agent-enabled page (its
 * actions as examples) and the session token as an HTTP bearer scheme; in A2A v1's JSON, and
 * in v0.3's for clients that ask for no version (as the SDK's own card handler answers them).
 *
 * @module
 */
import { AgentCard, type AgentInterface, type AgentSkill } from "@a2a-js/sdk";
import type { BridgeCore } from "../core/bridge.ts";
import type { ManifestAction } from "../wire/schemas.ts";
import { manifestPath, pageLocation } from "../site/paths.ts";

/** Where the card is served (A2A's well-known path). */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";
/** Where the A2A endpoint (JSON-RPC) is. */
export const A2A_PATH = "/__aim/a2a";
/** The agent's version: aim's. */
export const AGENT_VERSION = "0.1.0";
/** The security scheme's name in the card. */
export const SCHEME = "aim_session";

/** What a message may hold, and what an answer holds. */
const INPUT_MODES = ["application/json", "text/plain"];
const OUTPUT_MODES = ["application/json", "text/plain"];
/** How many actions of a page its skill shows as examples. */
const MAX_EXAMPLES = 20;

/** The endpoint's interfaces: JSON-RPC in A2A v1 and in v0.3, at the same URL. */
function interfaces(origin: string): AgentInterface[] {
  const url = origin + A2A_PATH;
  return [
    { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
  ];
}

/** A sentence, with a full stop. */
function sentence(text: string): string {
  const trimmed = text.replace(/\s+/g, " ").trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** An action as a skill example: what it does, and the data part that runs it. */
function example(action: ManifestAction): string {
  // An action without an example (none could be made from its schema) names its id alone.
  const part = JSON.stringify({ actionId: action.id, input: action.input_example });
  return `${action.description.replace(/\s+/g, " ").trim().replace(/[.;:]+$/, "")}: ${part}`;
}

/**
 * The card of the site at `origin`: one skill per agent-enabled page, with the actions of its
 * public manifest as examples. Without an origin (the request handler's own copy), no skills.
 */
export async function agentCard(core: BridgeCore, origin = ""): Promise<AgentCard> {
  const pages = origin ? await core.catalog.agentPages() : [];
  const skills: AgentSkill[] = [];
  for (const info of pages) {
    const manifest = await core.manifest(info.page, null, origin);
    const about = info.description || info.title || `The page ${info.page} of this site.`;
    skills.push({
      id: info.page,
      name: info.title || info.page,
      description: [
        sentence(about),
        `Each task runs one action of ${
          origin + pageLocation(info.page, info.file)
        } in the session of a token that page shows.`,
        `The page's actions, their descriptions and input schemas: ${
          origin + manifestPath(info.page, "json")
        }.`,
      ].join(" "),
      tags: ["aim", ...manifest.actions.slice(0, MAX_EXAMPLES).map((a) => a.id)],
      examples: manifest.actions.slice(0, MAX_EXAMPLES).map(example),
      inputModes: ["application/json"],
      outputModes: ["application/json"],
      securityRequirements: [],
    });
  }
  const host = origin.replace(/^[a-z]+:\/\//, "");
  return {
    name: host ? `aim at ${host}` : "aim",
    description: [
      `The agent-enabled pages of ${
        origin || "this site"
      }, one skill each, operated through their declared actions.`,
      "Open a page in a browser and copy the session token its AIM panel shows; send it as",
      "`Authorization: Bearer <token>`. Each message runs one action of that page: a data part",
      '`{"actionId": "<id>", "input": <input>}`. A consequential action waits for the person to',
      "confirm it in the page (input-required) and then completes or fails with `declined`.",
    ].join(" "),
    supportedInterfaces: interfaces(origin),
    provider: undefined,
    version: AGENT_VERSION,
    ...(origin ? { documentationUrl: `${origin}/sitemap.json` } : {}),
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      [SCHEME]: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: {
            description:
              "The AIM session token a page's panel shows; it speaks for that page's session only, and ends when the person disconnects.",
            scheme: "Bearer",
            bearerFormat: "",
          },
        },
      },
    },
    securityRequirements: [{ schemes: { [SCHEME]: { list: [] } } }],
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills,
    signatures: [],
  };
}

/** A card as A2A v1 sends it: ProtoJSON. */
export function cardV1(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}

/**
 * A card in A2A v0.3's shape, for clients that ask for no version (as the SDK's own card
 * handler answers them): the primary URL and transport at the top, the bearer scheme as an
 * OpenAPI security scheme, and the v1 interfaces beside, for v1 clients that read it.
 */
export function cardV03(card: AgentCard): Record<string, unknown> {
  const [primary] = card.supportedInterfaces.filter((i) => i.protocolVersion === "0.3");
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    url: primary?.url,
    preferredTransport: primary?.protocolBinding,
    protocolVersion: "0.3",
    capabilities: {
      streaming: card.capabilities?.streaming ?? false,
      pushNotifications: card.capabilities?.pushNotifications ?? false,
    },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      examples: skill.examples,
      inputModes: skill.inputModes,
      outputModes: skill.outputModes,
    })),
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    supportsAuthenticatedExtendedCard: false,
    securitySchemes: Object.fromEntries(
      Object.entries(card.securitySchemes).map(([name, scheme]) => {
        const http = scheme.scheme?.$case === "httpAuthSecurityScheme"
          ? scheme.scheme.value
          : undefined;
        return [name, {
          type: "http",
          scheme: (http?.scheme ?? "bearer").toLowerCase(),
          ...(http?.description ? { description: http.description } : {}),
        }];
      }),
    ),
    security: card.securityRequirements.map((r) =>
      Object.fromEntries(Object.entries(r.schemes).map(([name, scopes]) => [name, scopes.list]))
    ),
    supportedInterfaces: structuredClone(card.supportedInterfaces),
  };
}
