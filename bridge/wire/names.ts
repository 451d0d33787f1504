/**
 * What the browser bundle and the bridge share to agree on names: the tab channel's
 * subprotocols and close codes, and where a page's manifest is
 * (the names no key or action may take are in bridge/wire/object_names.ts). No imports, so
 * that the elements carry no validator.
 *
 * @module
 */

/** The manifest path of a page: `/` → `/index.json`. */
export function manifestPath(page: string, format: "json" | "toon" = "json"): string {
  // A page whose identity holds query parameters (docs/upstream.md): they follow the extension.
  const q = page.indexOf("?");
  const path = q < 0 ? page : page.slice(0, q);
  return `${path === "/" ? "/index" : path}.${format}${q < 0 ? "" : page.slice(q)}`;
}

/** The subprotocol of the channel; the tab credential travels beside it. */
export const TAB_PROTOCOL = "aim-tab-v1";

/**
 * A browser's WebSocket cannot send headers, so the tab credential travels as a second
 * offered subprotocol, `aim-credential.<credential>`; the bridge answers with
 * {@linkcode TAB_PROTOCOL} only. Cookies are never read there: another origin can plant those.
 */
export const CREDENTIAL_PROTOCOL_PREFIX = "aim-credential.";

/** Close codes of the channel. */
export const CloseCode = {
  /** The bridge shuts down. */
  GoingAway: 1001,
  /** A message that does not parse or is not a known message. */
  Malformed: 1008,
  /** A message over its size limit. */
  TooLarge: 1009,
  /**
   * Messages past the budget of one session's tabs (a policy violation, as 1008 says): more of a
   * kind, or more bytes, a second than a page sends (docs/channel.md, "Limits").
   */
  TooManyMessages: 1008,
  /** The session ended: disconnect, expiry, or a replaced session. */
  SessionEnded: 4001,
  /** The lease ran out without a heartbeat; another tab may now own the session. */
  LeaseExpired: 4002,
} as const;
