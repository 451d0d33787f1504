/**
 * @module Parsing untrusted JSON: a `__proto__` key would vanish into an object's prototype
 * when a validator copies the object, so it is refused outright.
 */

/** Why a text was refused. */
export type JsonProblem = "syntax" | "proto";

/** The parsed value, or the problem with the text. */
export function parseUntrustedJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; problem: JsonProblem } {
  let proto = false;
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v) => {
      if (key === "__proto__") proto = true;
      return v;
    });
  } catch {
    return { ok: false, problem: "syntax" };
  }
  return proto ? { ok: false, problem: "proto" } : { ok: true, value };
}
