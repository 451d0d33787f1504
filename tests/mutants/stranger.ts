/**
 * Named mutants a stranger would try (issue 32, "how it will be checked"): one-line breaks of rules
 * docs/security.md states that no issue named, each killed by the test files a maintainer would
 * look in first.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const HOP_BY_HOP = [
  "tests/upstream/hop_by_hop_test.ts",
  "tests/upstream/header_filter_test.ts",
  "tests/upstream/headers_test.ts",
];
const CREDENTIALS = ["tests/upstream/credentials_test.ts"];
const PATHS = ["tests/upstream/paths_test.ts", "tests/upstream/spellings_test.ts"];
const BUDGET = ["tests/unit/channel_budget_test.ts", "tests/protocol/channel_budget_test.ts"];
const PAGE_TOOLS = ["tests/unit/page_tools_test.ts", "tests/browser/webmcp_pages_test.ts"];
const IDENTITY = ["tests/upstream/page_identity_test.ts"];

export const mutants: Mutant[] = [
  {
    name: "hop-by-hop-connection-listed-case",
    guarantee: "A header the `Connection` header names, in any case, is hop-by-hop and dropped.",
    file: "bridge/upstream/headers.ts",
    find: "const trimmed = name.trim().toLowerCase();",
    replace: "const trimmed = name.trim();",
    tests: HOP_BY_HOP,
  },
  {
    name: "credentials-run-without-dash-underscore",
    guarantee: "aim's token never reaches the app, whichever base64url characters it holds.",
    file: "bridge/http/credentials.ts",
    find: "const RUN = /[A-Za-z0-9_-]+/g;",
    replace: "const RUN = /[A-Za-z0-9]+/g;",
    tests: CREDENTIALS,
  },
  {
    name: "paths-nul-kept",
    guarantee:
      "A path cut at a NUL (as C servers read it) that is one of aim's is never forwarded.",
    file: "bridge/upstream/routes.ts",
    find: "  if (nul >= 0) text = text.slice(0, nul);\n",
    replace: "",
    tests: PATHS,
  },
  {
    name: "channel-credit-messages-unspent",
    guarantee:
      "An invocation pays for 4 of its tab's messages, not for every message the tab sends after it.",
    file: "bridge/core/channel_budget.ts",
    find: "      credit.messages--;\n",
    replace: "",
    tests: BUDGET,
  },
  {
    name: "webmcp-run-another-frame-tool",
    guarantee: "A page tool is run only as this document registered it, never another frame's.",
    file: "elements/page_tools.ts",
    find: "const tool = listed.find((t) => t?.name === name && isOwnTool(t));",
    replace: "const tool = listed.find((t) => t?.name === name);",
    tests: PAGE_TOOLS,
  },
  {
    name: "page-identity-semicolon-value",
    guarantee: "A declared page parameter whose value holds a `;` (`id=1;x`) names no page.",
    file: "bridge/site/page_identity.ts",
    find:
      '    if (new URLSearchParams(query).getAll(name).some((value) => value.includes(";"))) return name;\n',
    replace: "",
    tests: IDENTITY,
  },
  {
    name: "channel-credit-characters-unspent",
    guarantee:
      "An invocation pays for 2 MiB of its tab's characters, not for every message after it.",
    file: "bridge/core/channel_budget.ts",
    find: "      credit.characters -= length;\n",
    replace: "",
    tests: BUDGET,
  },
  {
    name: "run-reports-burst-31",
    guarantee: "A tab reports at most 30 WebMCP runs at once, as docs/security.md says.",
    file: "bridge/core/tab_messages.ts",
    find: "burst: 30, perMinute: 60",
    replace: "burst: 31, perMinute: 60",
    tests: ["tests/protocol/run_reports_test.ts"],
  },
  {
    name: "secret-key-cookie-published",
    guarantee: "A state key named like a cookie is never published.",
    file: "bridge/markup/secrets.ts",
    find: "|cookie|",
    replace: "|",
    tests: ["tests/security/secrets_test.ts"],
  },
  {
    name: "cookie-samesite-lax",
    guarantee: "The session cookie is SameSite=Strict.",
    file: "bridge/http/session_routes.ts",
    find: 'sameSite: "Strict",',
    replace: 'sameSite: "Lax",',
    tests: ["tests/protocol/session_test.ts"],
  },
  {
    name: "access-log-query",
    guarantee: "A request log line never holds a query string.",
    file: "bridge/http/middleware.ts",
    find: "      path: c.req.path,\n      status: c.res.status,",
    replace: "      path: c.req.url,\n      status: c.res.status,",
    tests: ["tests/cli/serve_test.ts"],
  },
  {
    name: "lease-16-seconds",
    guarantee: "The tab lease lasts 15 s, as docs/security.md's Limits table says.",
    file: "bridge/core/limits.ts",
    find: "leaseMs: 15_000,",
    replace: "leaseMs: 16_000,",
    tests: ["tests/unit/limits_doc_test.ts"],
  },
  {
    name: "mcp-sessions-per-client-513",
    guarantee: "A client address holds at most 512 MCP sessions, as documented.",
    file: "bridge/mcp/routes.ts",
    find: "maxPerClient: 512,",
    replace: "maxPerClient: 513,",
    tests: ["tests/unit/limits_doc_test.ts"],
  },
  {
    name: "login-failures-free-4",
    guarantee: "The first 3 failed logins cost nothing, the fourth waits, as documented.",
    file: "bridge/core/login.ts",
    find: "  max: 3,\n  windowMs: 15 * 60_000,",
    replace: "  max: 4,\n  windowMs: 15 * 60_000,",
    tests: ["tests/unit/limits_doc_test.ts"],
  },
  {
    name: "page-identity-case-folded-one-way",
    guarantee: "A dotless ı spells a declared page parameter as .NET reads it (`ıd` is `ID`).",
    file: "bridge/site/page_identity.ts",
    find: "    .toUpperCase().toLowerCase();",
    replace: "    .toLowerCase();",
    tests: IDENTITY,
  },
];
