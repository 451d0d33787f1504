import { inputProblem } from "../bridge/input/validate.ts";
import { parseActionSpec } from "../bridge/input/action_spec.ts";
const spec = (s: unknown) => parseActionSpec({ id: "a", description: "d", input_schema: s, consequential: false, protected: false }).input_schema;
const s = spec({ type: "object", additionalProperties: { type: "integer" } });
for (const key of ["a/b", "a~b", "a b", "%", "%25", "100%", "é", "a%2Fb", "~1", "\u0000"]) {
  try { console.log(JSON.stringify(key), "=>", inputProblem(s, { [key]: "1" })); } catch (e) { console.log(JSON.stringify(key), "THROWS", String(e)); }
}
const t = spec({ type: "object", additionalProperties: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } });
for (const key of ["%", "a b"]) {
  try { console.log(JSON.stringify(key), "=>", inputProblem(t, { [key]: {} })); } catch (e) { console.log(JSON.stringify(key), "THROWS", String(e)); }
}
