/**
 * Named mutants of the cost of change documents: each is made once, a
 * session and a client make at most so many per second, and making one is linear in the size of
 * the manifests.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const CHANGES = "tests/protocol/change_documents_test.ts";
const JSON_PATCH = "tests/unit/json_patch_test.ts";

export const mutants: Mutant[] = [
  {
    name: "change-document-cache-off",
    guarantee: "A change document read again is answered from the cache, not made again.",
    file: "bridge/http/session_manifests.ts",
    find: "    if (kept.has(key)) return kept.get(key) as T;\n",
    replace: "",
    tests: [CHANGES],
  },
  {
    name: "change-budget-session-off",
    guarantee: "A session's computing of change documents is bounded per second.",
    file: "bridge/http/session_manifests.ts",
    find: "if (!sessionLeft || !clientLeft) return undefined;",
    replace: "if (!clientLeft) return undefined;",
    tests: [CHANGES],
  },
  {
    name: "change-budget-client-off",
    guarantee:
      "A client's computing of change documents is bounded per second, over all its sessions.",
    file: "bridge/http/session_manifests.ts",
    find: "if (!sessionLeft || !clientLeft) return undefined;",
    replace: "if (!sessionLeft) return undefined;",
    tests: [CHANGES],
  },
  {
    name: "change-budget-not-charged",
    guarantee: "Each change document made is charged to the session's budget.",
    file: "bridge/http/session_manifests.ts",
    find: "    mine.ms -= cost;\n",
    replace: "",
    tests: [CHANGES],
  },
  {
    name: "change-budget-never-refilled",
    guarantee: "A spent budget fills again at its rate.",
    file: "bridge/http/session_manifests.ts",
    find: "bucket.ms + (now - bucket.at) * rate.msPerSecond / 1000",
    replace: "bucket.ms",
    tests: [CHANGES],
  },
  {
    name: "return-changes-outside-budget",
    guarantee:
      "The change documents of invoke answers (Prefer: return=changes) count in the budget.",
    file: "bridge/http/session_manifests.ts",
    find: `    const patch = this.#change(
      session,
      client,
      key,
      () => createJsonPatch(earlier.manifest, now.manifest),
    );`,
    replace: "    void key;\n    const patch = createJsonPatch(earlier.manifest, now.manifest);",
    tests: [CHANGES],
  },
  {
    name: "json-patch-replace-encoded-again",
    guarantee: "createJsonPatch() never encodes a node whole to weigh replacing it.",
    file: "bridge/wire/json_patch.ts",
    find: `const value = "value" in op ? encodedLength(op.value, lengths) : undefined;`,
    replace: `const value = "value" in op ? JSON.stringify(op.value)?.length : undefined;`,
    tests: [JSON_PATCH],
  },
  {
    name: "json-patch-lengths-forgotten",
    guarantee: "createJsonPatch() computes the length of each node of the new value once.",
    file: "bridge/wire/json_patch.ts",
    find: "  lengths.set(value, length);\n",
    replace: "",
    tests: [JSON_PATCH],
  },
];
