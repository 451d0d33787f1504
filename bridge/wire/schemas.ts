/**
 * The wire types of the protocol, defined once as zod schemas: manifests, actions,
 * input schemas, invocations, site maps and error bodies.
 *
 * @module
 */
import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "./errors.ts";
import { FieldName, FORBIDDEN_KEYS, InputSchema, type JsonValue } from "./input_schema.ts";

export { FieldName, FORBIDDEN_KEYS, InputSchema };
export type { JsonValue };

/** Protocol name and version every manifest carries. */
export const PROTOCOL = "AIP";
/** The version of the protocol every manifest and site map carries. */
export const PROTOCOL_VERSION = "0.1";

/** An action id: what an agent passes as `actionId`. */
export const ActionId: z.ZodString = z.string().regex(
  /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/,
  "An action id starts with a letter and has at most 64 letters, digits, '_', '.' or '-'",
);

/**
 * A value of one field of a form or of an action's single input: a string, a (finite) number or
 * a boolean. What the elements write into a control.
 */
export type FieldValue = string | number | boolean;

/** An input value: any JSON value its action's `input_schema` accepts. */
export const InputValue: z.ZodType<JsonValue> = z.json();
/** An input value: any JSON value. */
export type InputValue = JsonValue;

/** One action as a manifest lists it (seed 000). */
export const ManifestAction: z.ZodObject<
  {
    id: z.ZodString;
    description: z.ZodString;
    input_schema: typeof InputSchema;
    input_example: z.ZodOptional<typeof InputValue>;
    consequential: z.ZodBoolean;
  },
  z.core.$strict
> = z.strictObject({
  id: ActionId,
  description: z.string().min(1).max(2000),
  input_schema: InputSchema,
  /**
   * An input that `input_schema` accepts: the declaration's own, or one the bridge made from the
   * schema. Left out when none could be made (a pattern no generated string matches): read
   * `input_schema` then.
   */
  input_example: InputValue.optional(),
  consequential: z.boolean(),
});
/** One action as a manifest lists it: what {@linkcode ManifestAction} parses. */
export type ManifestAction = z.infer<typeof ManifestAction>;

/** An action as the bridge knows it: the manifest fields plus `protected`. */
export const ActionSpec: z.ZodObject<
  {
    id: z.ZodString;
    description: z.ZodString;
    input_schema: typeof InputSchema;
    input_example: z.ZodOptional<typeof InputValue>;
    consequential: z.ZodBoolean;
    protected: z.ZodBoolean;
    read_only: z.ZodDefault<z.ZodBoolean>;
    read_only_by: z.ZodOptional<z.ZodLiteral<"site_owner">>;
  },
  z.core.$strict
> = ManifestAction.extend({
  protected: z.boolean(),
  /** Declared with `read-only` in markup: the action changes nothing (MCP `readOnlyHint`). */
  read_only: z.boolean().default(false),
  /**
   * A page's WebMCP tool that runs without asking the person only on the site owner's word
   * (`<aim-tool read-only>`), not its own `readOnlyHint`: the activity log records each run so.
   */
  read_only_by: z.literal("site_owner").optional(),
});
/** An action as the bridge knows it: what {@linkcode ActionSpec} parses. */
export type ActionSpec = z.infer<typeof ActionSpec>;

/** `state_scope` of a manifest. */
export const StateScope: z.ZodEnum<
  { public_schema_only: "public_schema_only"; session: "session" }
> = z.enum(["public_schema_only", "session"]);

/** The Agent Interface Manifest served at `<page>.json` and `<page>.toon`. */
export const Manifest: z.ZodObject<
  {
    protocol: z.ZodLiteral<"AIP">;
    version: z.ZodString;
    page: z.ZodString;
    sitemap: z.ZodURL;
    state_scope: typeof StateScope;
    browser_connected: z.ZodBoolean;
    invoke_url: z.ZodURL;
    invoke_method: z.ZodLiteral<"POST">;
    invoke_example: z.ZodObject<
      { actionId: z.ZodString; input: z.ZodOptional<typeof InputValue> },
      z.core.$strict
    >;
    mcp_url: z.ZodOptional<z.ZodURL>;
    state_version: z.ZodOptional<z.ZodInt>;
    state: z.ZodRecord<z.ZodString, z.ZodJSONSchema>;
    actions: z.ZodArray<typeof ManifestAction>;
  },
  z.core.$strict
> = z.strictObject({
  protocol: z.literal(PROTOCOL),
  version: z.string(),
  page: z.string().startsWith("/"),
  sitemap: z.url(),
  state_scope: StateScope,
  browser_connected: z.boolean(),
  invoke_url: z.url(),
  invoke_method: z.literal("POST"),
  invoke_example: z.strictObject({ actionId: ActionId, input: InputValue.optional() }),
  /** Session manifests only: the MCP endpoint that serves this session's actions as tools. */
  mcp_url: z.url().optional(),
  /**
   * Session manifests only: increases whenever what this manifest says changes (state,
   * actions, the tab, the identity, the page). Its ETag is `"v<state_version>"`; send it as
   * `If-Match` with an invocation to refuse acting on a stale view (409 `stale_state`).
   */
  state_version: z.int().positive().optional(),
  state: z.record(z.string(), z.json()),
  actions: z.array(ManifestAction),
});
/** A page's manifest: what {@linkcode Manifest} parses. */
export type Manifest = z.infer<typeof Manifest>;

/** One page of the site map. */
export const SitemapPage: z.ZodObject<
  {
    path: z.ZodString;
    title: z.ZodString;
    description: z.ZodString;
    manifest_json: z.ZodURL;
    manifest_toon: z.ZodURL;
    actions: z.ZodArray<z.ZodString>;
  },
  z.core.$strict
