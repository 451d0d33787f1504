/**
 * Test helper of the tests of `UpstreamProxy` (tests/upstream/forward*_test.ts): where a request
 * comes from, an app that answers with what it received, the failures a proxy told, and an
 * AimError's code and status.
 *
 * @module
 */
import assert from "node:assert/strict";
import { AimError } from "../../bridge/errors/aim_error.ts";
import type { ProxyOptions } from "../../bridge/upstream/proxy.ts";
import { startApp } from "./upstream.ts";

/** Where a request comes from: aim's origin, the client, the peer. */
export const FROM: { origin: string; client: string; peer: string } = {
  origin: "http://aim.example",
  client: "192.0.2.1",
  peer: "192.0.2.9",
};

/** An app that answers with what it received. */
export function echoApp(): ReturnType<typeof startApp> {
  return startApp(async (request) => {
    const url = new URL(request.url);
    return Response.json({
      path: url.pathname + url.search,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body: request.body ? await request.text() : "",
    });
  });
}

/** The failures a proxy told, in order. */
export function failures(): { told: string[]; options: ProxyOptions } {
  const told: string[] = [];
  return { told, options: { onFailure: (code) => told.push(code) } };
}

/** Asserts that `promise` rejects with the AimError `code` and `status`. */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: string,
  status: number,
): Promise<void> {
  await assert.rejects(
    promise,
    (error) => error instanceof AimError && error.code === code && error.status === status,
  );
}
