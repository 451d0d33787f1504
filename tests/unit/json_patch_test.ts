import assert from "node:assert/strict";
import fc from "fast-check";
import { createJsonPatch, encodedLength } from "../../bridge/wire/json_patch.ts";
import { applyJsonPatch } from "../helpers/patches.ts";

/** Members fast-json-patch refuses to touch (it bans prototype changes): left out here. */
const BANNED = new Set(["__proto__", "constructor", "prototype"]);

/** As values come off the wire: plain objects, no `-0`, without {@linkcode BANNED} members. */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, v) => BANNED.has(key) ? undefined : v);
}

const DROP = Symbol("drop");

/**
 * `value` after random edits, new values drawn from `fresh`: some members and elements changed,
 * dropped, added or inserted, most kept as they were, at any depth.
 */
function edited(value: unknown, fresh: fc.Arbitrary<unknown>, top = true): fc.Arbitrary<unknown> {
  const keepOr = (keep: number, arbitrary: fc.Arbitrary<unknown>) =>
    top ? arbitrary : fc.oneof(
      { weight: keep, arbitrary: fc.constant(value) },
      { weight: 2, arbitrary },
    );
  const member = (v: unknown) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant<unknown>(DROP) },
      { weight: 9, arbitrary: edited(v, fresh, false) },
    );
  const few = <T>(arbitrary: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, fc.array(arbitrary, { maxLength: 2 }));
  if (Array.isArray(value)) {
    return keepOr(
      1,
      fc.tuple(fc.tuple(...value.map(member)), few(fc.tuple(fc.nat(), fresh)))
        .map(([kept, inserts]) => {
          const out = kept.filter((v) => v !== DROP);
          for (const [at, v] of inserts) out.splice(at % (out.length + 1), 0, v);
          return out;
        }),
    );
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    const key = fc.constantFrom("id", "new", "a/b", "~c", "");
    return keepOr(
      1,
      fc.tuple(fc.tuple(...entries.map(([, v]) => member(v))), few(fc.tuple(key, fresh)))
        .map(([kept, added]) => {
          const out: Record<string, unknown> = {};
          kept.forEach((v, i) => {
            if (v !== DROP) out[entries[i]![0]] = v;
          });
          for (const [k, v] of added) out[k] = v;
          return out;
        }),
    );
  }
  return keepOr(8, fresh);
}

const row = fc.record({
  id: fc.constantFrom("r1", "r2", "r3", "r4"),
  title: fc.string({ maxLength: 8 }),
  status: fc.constantFrom("open", "closed", "held"),
});
const action = fc.record({
  id: fc.constantFrom("login", "logout", "save", "a/b~c"),
  label: fc.string({ maxLength: 8 }),
  params: fc.dictionary(fc.constantFrom("q", "a/b", "~c"), fc.jsonValue({ maxDepth: 1 }), {
    maxKeys: 2,
  }),
});
const manifest = fc.record({
  v: fc.nat(),
  title: fc.string({ maxLength: 8 }),
  actions: fc.array(action, { maxLength: 5 }),
  state: fc.record({ requests: fc.array(row, { maxLength: 6 }), filter: fc.option(fc.string()) }),
}, { requiredKeys: ["actions", "state"] });

/** The patch is applied to a copy, and the result equals `b`; the patch is plain JSON. */
function assertPatches(a: unknown, b: unknown) {
  const before = structuredClone(a);
  const patch = createJsonPatch(a, b);
  assert.deepEqual(wire(patch), patch); // No `value: undefined`.
  assert.deepEqual(applyJsonPatch(a, patch), b);
  assert.deepEqual(a, before);
  // Never longer than replacing the whole value.
  const whole = JSON.stringify([{ op: "replace", path: "", value: b }]).length;
  assert.ok(JSON.stringify(patch).length <= whole);
}

Deno.test("createJsonPatch(): applying the patch to the old value always gives the new one", () => {
  const json = fc.jsonValue({ maxDepth: 4 }).map(wire);
  fc.assert(fc.property(json, json, assertPatches), { numRuns: 2000 });
  fc.assert(
    fc.property(
      json.chain((a) => fc.tuple(fc.constant(a), edited(a, fc.jsonValue({ maxDepth: 2 })))),
      ([a, b]) => assertPatches(a, wire(b)),
    ),
    { numRuns: 1000 },
  );
});

Deno.test("createJsonPatch(): an edited manifest is patched into the new one", () => {
  const fresh = fc.oneof(row, action, fc.jsonValue({ maxDepth: 1 }));
  fc.assert(
    fc.property(
      manifest.map(wire).chain((a) => fc.tuple(fc.constant(a), edited(a, fresh))),
      ([a, b]) => assertPatches(a, wire(b)),
    ),
    { numRuns: 1000 },
  );
});

