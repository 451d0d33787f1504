/**
 * The public API of the bridge: create one over a site folder, serve it, and embed
 * it in an app with its own user store and server actions. Re-exports only: each part lives in
 * its own module.
 *
 * @example
 * ```ts
 * import { serve } from "@aim/bridge";
 *
 * await using served = serve({ root: "site", port: 8000 });
 * console.log(`aim at ${served.url}`);
 * ```
 *
 * @module
 */

export { type Bridge, type BridgeOptions, createBridge } from "./serve/bridge.ts";
export { serve, type ServedBridge, type ServeOptions } from "./serve/serve.ts";
export {
  type AppEnv,
  type AppRoutes,
  type RequestLogEntry,
  requireSession,
  type RequireSessionOptions,
  TAB_KEY_HEADER,
} from "./http/app.ts";
export type { ChangeBudget, ComputeRate } from "./http/session_manifests.ts";
export type { RequestFrom } from "./http/front_door.ts";
export { readJson } from "./http/request.ts";
export { MCP_PATH, McpEndpoint, type McpEndpointOptions } from "./mcp/routes.ts";
export { A2A_PATH, AGENT_CARD_PATH } from "./a2a/routes.ts";
export { READ_TOOL } from "./mcp/tools.ts";
export { type ProxyOptions, UpstreamProxy } from "./upstream/proxy.ts";
export { AimCredentials, type AimCredentialsOptions } from "./http/credentials.ts";
export type { UpstreamCatalogOptions } from "./upstream/catalog.ts";
export type { RunStoreOptions } from "./acp/runs.ts";
export type { A2ATasksOptions } from "./a2a/tasks.ts";
export type { RunLimits, RunRegistryOptions } from "./runs/registry.ts";
export { BridgeMetrics, type BridgeMetricsOptions } from "./metrics/metrics.ts";
export {
  isWildcard,
  METRICS_PATH,
  type MetricsFetchOptions,
  MetricsListenError,
  type MetricsListenOptions,
  parseMetricsAddress,
} from "./metrics/endpoint.ts";
export {
  BridgeCore,
  DEFAULT_LIMITS,
  type InvocationRecord,
  type InvocationWatch,
  type InvokeProtocol,
  type Limits,
  type OpenedSession,
  type OpenSessionOptions,
  type WatchInvocation,
} from "./core/bridge.ts";
export type { BridgeCoreOptions } from "./core/core_options.ts";
export type { StreamLimits } from "./core/streams.ts";
export type { Rate } from "./core/channel_budget.ts";
export {
  AttemptLimiter,
  type AttemptLimiterOptions,
  createUserStore,
  hashPassword,
  rejectUnknownUser,
  type ScryptOptions,
  type UserRecord,
  type UserStore,
  verifyPassword,
} from "./core/login.ts";
export type {
  ActionAvailability,
  ServerAction,
  ServerActionContext,
} from "./core/server_actions.ts";
export type { Identity } from "./core/sessions.ts";
export type { Session } from "./core/session.ts";
export { AimError, type AimErrorOptions } from "./errors/aim_error.ts";
export {
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorDetails,
  type ErrorStatus,
} from "./wire/errors.ts";
export type { InputSchema, InputValue, JsonValue } from "./wire/schemas.ts";
export { JSON_TYPES, type JsonTypeName } from "./wire/input_schema.ts";
export type { EndReason } from "./wire/channel.ts";
export {
  type AuditEntry,
  AuditLog,
  type AuditLogOptions,
  DEFAULT_AUDIT_RETENTION_DAYS,
} from "./audit/log.ts";
export * as schemas from "./wire/schemas.ts";
export * as channel from "./wire/channel.ts";
