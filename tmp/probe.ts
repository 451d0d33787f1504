import { inputProblem } from "../bridge/input/validate.ts";
import { parseActionSpec } from "../bridge/input/action_spec.ts";
import { compilePattern } from "../bridge/input/pattern_cache.ts";
const spec = (s: unknown) => parseActionSpec({ id: "a", description: "d", input_schema: s, consequential: false, protected: false }).input_schema;
const rows: [unknown, unknown][] = [
  [{ type: "string", enum: Array.from({length: 25}, (_, i) => "v" + i) }, "x"],
  [{ type: "string", enum: Array.from({length: 20}, (_, i) => "v" + i) }, "x"],
  [{ const: "x".repeat(300) }, "y"],
  [{ type: "string", minLength: 1 }, ""],
  [{ type: "string", minLength: 2 }, "a"],
  [{ type: "string", maxLength: 1 }, "ab"],
  [{ type: "number", minimum: 1 }, 0],
  [{ type: "number", maximum: 1 }, 2],
  [{ type: "number", exclusiveMinimum: 1 }, 1],
  [{ type: "number", exclusiveMaximum: 1 }, 1],
  [{ type: "number", multipleOf: 0.5 }, 0.3],
  [{ type: "array", minItems: 1 }, []],
  [{ type: "array", minItems: 2 }, [1]],
  [{ type: "array", maxItems: 1 }, [1, 2]],
  [{ type: "array", maxItems: 2 }, [1, 2, 3]],
  [{ type: "array", uniqueItems: true }, [1, 2, { a: 1, b: 2 }, { b: 2, a: 1 }]],
  [{ type: "object", minProperties: 1 }, {}],
  [{ type: "object", minProperties: 2 }, { a: 1 }],
  [{ type: "object", maxProperties: 1 }, { a: 1, b: 2 }],
  [{ anyOf: [{ type: "string" }, { type: "integer" }] }, true],
  [{ oneOf: [{ type: "integer" }, { type: "number" }] }, 1],
  [{ anyOf: Array.from({length: 10}, (_, i) => ({ const: i })) }, "x"],
  [{ anyOf: [{ enum: ["a", "b"] }, { type: "object", properties: { q: { type: "string" } } }, { type: "object", properties: { n: { type: "integer" } } }] }, 5],
  [{ type: "string", format: "email" }, "x"],
  [{ type: "string", format: "uri" }, "x"],
  [{ type: "object", properties: { a: { type: "array", items: { type: "object", properties: { b: { type: "integer" } } } } } }, { a: [{ b: 1 }, { b: "2" }] }],
  [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, {}],
  [{ type: "object", properties: { o: { type: "object", properties: { a: {} }, required: ["a"] } } }, { o: {} }],
  [{ type: "object", properties: { a: {} } }, { b: 1 }],
  [{ type: "object", properties: { "a/b~c": {} } }, { "a/b~c": 1, z: 1 }],
  [{ type: "object", properties: { o: { type: "object", properties: { x: { type: "string" } } } } }, { o: { x: 1 } }],
  [{ type: "object", additionalProperties: { type: "integer" } }, { x: "1" }],
  [{ type: "string", pattern: "^a$" }, "b"],
  [{ type: ["string", "null"] }, 1],
  [{ type: ["string", "null"] }, { a: "x" }],
  [{ type: "null" }, { a: null }],
  [{ type: ["integer", "boolean"] }, "true"],
  [{ type: ["integer", "boolean"] }, "3"],
  [{ type: ["integer", "boolean"] }, "3.5"],
  [{ type: "number" }, NaN],
  [{ type: "string" }, NaN],
  [{}, undefined],
  [{ type: "string" }, undefined],
  [{ type: "object", properties: { a: {} } }, { a: undefined }],
  [{ type: "object", properties: { a: {} } }, { a: () => 1 }],
  [{ type: "array" }, [1, 10n]],
  [{ not: 1 }, 1],
];
for (const [s, v] of rows) {
  try { console.log(JSON.stringify(s).slice(0, 90), "|", String(v).slice(0,30), "=>", inputProblem(spec(s), v)); } catch (e) { console.log("ERR", JSON.stringify(s), String(e)); }
}
const p = compilePattern("^a*"); console.log(p.unitCost, p.maxInput);
const e = compilePattern((await import("../bridge/input/formats.ts")).FORMATS.email.pattern!); console.log("email", e.unitCost, e.maxInput);
import { FORMATS } from "../bridge/input/formats.ts";
for (const [n, f] of Object.entries(FORMATS)) if (f.pattern) { const c = compilePattern(f.pattern); console.log(n, f.maxLength, (f.prefix ?? "").length, c.maxInput, c.unitCost); }