Deno.test("createJsonPatch() gives no operations for equal values", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }).map(wire), (a) => {
      assert.deepEqual(createJsonPatch(a, structuredClone(a)), []);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("createJsonPatch() replaces one field of one row at its exact path", () => {
  const requests = [
    { id: "r1", title: "Laptop", status: "open", owner: "ann" },
    { id: "r2", title: "Monitor", status: "open", owner: "bob" },
    { id: "r3", title: "Desk chair", status: "open", owner: "cy" },
  ];
  const before = { v: 3, state: { requests } };
  const after = wire(before);
  after.state.requests[2]!.status = "approved";
  assert.deepEqual(createJsonPatch(before, after), [
    { op: "replace", path: "/state/requests/2/status", value: "approved" },
  ]);
});

Deno.test("createJsonPatch() replaces a changed action as a whole when that is shorter", () => {
  const before = {
    actions: [{ id: "login", label: "Log in" }, { id: "search", label: "Search" }],
  };
  const after = {
    actions: [{ id: "logout", label: "Log out" }, { id: "search", label: "Search" }],
  };
  assert.deepEqual(createJsonPatch(before, after), [
    { op: "replace", path: "/actions/0", value: { id: "logout", label: "Log out" } },
  ]);
});

Deno.test("createJsonPatch() replaces the root when the types differ", () => {
  assert.deepEqual(createJsonPatch({ a: 1 }, [1]), [{ op: "replace", path: "", value: [1] }]);
  assert.deepEqual(createJsonPatch(1, null), [{ op: "replace", path: "", value: null }]);
  assert.deepEqual(createJsonPatch({ a: 1 }, { a: 1 }), []);
});

Deno.test("createJsonPatch() escapes '~' and '/' in keys", () => {
  const long = "a value long enough that replacing the parent would cost more";
  const before = { "a/b": { "~c": 1, keep: long }, "m~n": long };
  const after = { "a/b": { "~c": 2, keep: long }, "m~n": long, "x/~y": true };
  const patch = createJsonPatch(before, after);
  assert.deepEqual(patch, [
    { op: "replace", path: "/a~1b/~0c", value: 2 },
    { op: "add", path: "/x~1~0y", value: true },
  ]);
  assert.deepEqual(applyJsonPatch(before, patch), after);
});

Deno.test("createJsonPatch() adds at explicit indexes and removes from the end downward", () => {
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
  assert.deepEqual(createJsonPatch({ list: words }, { list: words.slice(0, 6) }), [
    { op: "remove", path: "/list/7" },
    { op: "remove", path: "/list/6" },
  ]);
  assert.deepEqual(createJsonPatch({ list: words }, { list: [...words, "india", "juliet"] }), [
    { op: "add", path: "/list/8", value: "india" },
    { op: "add", path: "/list/9", value: "juliet" },
  ]);
});

Deno.test("createJsonPatch() orders changes and adds as in the new value, then removes", () => {
  const long = "long enough that one replace of the whole object costs more ".repeat(3);
  const before = { a: 1, gone: true, b: long, c: 2 };
  const after = { c: 3, new: 4, a: 5, b: long };
  assert.deepEqual(createJsonPatch(before, after), [
    { op: "replace", path: "/c", value: 3 },
    { op: "add", path: "/new", value: 4 },
    { op: "replace", path: "/a", value: 5 },
    { op: "remove", path: "/gone" },
  ]);
});

/**
 * The patch as createJsonPatch() made it before it was made linear: the same operations, with the length
 * of a replace found by encoding the node again at every level, and the commas between the
 * operations of a part counted again at every level above it. The reference of the tests that
 * the linear version gives patches no longer than these.
 */
function referencePatch(before: unknown, after: unknown): unknown[] {
  type Diff = { ops: unknown[]; size: number };
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const token = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
  const single = (op: unknown): Diff => ({ ops: [op], size: JSON.stringify(op).length });
  const join = (parts: Diff[]): Diff => {
    const ops = parts.flatMap((part) => part.ops);
    const size = parts.reduce((sum, part) => sum + part.size, 0);
    return { ops, size: size + Math.max(ops.length - 1, 0) };
  };
  const diff = (a: unknown, b: unknown, path: string): Diff => {
    const parts: Diff[] = [];
    if (Array.isArray(a) && Array.isArray(b)) {
      const common = Math.min(a.length, b.length);
      for (let i = 0; i < common; i++) parts.push(diff(a[i], b[i], `${path}/${i}`));
      for (let i = common; i < b.length; i++) {
        parts.push(single({ op: "add", path: `${path}/${i}`, value: b[i] }));
      }
      for (let i = a.length - 1; i >= common; i--) {
        parts.push(single({ op: "remove", path: `${path}/${i}` }));
      }
    } else if (isObject(a) && isObject(b)) {
      for (const [key, value] of Object.entries(b)) {
        const at = `${path}/${token(key)}`;
        parts.push(
          Object.hasOwn(a, key) ? diff(a[key], value, at) : single({ op: "add", path: at, value }),
        );
      }
      for (const key of Object.keys(a)) {
        if (!Object.hasOwn(b, key)) {
          parts.push(single({ op: "remove", path: `${path}/${token(key)}` }));
        }
      }
    } else if (a === b) return { ops: [], size: 0 };
    else return single({ op: "replace", path, value: b });
    const joined = join(parts);
    if (joined.ops.length === 0) return { ops: [], size: 0 };
    const replace = single({ op: "replace", path, value: b });
    return joined.size < replace.size ? joined : replace;
  };
  return diff(before, after, "").ops;
}

Deno.test("createJsonPatch() is never longer than the patch that encoding each node at every level gave", () => {
  const json = fc.jsonValue({ maxDepth: 4 }).map(wire);
  const same = (a: unknown, b: unknown) => {
    const patch = createJsonPatch(a, b);
    assert.deepEqual(applyJsonPatch(a, patch), b);
    assert.ok(JSON.stringify(patch).length <= JSON.stringify(referencePatch(a, b)).length);
  };
  fc.assert(fc.property(json, json, same), { numRuns: 2000 });
  fc.assert(
    fc.property(
      json.chain((a) => fc.tuple(fc.constant(a), edited(a, fc.jsonValue({ maxDepth: 2 })))),
      ([a, b]) => same(a, wire(b)),
    ),
    { numRuns: 2000 },
  );
  const fresh = fc.oneof(row, action, fc.jsonValue({ maxDepth: 1 }));
  fc.assert(
    fc.property(
      manifest.map(wire).chain((a) => fc.tuple(fc.constant(a), edited(a, fresh))),
      ([a, b]) => same(a, wire(b)),
    ),
    { numRuns: 1000 },
  );
  // Keys and strings that JSON escapes, lone surrogates included.
  const text = fc.string({ unit: "binary", maxLength: 6 });
  const escaped = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      text,
      fc.double(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(text, tie("value"), { maxKeys: 3 }),
    ),
  })).value;
  fc.assert(
    fc.property(
      escaped.chain((a) => fc.tuple(fc.constant(a), edited(a, escaped))),
      ([a, b]) => same(wire(a), wire(b)),
    ),
    { numRuns: 1000 },
  );
});