> = z.strictObject({
  path: z.string().startsWith("/"),
  title: z.string(),
  description: z.string(),
  manifest_json: z.url(),
  manifest_toon: z.url(),
  actions: z.array(ActionId),
});

/** The site map served at `/sitemap.json` and `/sitemap.toon`. */
export const Sitemap: z.ZodObject<
  {
    protocol: z.ZodLiteral<"AIP">;
    version: z.ZodString;
    invoke_url: z.ZodURL;
    session_url: z.ZodURL;
    mcp_url: z.ZodURL;
    pages: z.ZodArray<typeof SitemapPage>;
  },
  z.core.$strict
> = z.strictObject({
  protocol: z.literal(PROTOCOL),
  version: z.string(),
  invoke_url: z.url(),
  session_url: z.url(),
  /** The MCP endpoint (Streamable HTTP): a session's actions as tools, with its token. */
  mcp_url: z.url(),
  pages: z.array(SitemapPage),
});
/** The site map: what {@linkcode Sitemap} parses. */
export type Sitemap = z.infer<typeof Sitemap>;

/** The body of `POST /__aim/invoke`. */
export const InvokeRequest: z.ZodObject<
  { actionId: z.ZodString; input: z.ZodOptional<z.ZodJSONSchema> },
  z.core.$strict
> = z.strictObject({
  actionId: z.string().min(1).max(200),
  input: z.json().optional(),
});
/** The body of `POST /__aim/invoke`: what {@linkcode InvokeRequest} parses. */
export type InvokeRequest = z.infer<typeof InvokeRequest>;

/** A successful invocation. */
export const InvokeResult: z.ZodObject<
  {
    ok: z.ZodLiteral<true>;
    actionId: z.ZodString;
    result: z.ZodJSONSchema;
    state: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodJSONSchema>>;
    changes: z.ZodOptional<z.ZodJSONSchema>;
    state_version: z.ZodOptional<z.ZodInt>;
    settled: z.ZodOptional<z.ZodBoolean>;
  },
  z.core.$strict
> = z.strictObject({
  ok: z.literal(true),
  actionId: ActionId,
  result: z.json(),
  /** The session's state after the action; left out under `Prefer: return=minimal|changes`. */
  state: z.record(z.string(), z.json()).optional(),
  /**
   * Under `Prefer: return=changes` with `If-Match`: a JSON Merge Patch (RFC 7396) from the
   * session manifest at the `If-Match` version to the one at `state_version`.
   */
  changes: z.json().optional(),
  /** The session's `state_version` once the action was answered (see the manifest's). */
  state_version: z.int().positive().optional(),
  /**
   * True when `state` is the page's after it finished reacting to the action; false when the
   * settle timeout ran out first (the page may still change).
   */
  settled: z.boolean().optional(),
});
/** A successful invocation: what {@linkcode InvokeResult} parses. */
export type InvokeResult = z.infer<typeof InvokeResult>;

/** The body of `POST /__aim/session`. */
export const SessionRequest: z.ZodObject<
  { page: z.ZodString; resume: z.ZodOptional<z.ZodString> },
  z.core.$strict
> = z.strictObject({
  page: z.string().min(1).max(2048).startsWith("/"),
  /**
   * The page's own session to resume after a reload: the tab credential it was given when it
   * opened the session. Sent with its token as `Authorization: Bearer`.
   */
  resume: z.string().max(100).optional(),
});

/** The answer of `POST /__aim/session`. */
export const SessionGrant: z.ZodObject<
  {
    sessionToken: z.ZodString;
    expiresAt: z.ZodISODateTime;
    page: z.ZodString;
    tabCredential: z.ZodOptional<z.ZodString>;
    resumed: z.ZodBoolean;
  },
  z.core.$strict
> = z.strictObject({
  sessionToken: z.string(),
  expiresAt: z.iso.datetime(),
  page: z.string(),
  /**
   * Only when a new session was opened: the tab credential, for the page that asked and
   * nobody else. It opens the tab channel; never show it or give it to an agent.
   */
  tabCredential: z.string().optional(),
  /** True when the page's own session was resumed. */
  resumed: z.boolean(),
});
/** The answer of `POST /__aim/session`: what {@linkcode SessionGrant} parses. */
export type SessionGrant = z.infer<typeof SessionGrant>;

/** Every error body. */
export const ErrorBody: z.ZodObject<
  { error: z.ZodEnum<z.core.util.ToEnum<ErrorCode>>; message: z.ZodString },
  z.core.$loose
> = z.looseObject({
  error: z.enum(ERROR_CODES),
  message: z.string(),
});

/** The JSON Schemas published at `/__aim/schema.json`. */
export function publishedSchemas(): Record<string, unknown> {
  const schemas = {
    Manifest,
    ManifestAction,
    InputSchema,
    Sitemap,
    InvokeRequest,
    InvokeResult,
    SessionGrant,
    ErrorBody,
  };
  // Each schema's own $defs (zod names them __schema0, …) move up to the document's $defs,
  // renamed per schema, so that every "#/$defs/…" reference resolves from the root.
  const defs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const json = z.toJSONSchema(schema, { unrepresentable: "any" }) as Record<string, unknown>;
    const inner = (json.$defs ?? {}) as Record<string, unknown>;
    delete json.$schema;
    delete json.$defs;
    const rename = (value: unknown): unknown =>
      JSON.parse(
        JSON.stringify(value).replace(/"#\/\$defs\/([^"]+)"/g, `"#/$defs/${name}_$1"`),
      );
    defs[name] = rename(json);
    for (const [key, def] of Object.entries(inner)) defs[`${name}_${key}`] = rename(def);
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Agent Interface Manifest",
    $ref: "#/$defs/Manifest",
    $defs: defs,
  };
}
