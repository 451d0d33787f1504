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
  type RequestLogEntry,
  requireSession,
  type RequireSessionOptions,
  TAB_KEY_HEADER,
} from "./http/app.ts";
export { readJson } from "./http/request.ts";
export { MCP_PATH, McpEndpoint, type McpEndpointOptions } from "./mcp/routes.ts";
export { A2A_PATH, AGENT_CARD_PATH } from "./a2a/routes.ts";
export { READ_TOOL } from "./mcp/tools.ts";
export { type ProxyOptions, UpstreamProxy } from "./upstream/proxy.ts";
export { AimCredentials, type AimCredentialsOptions } from "./http/credentials.ts";
export { UpstreamCatalog, type UpstreamCatalogOptions } from "./upstream/catalog.ts";
export { BridgeMetrics, type BridgeMetricsOptions } from "./metrics/metrics.ts";
export {
  isWildcard,
  METRICS_PATH,
  MetricsListenError,
  type MetricsListenOptions,
  parseMetricsAddress,
} from "./metrics/endpoint.ts";
export {
  BridgeCore,
  type BridgeCoreOptions,
  DEFAULT_LIMITS,
  type InvocationRecord,
  type Limits,
} from "./core/bridge.ts";
export {
  AttemptLimiter,
  createUserStore,
  hashPassword,
  rejectUnknownUser,
  type UserRecord,
  type UserStore,
  verifyPassword,
} from "./core/login.ts";
export type { ServerAction, ServerActionContext } from "./core/server_actions.ts";
export type { Identity } from "./core/sessions.ts";
export type { Session } from "./core/session.ts";
export { AimError, type AimErrorOptions } from "./errors/aim_error.ts";
export { ERROR_CODES, ERROR_STATUS, type ErrorCode, type ErrorDetails } from "./wire/errors.ts";
export type { SessionShare } from "./share/share.ts";
export {
  type AuditEntry,
  AuditLog,
  type AuditLogOptions,
  DEFAULT_AUDIT_RETENTION_DAYS,
} from "./audit/log.ts";
export * as schemas from "./wire/schemas.ts";
export * as channel from "./wire/channel.ts";