Deno.test("encodedLength() is the length of JSON.stringify's encoding", () => {
  const text = fc.string({ unit: "binary", maxLength: 6 });
  const value = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      text,
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constantFrom(null, undefined, () => 1, Symbol("s")),
      fc.date({ noInvalidDate: true }),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(text, tie("value"), { maxKeys: 4 }),
    ),
  })).value;
  fc.assert(
    fc.property(value, (v) => {
      assert.equal(encodedLength(v), JSON.stringify(v)?.length);
    }),
    { numRuns: 3000 },
  );
  // A member shared by two places is counted at both.
  const shared = { a: [1, 2, "x"] };
  assert.equal(encodedLength([shared, { shared }]), JSON.stringify([shared, { shared }]).length);
});

Deno.test("createJsonPatch() of a maximal state is linear: a deep change costs no encoding per level", () => {
  // 28 objects deep, every row changed: encoding the whole at each level made this 40× one
  // JSON.stringify of the new value; once per node it is a few.
  const rows = (status: string) =>
    Array.from({ length: 3000 }, (_, i) => ({ id: `req-${i}`, title: `Request ${i}`, status }));
  // How often the members of the innermost object are listed: once to compare them, once to
  // know its length; not once more per level above it.
  let listed = 0;
  const counted = (value: object) =>
    new Proxy(value, {
      ownKeys: (target) => {
        listed++;
        return Reflect.ownKeys(target);
      },
    });
  const deep = (status: string) => {
    let value: unknown = status === "held"
      ? counted({ rows: rows(status) })
      : { rows: rows(status) };
    for (let i = 0; i < 28; i++) value = { [`level${i}`]: value };
    return value;
  };
  const before = deep("open");
  const after = deep("held");
  let encoded = 0;
  const stringify = JSON.stringify;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    if (typeof args[0] === "object" && args[0] !== null) encoded++;
    return stringify(...args);
  }) as typeof stringify;
  try {
    createJsonPatch(before, after);
  } finally {
    JSON.stringify = stringify;
  }
  assert.equal(encoded, 0, "no object or array is encoded whole");
  assert.ok(listed <= 2, `the innermost object's members were listed ${listed} times`);
});
