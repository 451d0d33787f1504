/**
 * Reading the action call an ACP run's input message holds: its action id and input, from a
 * JSON part or text.
 *
 * @module
 */
import { jsonProblemMessage, parseUntrustedJson } from "../wire/json.ts";
import { AcpHttpError } from "./errors.ts";
import type { Message, MessagePart } from "./schemas.ts";

function mediaType(part: MessagePart): string {
  // `split` always yields at least one item.
  return (part.content_type ?? "text/plain").split(";")[0]!.trim().toLowerCase();
}

export function invalid(message: string): AcpHttpError {
  return new AcpHttpError("bad_request", message);
}

export const HOW =
  'Send the action as the last message\'s application/json part {"actionId": "<id>", "input": <input>}, or as a text/plain part "<id> <input>".';

function partText(part: MessagePart): string {
  if (part.content_url !== null && part.content_url !== undefined) {
    throw invalid(`The bridge does not fetch content_url; send the content inline. ${HOW}`);
  }
  if (part.content === null || part.content === undefined) {
    throw invalid(`The ${mediaType(part)} part has no content. ${HOW}`);
  }
  if (part.content_encoding !== "base64") return part.content;
  try {
    const bytes = Uint8Array.from(atob(part.content), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid(`The ${mediaType(part)} part is not valid base64 of UTF-8 text.`);
  }
}

/**
 * The invocation a message asks for: its first `application/json` part taken as
 * `{"actionId", "input"}` (checked by the core like a `/__aim/invoke` body), else its first
 * `text/plain` part as an action id and the rest as the input. The input of an action that
 * takes more than a string (an object, a list, a number) may be given as JSON after the id.
 */
export function readCall(message: Message, takesJson: (id: string) => boolean): unknown {
  const json = message.parts.find((p) => mediaType(p) === "application/json");
  if (json) {
    const parsed = parseUntrustedJson(partText(json));
    if (!parsed.ok) {
      const why = jsonProblemMessage(parsed.problem, "The application/json part");
      throw invalid(parsed.problem === "syntax" ? `${why} ${HOW}` : why);
    }
    return parsed.value;
  }
  const text = message.parts.find((p) => mediaType(p) === "text/plain");
  if (!text) {
    throw invalid(`The last message has no application/json or text/plain part. ${HOW}`);
  }
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(partText(text).trim());
  if (!match) throw invalid(`The text/plain part is empty. ${HOW}`);
  // Group 1 always takes part in a match; group 2 may not.
  const actionId = match[1]!;
  const rest = match[2];
  if (rest === undefined) return { actionId };
  if (takesJson(actionId)) {
    const parsed = parseUntrustedJson(rest);
    if (parsed.ok) return { actionId, input: parsed.value };
  }
  return { actionId, input: rest };
}
