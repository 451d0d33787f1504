/**
 * Named mutants of what keeps an invocation cheap without losing anything: the audit entry is
 * written after the answer yet never lost on a read or a close, and the faster JSON parse still
 * refuses every `__proto__` key.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "audit-written-on-answer-path",
    guarantee: "An audit entry is written once the event loop turns, not before the answer.",
    file: "bridge/audit/log.ts",
    find: "      entry.readOnlyBy ?? null,\n    ]);\n",
    replace: "      entry.readOnlyBy ?? null,\n    ]);\n    this.flush();\n",
    tests: ["tests/security/sessions_test.ts"],
  },
  {
    name: "audit-queue-never-written",
    guarantee: "Queued audit entries are written on the next turn, with no read or close.",
    file: "bridge/audit/log.ts",
    find: "      try {\n        this.flush();\n      } catch (error) {",
    replace: "      try {\n        void 0;\n      } catch (error) {",
    tests: ["tests/security/sessions_test.ts"],
  },
  {
    name: "audit-close-drops-queue",
    guarantee: "Closing the audit log writes the entries still queued.",
    file: "bridge/audit/log.ts",
    find: "    this.flush();\n    this.#db.close();",
    replace: "    this.#db.close();",
    tests: ["tests/security/sessions_test.ts"],
  },
  {
    name: "audit-read-misses-queue",
    guarantee: "An audit read sees every entry recorded before it.",
    file: "bridge/audit/log.ts",
    find: "  forSession(sessionId: string, limit = 100): AuditEntry[] {\n    this.flush();",
    replace: "  forSession(sessionId: string, limit = 100): AuditEntry[] {",
    tests: ["tests/security/sessions_test.ts"],
  },
  {
    name: "json-proto-escaped-key-missed",
    guarantee: "A __proto__ key spelled with \\u escapes is refused.",
    file: "bridge/wire/json.ts",
    find: 'text.includes("__proto__") || text.includes("\\\\u")',
    replace: 'text.includes("__proto__")',
    tests: ["tests/security/depth_test.ts"],
  },
  {
    name: "body-declared-empty-read",
    guarantee: "A body declared empty (Content-Length: 0) is refused 400 as empty.",
    file: "bridge/http/request.ts",
    find: "  if (declared === 0 || (declared === undefined && !c.req.raw.body)) {",
    replace: "  if (declared === undefined && !c.req.raw.body) {",
    tests: [
      "tests/protocol/invoke_test.ts",
      "tests/protocol/idempotency_test.ts",
      "tests/protocol/invoke_queue_test.ts",
    ],
  },
  {
    name: "panel-log-renders-per-call",
    guarantee: "The panel draws its activity log in a frame, not once per call.",
    file: "elements/client_controller.ts",
    find: "    this.log = [(e as CustomEvent<Activity>).detail, ...this.log].slice(0, 50);",
    replace:
      "    this.log = [(e as CustomEvent<Activity>).detail, ...this.log].slice(0, 50);\n    this.#update();",
    tests: ["tests/browser/invoke_path_test.ts"],
  },
  {
    name: "panel-log-drawn-every-frame",
    guarantee:
      "While calls keep coming, the panel draws its activity log at most once every 250 ms, not in every frame.",
    file: "elements/client_controller.ts",
    find: "    if (wait > 0) this.#logTimer = setTimeout(draw, wait);",
    replace: "    if (wait > Infinity) this.#logTimer = setTimeout(draw, wait);",
    tests: ["tests/browser/invoke_path_test.ts"],
  },
  {
    name: "tab-recheck-every-answer",
    guarantee:
      "While calls keep coming, the tab reads again what no observer tells at most every 250 ms, not after every answer.",
    file: "elements/client.ts",
    find: "    if (wait > 0) this.#recheckTimer = setTimeout(run, wait);",
    replace: "    if (wait > Infinity) this.#recheckTimer = setTimeout(run, wait);",
    tests: ["tests/browser/invoke_path_test.ts"],
  },
  {
    name: "tab-recheck-dropped",
    guarantee: "After an answer, the tab reads again what no observer tells (a form's fields).",
    file: "elements/client.ts",
    find: "    this.sendText(text);\n    this.#recheck();",
    replace: "    this.sendText(text);",
    tests: ["tests/browser/invoke_path_test.ts"],
  },
  {
    name: "body-declared-length-unchecked",
    guarantee: "A body whose Content-Length is over the limit is refused 413 without being read.",
    file: "bridge/http/request.ts",
    find: "  if (declared !== undefined && declared > maxBytes) throw tooLarge();",
    replace: "",
    tests: [
      "tests/protocol/invoke_test.ts",
      "tests/protocol/idempotency_test.ts",
      "tests/protocol/invoke_queue_test.ts",
    ],
  },
  {
    name: "audit-failed-write-drops-entries",
    guarantee: "Audit entries that could not be written are kept and written with the next ones.",
    file: "bridge/audit/log.ts",
    find: "      this.#pending = [...rows, ...this.#pending].slice(-MAX_UNWRITTEN);",
    replace: "",
    tests: ["tests/security/sessions_test.ts"],
  },
  {
    name: "tab-timeout-ignores-queue",
    guarantee:
      "An invocation's tab timeout counts from its request: time queued behind another counts.",
    file: "bridge/core/relay_queue.ts",
    find:
      "      this.#startTimer(pending, Math.min(options.timeoutMs ?? Infinity, this.tabTimeoutMs));",
    replace:
      "      this.#startTimer(pending, Math.min(options.timeoutMs ?? Infinity, this.tabTimeoutMs) + (this.#current ? this.confirmTimeoutMs : 0));",
    tests: [
      "tests/unit/relay_queue_test.ts",
      "tests/protocol/invoke_test.ts",
      "tests/protocol/idempotency_test.ts",
      "tests/protocol/invoke_queue_test.ts",
    ],
  },
];
