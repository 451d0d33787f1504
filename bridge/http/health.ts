/**
 * `GET /__aim/health`: whether the bridge listens, the streams it holds against their
 * bounds, and the files it holds against its file limit, for monitors and supervisors.
 *
 * @module
 */
import type { BridgeCore } from "../core/bridge.ts";
import { fileLimit, openFiles } from "../utils/files.ts";

/** How long the file counts are kept: counting them reads a directory as long as they are many. */
const FILES_TTL_MS = 1000;

let files: { at: number; limit: number | null; open: number | null } | undefined;

/** The body of `GET /__aim/health`: `extra` (the server's own fields) and the bridge's counts. */
export function health(
  core: BridgeCore,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const now = Date.now();
  if (!files || now - files.at > FILES_TTL_MS) {
    const soft = fileLimit()?.soft;
    files = {
      at: now,
      limit: soft === undefined || !Number.isFinite(soft) ? null : soft,
      open: openFiles() ?? null,
    };
  }
  return {
    status: "ok",
    ...extra,
    streams: {
      open: core.streams.open,
      max: core.streams.limits.total,
      maxPerClient: core.streams.limits.perClient,
    },
    files: { open: files.open, limit: files.limit },
  };
}
