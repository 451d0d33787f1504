/**
 * Mutants of issue 24's "what the dependencies already do": Redis scripts through the client's
 * own script support, one `If-None-Match` reader, zod-checked Redis messages, hono's body limit.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "redis-script-lost-not-resent",
    guarantee: "A script Redis lost (SCRIPT FLUSH, a restart) is sent again by its text.",
    file: "bridge/share/redis_scripts.ts",
    find: "  return defineScript({\n    SCRIPT: text,",
    replace:
      "  return ({\n    SHA1: defineScript({ SCRIPT: text, parseCommand() {}, transformReply() {} }).SHA1,\n" +
      "    SCRIPT: \"return redis.error_reply('NOSCRIPT lost')\",",
    tests: ["tests/cluster/redis_scripts_test.ts"],
  },
  {
    name: "if-none-match-strong-only",
    guarantee: 'If-None-Match compares entity tags weakly: W/"v3" names "v3".',
    file: "bridge/http/if_none_match.ts",
    find: '    if (text.startsWith("W/", i)) start = i + 2;\n',
    replace: "",
    tests: ["tests/unit/if_none_match_test.ts"],
  },
  {
    name: "if-none-match-split-on-commas",
    guarantee: "A comma inside an entity tag's quotes belongs to the tag.",
    file: "bridge/http/if_none_match.ts",
    find: "      const end = text.indexOf('\"', start + 1);",
    replace:
      '      const end = Math.min(...[text.indexOf(\'"\', start + 1), text.indexOf(",", start + 1) - 1].filter((n) => n >= 0));',
    tests: ["tests/unit/if_none_match_test.ts"],
  },
  {
    name: "merge-patch-null-member-sent",
    guarantee: "A merge patch that would read a null the new value holds as a removal is not sent.",
    file: "bridge/wire/merge_patch.ts",
    find: "    if (value === null ? target !== ABSENT : !expressible(value, target)) return false;",
    replace: "    if (value !== null && !expressible(value, target)) return false;",
    tests: ["tests/unit/merge_patch_test.ts"],
  },
  {
    name: "redis-reply-cast",
    guarantee: "A reply read from Redis is checked against its schema, never cast.",
    file: "bridge/share/redis_routing.ts",
    find:
      '    const reply = parseMessage(Reply, message);\n    if (reply === undefined) return this.#malformed("reply");',
    replace: "    const reply = JSON.parse(message) as Reply;",
    tests: ["tests/cluster/redis_messages_test.ts"],
  },
  {
    name: "redis-signal-cast",
    guarantee: "A session signal read from Redis is checked against its schema, never cast.",
    file: "bridge/share/redis.ts",
    find: "        const signal = parseMessage(SessionSignal, message);",
    replace: "        const signal = JSON.parse(message) as SessionSignal;",
    tests: ["tests/cluster/redis_messages_test.ts"],
  },
  {
    name: "redis-claim-cast",
    guarantee: "An Idempotency-Key claim of the wrong shape in Redis is lost, never replayed.",
    file: "bridge/share/redis_idempotency.ts",
    find:
      '    const kept = parseMessage(KeptClaim, seen);\n    if (kept === undefined) return { state: "lost" };\n    if (kept.fingerprint',
    replace: "    const kept = JSON.parse(seen) as KeptClaim;\n    if (kept.fingerprint",
    tests: ["tests/cluster/redis_messages_test.ts"],
  },
  {
    name: "redis-record-actions-unchecked",
    guarantee: "A session record whose actions fit no schema is no record.",
    file: "bridge/share/redis_messages.ts",
    find: "  actions: z.array(ActionSpec),",
    replace: "  actions: z.array(z.any()),",
    tests: ["tests/unit/redis_messages_test.ts"],
  },
];
