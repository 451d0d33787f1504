import { z } from "zod";
import { InputSchema } from "../bridge/wire/input_schema.ts";
const r = z.record(z.string().refine((s) => s !== "__proto__", "no"), z.any());
const v = JSON.parse('{"__proto__":{"x":1},"a":1}');
console.log(Object.keys(v), r.safeParse(v));
const p = InputSchema.safeParse(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"additionalProperties":false}'));
console.log(p.success, JSON.stringify(p.data), Object.getPrototypeOf(p.data?.properties));
