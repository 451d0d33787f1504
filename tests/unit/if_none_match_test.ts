import assert from "node:assert/strict";
import fc from "fast-check";
import { namesEtag, parseIfNoneMatch } from "../../bridge/http/if_none_match.ts";

/** An opaque tag as RFC 9110 has it: `"` etagc* `"`, where etagc is any visible byte but `"`. */
const opaqueTag = fc.string({
  unit: fc.constantFrom(..."abcvV019,;/*W -_=+!#~".split("")),
  maxLength: 12,
}).map((inner) => `"${inner}"`);

const entityTag = fc.record({ weak: fc.boolean(), tag: opaqueTag });

Deno.test("a list of entity tags reads as its opaque tags, weak or strong, commas inside kept", () => {
  fc.assert(fc.property(
    fc.array(entityTag, { minLength: 1, maxLength: 10 }),
    fc.constantFrom(",", ", ", " ,\t", ",,"),
    (list, separator) => {
      const header = list.map(({ weak, tag }) => (weak ? "W/" : "") + tag).join(separator);
      assert.deepEqual(parseIfNoneMatch(header), { any: false, tags: list.map((e) => e.tag) });
    },
  ));
});

Deno.test("a header names an ETag exactly when one of its tags is that ETag, weakly compared", () => {
  fc.assert(fc.property(
    fc.array(entityTag, { maxLength: 6 }),
    opaqueTag,
    fc.boolean(),
    (list, etag, weakEtag) => {
      const header = list.map(({ weak, tag }) => (weak ? "W/" : "") + tag).join(", ");
      const expected = list.some((e) => e.tag === etag);
      assert.equal(namesEtag(header, (weakEtag ? "W/" : "") + etag), expected);
    },
  ));
});

Deno.test("any header text is read without throwing, into tags that are each quoted", () => {
  fc.assert(fc.property(fc.string({ maxLength: 200 }), (header) => {
    const { tags } = parseIfNoneMatch(header);
    for (const tag of tags) assert.match(tag, /^"[^"]*"$/s);
  }));
});

Deno.test("a star matches every ETag, and no header matches none", () => {
  assert.equal(namesEtag("*", '"v3"'), true);
  assert.equal(namesEtag(' "v1", * ', '"v3"'), true);
  assert.equal(namesEtag(undefined, '"v3"'), false);
  assert.equal(namesEtag(null, '"v3"'), false);
  assert.equal(namesEtag("", '"v3"'), false);
});

Deno.test("elements that are not entity tags are skipped, not matched", () => {
  assert.deepEqual(parseIfNoneMatch('v3, W/v5, "v6"x, **, W/"v7"'), {
    any: false,
    tags: ['"v7"'],
  });
  assert.deepEqual(parseIfNoneMatch('"v4, W/v5", "v6"').tags, ['"v4, W/v5"', '"v6"']);
  assert.equal(namesEtag("v3", '"v3"'), false);
  assert.equal(namesEtag('"v3', '"v3"'), false);
  assert.deepEqual(parseIfNoneMatch('"a", W/"b"').tags, ['"a"', '"b"']);
});
