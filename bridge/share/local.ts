/**
 * LocalShare: the {@linkcode SessionShare} of a bridge that runs alone. Its own memory
 * holds every session, so there is nothing to read or write elsewhere and nobody to tell.
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import type { SessionShare } from "./share.ts";

function unshared(): never {
  throw new AimError("server_error", "A bridge that runs alone shares nothing.");
}

/** One process, one bridge: the default. */
export class LocalShare implements SessionShare {
  readonly instance = "local";
  readonly shared = false;
  ready(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  // Never called while `shared` is false: the core keeps these in its own structures.
  create = unshared;
  load = unshared;
  alias = unshared;
  update = unshared;
  touch = unshared;
  inUse = unshared;
  remove = unshared;
  acquire = unshared;
  renew = unshared;
  release = unshared;
  alive = unshared;
  forward = unshared;
  claim = unshared;
  outcome = unshared;
  settle = unshared;
  attempts = unshared;
  fail = unshared;
  claimAttempts = unshared;
  forgive = unshared;
  reset = unshared;
  record = unshared;
  put = unshared;
  get = unshared;
  del = unshared;
  tell = unshared;
  listen(): void {}
  activity = unshared;
  signal(): void {}
  watch(): () => void {
    return () => {};
  }
  serve(): void {}
}
