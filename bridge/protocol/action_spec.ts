/**
 * @module Checking a declared action (from HTML, a tab or an app) against the wire schema,
 * including that its `input_example` is valid input.
 */
import type { z } from "zod";
import { ActionSpec as ActionSpecSchema, type ManifestAction } from "./schemas.ts";
import { inputValidator } from "./input.ts";
import { MarkupError } from "./markup.ts";

export type { ActionSpec } from "./schemas.ts";
type ActionSpec = z.infer<typeof ActionSpecSchema>;

/**
 * The validated action of a declaration.
 *
 * @throws {MarkupError} naming what is wrong.
 */
export function parseActionSpec(declaration: unknown): ActionSpec {
  const id = typeof declaration === "object" && declaration !== null
    ? String((declaration as { id?: unknown }).id ?? "")
    : "";
  const parsed = ActionSpecSchema.safeParse(declaration);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
    throw new MarkupError(`action "${id}" is not valid: ${where}${issue.message}`);
  }
  const spec = parsed.data;
  const example = inputValidator(spec.input_schema).safeParse(spec.input_example);
  if (!example.success) {
    throw new MarkupError(
      `action "${spec.id}": input_example does not match input_schema (${
        example.error.issues[0].message
      })`,
    );
  }
  return spec;
}

/** The manifest form of an action: the seed's five fields. */
export function toManifestAction(spec: ActionSpec): ManifestAction {
  return {
    id: spec.id,
    description: spec.description,
    input_schema: spec.input_schema,
    input_example: spec.input_example,
    consequential: spec.consequential,
  };
}
