/** @module Agent names: page paths as RFC 1123 labels, unique and deterministic. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { agentNames, pageLabel } from "../../bridge/acp/agents.ts";
import { AgentName } from "../../bridge/acp/schemas.ts";

/** Page-like paths: `/` and segments of any characters, awkward ones made likely. */
const segment = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.constantFrom("Intro_Page", "a-b", "a_b", "A-B", "café", "日本", "--", "x".repeat(80), "index"),
);
const pagePath = fc.array(segment, { maxLength: 6 }).map((parts) => "/" + parts.join("/"));

Deno.test("pageLabel() turns the root into index and a path into a lowercase label", () => {
  assert.equal(pageLabel("/"), "index");
  assert.equal(pageLabel("/control-panel"), "control-panel");
  assert.equal(pageLabel("/docs/Intro_Page"), "docs-intro-page");
  assert.equal(pageLabel("/Café/Crème brûlée"), "cafe-creme-brulee");
  assert.equal(pageLabel("/--odd--/__path__"), "odd-path");
});

Deno.test("pageLabel() gives paths with no letters left or over 63 characters a hash suffix", () => {
  const japanese = pageLabel("/日本");
  assert.match(japanese, /^page-[0-9a-f]{8}$/);
  assert.notEqual(japanese, pageLabel("/中国"));
  const long = "/" + "section/".repeat(12) + "end";
  const label = pageLabel(long);
  assert.equal(label.length <= 63, true);
  assert.match(label, /^section-section-.*-[0-9a-f]{8}$/);
  assert.notEqual(label, pageLabel(long + "2"));
});

Deno.test("agentNames() keeps the bare label for the page it spells and suffixes the others", () => {
  const names = agentNames(["/a_b", "/a-b", "/a/b", "/A-B"]);
  assert.equal(names.get("/a-b"), "a-b");
  for (const page of ["/a_b", "/a/b", "/A-B"]) assert.match(names.get(page)!, /^a-b-[0-9a-f]{8}$/);
  assert.equal(new Set(names.values()).size, 4);
  // Without the exact spelling, the first path in code-unit order keeps it.
  const others = agentNames(["/a_b", "/A-B"]);
  assert.equal(others.get("/A-B"), "a-b");
  assert.match(others.get("/a_b")!, /^a-b-[0-9a-f]{8}$/);
});

Deno.test("agentNames() never hands a suffixed name that another page owns bare", () => {
  // The suffixed name of "/X" would be "x-<hash of /X>"; a page may spell exactly that.
  const stolen = agentNames(["/x", "/X"]).get("/X")!;
  const names = agentNames(["/x", "/X", "/" + stolen]);
  assert.equal(names.get("/" + stolen), stolen);
  assert.notEqual(names.get("/X"), stolen);
  assert.equal(new Set(names.values()).size, 3);
});

Deno.test("every derived name is a valid RFC 1123 label of 1 to 63 characters", () => {
  fc.assert(
    fc.property(pagePath, (page) => {
      assert.ok(AgentName.safeParse(pageLabel(page)).success, `${page} → ${pageLabel(page)}`);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("names are unique, valid and the same whatever order the pages come in", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(pagePath, { maxLength: 30 }).chain((pages) =>
        fc.tuple(fc.constant(pages), fc.shuffledSubarray(pages, { minLength: pages.length }))
      ),
      ([pages, shuffled]) => {
        const names = agentNames(pages);
        assert.equal(names.size, pages.length);
        assert.equal(new Set(names.values()).size, pages.length, "unique");
        for (const name of names.values()) assert.ok(AgentName.safeParse(name).success, name);
        assert.deepEqual(
          [...agentNames(shuffled)].sort(),
          [...names].sort(),
          "independent of order",
        );
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("pages whose labels collide still get unique names", () => {
  const collide = fc.uniqueArray(
    fc.array(fc.constantFrom("a", "A", "_", "-", "/", "é", "1"), { minLength: 1, maxLength: 6 })
      .map((chars) => "/" + chars.join("")),
    { minLength: 2, maxLength: 40 },
  );
  fc.assert(
    fc.property(collide, (pages) => {
      const names = agentNames(pages);
      assert.equal(new Set(names.values()).size, pages.length);
      for (const name of names.values()) assert.ok(AgentName.safeParse(name).success, name);
    }),
    { numRuns: 500 },
  );
});
