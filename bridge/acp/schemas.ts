/**
 * ACP's wire types as zod schemas, from its OpenAPI 0.2.0 and reference server: defined
 * once, used by the routes, the run store and the tests.
 *
 * @module
 */
import { z } from "zod";

/** An RFC 1123 DNS label: what ACP requires of an agent's name. */
export const AGENT_NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** An agent's name: an RFC 1123 label of 1 to 63 characters. */
export const AgentName: z.ZodString = z.string().min(1).max(63).regex(AGENT_NAME_PATTERN);
export type AgentName = z.infer<typeof AgentName>;

/** A UTC timestamp, ISO 8601 with `Z` (what the reference SDKs parse). */
export const Timestamp: z.ZodISODateTime = z.iso.datetime();

/** Run and session ids are UUIDs. */
export const RunId: z.ZodUUID = z.uuid();
export const SessionId: z.ZodUUID = z.uuid();

/** ACP's error codes: only these three exist. */
export const ErrorCode: z.ZodEnum<
  { server_error: "server_error"; invalid_input: "invalid_input"; not_found: "not_found" }
> = z.enum(["server_error", "invalid_input", "not_found"]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** ACP's error body, and a failed run's `error`; `data` carries AIM's own code and details. */
export const AcpError: z.ZodObject<
  {
    code: typeof ErrorCode;
    message: z.ZodString;
    data: z.ZodOptional<z.ZodNullable<z.ZodRecord<z.ZodString, z.ZodUnknown>>>;
  },
  z.core.$strip
> = z.object({
  code: ErrorCode,
  message: z.string(),
  data: z.record(z.string(), z.unknown()).nullish(),
});
export type AcpError = z.infer<typeof AcpError>;

/** One capability of an agent: here, one action of the page. */
export const Capability: z.ZodObject<
  { name: z.ZodString; description: z.ZodString },
  z.core.$strip
> = z.object({ name: z.string(), description: z.string() });

/** A link of an agent manifest. */
export const Link: z.ZodObject<
  {
    type: z.ZodEnum<
      {
        "source-code": "source-code";
        "container-image": "container-image";
        homepage: "homepage";
        documentation: "documentation";
      }
    >;
    url: z.ZodURL;
  },
  z.core.$strip
> = z.object({
  type: z.enum(["source-code", "container-image", "homepage", "documentation"]),
  url: z.url(),
});

/** Who wrote an agent. */
export const Person: z.ZodObject<
  {
    name: z.ZodString;
    email: z.ZodOptional<z.ZodNullable<z.ZodString>>;
    url: z.ZodOptional<z.ZodNullable<z.ZodURL>>;
  },
  z.core.$strip
> = z.object({
  name: z.string(),
  email: z.string().nullish(),
  url: z.url().nullish(),
});

/** An agent's static metadata; unknown keys are allowed, as the reference allows them. */
export const Metadata: z.ZodObject<
  {
    annotations: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
    documentation: z.ZodOptional<z.ZodString>;
    license: z.ZodOptional<z.ZodString>;
    programming_language: z.ZodOptional<z.ZodString>;
    natural_languages: z.ZodOptional<z.ZodArray<z.ZodString>>;
    framework: z.ZodOptional<z.ZodString>;
    capabilities: z.ZodOptional<z.ZodArray<typeof Capability>>;
    domains: z.ZodOptional<z.ZodArray<z.ZodString>>;
    tags: z.ZodOptional<z.ZodArray<z.ZodString>>;
    created_at: z.ZodOptional<z.ZodISODateTime>;
    updated_at: z.ZodOptional<z.ZodISODateTime>;
    author: z.ZodOptional<typeof Person>;
    contributors: z.ZodOptional<z.ZodArray<typeof Person>>;
    links: z.ZodOptional<z.ZodArray<typeof Link>>;
    dependencies: z.ZodOptional<
      z.ZodArray<
        z.ZodObject<
          { type: z.ZodEnum<{ agent: "agent"; tool: "tool"; model: "model" }>; name: z.ZodString },
          z.core.$strip
        >
      >
    >;
    recommended_models: z.ZodOptional<z.ZodArray<z.ZodString>>;
  },
  z.core.$loose
> = z.looseObject({
  annotations: z.record(z.string(), z.unknown()).optional(),
  documentation: z.string().optional(),
  license: z.string().optional(),
  programming_language: z.string().optional(),
  natural_languages: z.array(z.string()).optional(),
  framework: z.string().optional(),
  capabilities: z.array(Capability).optional(),
  domains: z.array(z.string()).optional(),
  tags: z.array(z.string()).optional(),
  created_at: Timestamp.optional(),
  updated_at: Timestamp.optional(),
  author: Person.optional(),
  contributors: z.array(Person).optional(),
  links: z.array(Link).optional(),
  dependencies: z.array(z.object({
    type: z.enum(["agent", "tool", "model"]),
    name: z.string(),
  })).optional(),
  recommended_models: z.array(z.string()).optional(),
});
export type Metadata = z.infer<typeof Metadata>;

/** An agent's runtime figures, measured by the bridge. */
export const Status: z.ZodObject<
  {
    avg_run_tokens: z.ZodOptional<z.ZodNumber>;
    avg_run_time_seconds: z.ZodOptional<z.ZodNumber>;
    success_rate: z.ZodOptional<z.ZodNumber>;
  },
  z.core.$strip
> = z.object({
  avg_run_tokens: z.number().optional(),
  avg_run_time_seconds: z.number().min(0).optional(),
  success_rate: z.number().min(0).max(100).optional(),
});
export type Status = z.infer<typeof Status>;

/** ACP's Agent Manifest (seed 002). */
export const AgentManifest: z.ZodObject<
  {
    name: z.ZodString;
    description: z.ZodString;
    input_content_types: z.ZodArray<z.ZodString>;
    output_content_types: z.ZodArray<z.ZodString>;
    metadata: z.ZodOptional<typeof Metadata>;
    status: z.ZodOptional<typeof Status>;
  },
  z.core.$strip
> = z.object({
  name: AgentName,
  description: z.string().min(1),
  input_content_types: z.array(z.string()).min(1),
  output_content_types: z.array(z.string()).min(1),
  metadata: Metadata.optional(),
  status: Status.optional(),
});
export type AgentManifest = z.infer<typeof AgentManifest>;

/** `GET /agents`. */
export const AgentsListResponse: z.ZodObject<
  { agents: z.ZodArray<typeof AgentManifest> },
  z.core.$strip
> = z.object({ agents: z.array(AgentManifest) });

/** `limit` and `offset` of `GET /agents` (the spec's bounds). */
export const AgentsListQuery: z.ZodObject<
  {
    limit: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
    offset: z.ZodOptional<z.ZodCoercedNumber<unknown>>;
  },
  z.core.$strip
> = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

/** One part of a message: inline `content` or a `content_url`, never both. */
export const MessagePart: z.ZodObject<
  {
    name: z.ZodOptional<z.ZodNullable<z.ZodString>>;
    content_type: z.ZodOptional<z.ZodNullable<z.ZodString>>;
    content: z.ZodOptional<z.ZodNullable<z.ZodString>>;
    content_encoding: z.ZodOptional<z.ZodNullable<z.ZodEnum<{ plain: "plain"; base64: "base64" }>>>;
    content_url: z.ZodOptional<z.ZodNullable<z.ZodURL>>;
  },
  z.core.$loose
> = z.looseObject({
  name: z.string().nullish(),
  content_type: z.string().nullish(),
  content: z.string().nullish(),
  content_encoding: z.enum(["plain", "base64"]).nullish(),
  content_url: z.url().nullish(),
}).refine(
  (part) =>
    part.content === null || part.content === undefined || part.content_url === null ||
    part.content_url === undefined,
  "Only one of content or content_url can be provided",
);
export type MessagePart = z.infer<typeof MessagePart>;

/** `user`, or `agent/<name>` for what an agent says. */
export const Role: z.ZodString = z.string().regex(/^(user|agent(\/[a-zA-Z0-9_-]+)?)$/);

/** A message: its role and its parts. */
export const Message: z.ZodObject<
  {
    role: z.ZodDefault<z.ZodString>;
    parts: z.ZodArray<typeof MessagePart>;
    created_at: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
    completed_at: z.ZodOptional<z.ZodNullable<z.ZodISODateTime>>;
  },
  z.core.$strip
> = z.object({
  role: Role.default("user"),
  parts: z.array(MessagePart),
  created_at: Timestamp.nullish(),
  completed_at: Timestamp.nullish(),
});
export type Message = z.infer<typeof Message>;

/** The reference's only kind of await: a message saying what is awaited. */
export const AwaitRequest: z.ZodObject<
  { type: z.ZodLiteral<"message">; message: typeof Message },
  z.core.$strip
> = z.object({ type: z.literal("message"), message: Message });
export type AwaitRequest = z.infer<typeof AwaitRequest>;

/** What a client sends to resume an awaiting run. */
export const AwaitResume: z.ZodObject<
  { type: z.ZodLiteral<"message">; message: typeof Message },
  z.core.$strip
> = z.object({ type: z.literal("message"), message: Message });

/** The states of a run. */
export const RunStatus: z.ZodEnum<
  {
    created: "created";
    "in-progress": "in-progress";
    awaiting: "awaiting";
    cancelling: "cancelling";
    cancelled: "cancelled";
    completed: "completed";
    failed: "failed";
  }
> = z.enum([
  "created",
  "in-progress",
  "awaiting",
  "cancelling",
  "cancelled",
  "completed",
  "failed",
]);
export type RunStatus = z.infer<typeof RunStatus>;

/** States a run never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set([
  "completed",
  "failed",
  "cancelled",
]);

/** How a run is requested: wait for it, start it, or stream its events. */
export const RunMode: z.ZodEnum<{ sync: "sync"; async: "async"; stream: "stream" }> = z.enum([
  "sync",
  "async",
  "stream",
]);
export type RunMode = z.infer<typeof RunMode>;

/** A run as ACP shows it; every field present, `null` where unset, as the reference does. */
export const Run: z.ZodObject<
  {
    run_id: z.ZodUUID;
    agent_name: z.ZodString;
    session_id: z.ZodNullable<z.ZodUUID>;
    status: typeof RunStatus;
    await_request: z.ZodNullable<typeof AwaitRequest>;
    output: z.ZodArray<typeof Message>;
    error: z.ZodNullable<typeof AcpError>;
    created_at: z.ZodISODateTime;
    finished_at: z.ZodNullable<z.ZodISODateTime>;
  },
  z.core.$strip
> = z.object({
  run_id: RunId,
  agent_name: AgentName,
  session_id: SessionId.nullable(),
  status: RunStatus,
  await_request: AwaitRequest.nullable(),
  output: z.array(Message),
  error: AcpError.nullable(),
  created_at: Timestamp,
  finished_at: Timestamp.nullable(),
});
export type Run = z.infer<typeof Run>;

/** `POST /runs`. */
export const RunCreateRequest: z.ZodObject<
  {
    agent_name: z.ZodString;
    session_id: z.ZodOptional<z.ZodNullable<z.ZodUUID>>;
    input: z.ZodArray<typeof Message>;
    mode: z.ZodDefault<typeof RunMode>;
  },
  z.core.$strip
> = z.object({
  agent_name: z.string().min(1).max(200),
  session_id: SessionId.nullish(),
  input: z.array(Message),
  mode: RunMode.default("sync"),
});
export type RunCreateRequest = z.infer<typeof RunCreateRequest>;

/** `POST /runs/{run_id}`: resuming an awaiting run. */
export const RunResumeRequest: z.ZodObject<
  {
    run_id: z.ZodOptional<z.ZodUUID>;
    await_resume: typeof AwaitResume;
    mode: z.ZodDefault<typeof RunMode>;
  },
  z.core.$strip
> = z.object({
  run_id: RunId.optional(),
  await_resume: AwaitResume,
  mode: RunMode.default("sync"),
});

/** The schema of a run's event of `type`: the run as it stands then. */
export type RunEventSchema<T extends string> = z.ZodObject<
  { type: z.ZodLiteral<T>; run: typeof Run },
  z.core.$strip
>;

function runEvent<T extends string>(type: T): RunEventSchema<T> {
  return z.object({ type: z.literal(type), run: Run });
}

/** One event of a run, in the reference's shapes. */
export const Event: z.ZodDiscriminatedUnion<
  [
    RunEventSchema<"run.created">,
    RunEventSchema<"run.in-progress">,
    RunEventSchema<"run.awaiting">,
    RunEventSchema<"run.completed">,
    RunEventSchema<"run.failed">,
    RunEventSchema<"run.cancelled">,
    z.ZodObject<{ type: z.ZodLiteral<"message.created">; message: typeof Message }, z.core.$strip>,
    z.ZodObject<{ type: z.ZodLiteral<"message.part">; part: typeof MessagePart }, z.core.$strip>,
    z.ZodObject<
      { type: z.ZodLiteral<"message.completed">; message: typeof Message },
      z.core.$strip
    >,
    z.ZodObject<
      { type: z.ZodLiteral<"generic">; generic: z.ZodRecord<z.ZodString, z.ZodUnknown> },
      z.core.$strip
    >,
    z.ZodObject<{ type: z.ZodLiteral<"error">; error: typeof AcpError }, z.core.$strip>,
  ],
  "type"
> = z.discriminatedUnion("type", [
  runEvent("run.created"),
  runEvent("run.in-progress"),
  runEvent("run.awaiting"),
  runEvent("run.completed"),
  runEvent("run.failed"),
  runEvent("run.cancelled"),
  z.object({ type: z.literal("message.created"), message: Message }),
  z.object({ type: z.literal("message.part"), part: MessagePart }),
  z.object({ type: z.literal("message.completed"), message: Message }),
  z.object({ type: z.literal("generic"), generic: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal("error"), error: AcpError }),
]);
export type Event = z.infer<typeof Event>;

/** Events after which a stream closes: the run ended, or waits for someone. */
export const CLOSING_EVENTS: ReadonlySet<Event["type"]> = new Set([
  "run.awaiting",
  "run.completed",
  "run.failed",
  "run.cancelled",
]);

/** `GET /runs/{run_id}/events`. */
export const RunEventsListResponse: z.ZodObject<
  { events: z.ZodArray<typeof Event> },
  z.core.$strip
> = z.object({ events: z.array(Event) });

/**
 * `GET /sessions/{session_id}`: the reference's Session (`history` holds URLs of stored
 * messages, which this bridge does not keep) plus `runs`, the ids of the session's runs.
 */
export const AcpSession: z.ZodObject<
  {
    id: z.ZodUUID;
    history: z.ZodArray<z.ZodURL>;
    state: z.ZodNullable<z.ZodURL>;
    runs: z.ZodArray<z.ZodUUID>;
  },
  z.core.$strip
> = z.object({
  id: SessionId,
  history: z.array(z.url()),
  state: z.url().nullable(),
  runs: z.array(RunId),
});
export type AcpSession = z.infer<typeof AcpSession>;

/** `GET /ping`. */
export const PingResponse: z.ZodObject<Record<never, never>, z.core.$strip> = z.object({});
