/**
 * Named mutants of what a newcomer following the docs, and real apps, found: from the
 * command line's messages to the redirect of a folder's page.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const COMMANDS = ["tests/cli/commands_test.ts"];

export const mutants: Mutant[] = [
  {
    name: "cli-flag-message-raw",
    guarantee:
      "An unknown flag is reported in aim's own words (unknown option --bogus), not parseArgs' message with its open quote.",
    file: "bridge/cli/common.ts",
    find: "return `unknown option ${named}`;",
    replace: "return message;",
    tests: COMMANDS,
  },
  {
    name: "cli-implied-serve-usage",
    guarantee: "aim --bogus, with no command named, prints the general usage, not serve's.",
    file: "main.ts",
    find: "${named ? error.usage : USAGE}",
    replace: "${error.usage}",
    tests: COMMANDS,
  },
  {
    name: "invoke-silent-wait",
    guarantee: "aim invoke of a consequential action says that it waits for the person.",
    file: "bridge/cli/invoke.ts",
    find: 'if (await isConsequential(manifestUrl(page, "json"), auth, action)) {',
    replace: "if (false) {",
    tests: COMMANDS,
  },
  {
    name: "invoke-unknown-action-unlisted",
    guarantee: "aim invoke's unknown_action lists the actions the session offers.",
    file: "bridge/cli/invoke.ts",
    find: "const available = Array.isArray(body.available_actions)",
    replace: "const available = false",
    tests: COMMANDS,
  },
  {
    name: "hash-password-any-length",
    guarantee: "aim hash-password refuses a password under 8 characters.",
    file: "bridge/cli/hash_password.ts",
    find: "if ([...password].length < MIN_PASSWORD_LENGTH) {",
    replace: "if ([...password].length < 1) {",
    tests: COMMANDS,
  },
  {
    name: "mcp-stdio-parse-error-silent",
    guarantee:
      "aim mcp answers a line that is not JSON with -32700, rather than leave the host waiting.",
    file: "bridge/cli/mcp.ts",
    find: `else process.stdout.write(unreadable(-32700, "Parse error: the line is not JSON"));`,
    replace: "else out += line;",
    tests: ["tests/mcp/stdio_test.ts"],
  },
  {
    name: "mcp-token-flag-ignored",
    guarantee: "aim mcp reads --token as aim invoke does, with the same checks.",
    file: "bridge/cli/mcp.ts",
    find: "const token = sessionToken(values.token, io);",
    replace: "const token = sessionToken(undefined, io);",
    tests: ["tests/mcp/stdio_test.ts"],
  },
  {
    name: "check-pattern-anchored",
    guarantee: "aim check shows a pattern as the page writes it, not as the manifest anchors it.",
    file: "bridge/site/check.ts",
    find: ".map((p) => ({ ...p, message: written(p.message) }))",
    replace: ".map((p) => p)",
    tests: ["tests/cli/check_test.ts"],
  },
  {
    name: "public-manifest-omits-logout",
    guarantee:
      "The public manifest lists every action the page can offer, logout (which needs signing in) too.",
    file: "bridge/core/actions.ts",
    find: "return [...this.#specs.values()];",
    replace: 'return [...this.#specs.values()].filter((a) => a.id !== "logout");',
    tests: ["tests/protocol/manifest_test.ts"],
  },
  {
    name: "login-offered-without-users",
    guarantee: "A site without users offers no login: no manifest lists it and invoking it is 404.",
    file: "bridge/core/server_actions.ts",
    find: "if (!users) return [disconnect];",
    replace: "",
    tests: ["tests/protocol/manifest_test.ts"],
  },
  {
    name: "builtin-ids-free-without-users",
    guarantee: "On a site without users, a page or tab still cannot take the ids login and logout.",
    file: "bridge/core/actions.ts",
    find: "|| isActionIdAmong(id, BUILTIN_ACTION_IDS);",
    replace: ";",
    tests: [
      "tests/protocol/channel_test.ts",
      "tests/protocol/confirm_wait_test.ts",
      "tests/protocol/lease_test.ts",
    ],
  },
  {
    name: "manifest-sitemap-toon",
    guarantee: "A manifest's sitemap field points at sitemap.json.",
    file: "bridge/core/manifests.ts",
    find: "sitemap: `${origin}/sitemap.json`,",
    replace: "sitemap: `${origin}/sitemap.toon`,",
    tests: ["tests/protocol/manifest_test.ts"],
  },
  {
    name: "folder-page-no-redirect",
    guarantee:
      "A folder's page asked for as /docs is redirected to /docs/, where its relative URLs work.",
    file: "bridge/http/site_routes.ts",
    find: "if (decoded !== null && await isFolderPage(core.catalog.root, decoded, file)) {",
    replace: "if (false) {",
    tests: ["tests/protocol/static_test.ts"],
  },
  {
    name: "folder-redirect-protocol-relative",
    guarantee: "The redirect of //docs never names another host (//docs/ would).",
    file: "bridge/http/site_routes.ts",
    find: '${c.req.path.replace(/^\\/+/, "/")}/${query}',
    replace: "${c.req.path}/${query}",
    tests: ["tests/protocol/static_test.ts"],
  },
  {
    name: "sitemap-path-without-slash",
    guarantee: "The site map publishes a folder's page at the path it works at, /docs/.",
    file: "bridge/core/manifests.ts",
    find: "path: pageLocation(p.page, p.file),",
    replace: "path: p.page,",
    tests: ["tests/protocol/static_test.ts"],
  },
  {
    name: "public-example-items-action",
    guarantee:
      "The public invoke_example is never an items= action, whose placeholder example the invoke refuses.",
    file: "bridge/core/manifests.ts",
    find: "(a) => !itemActions.includes(a.id),",
    replace: "() => true,",
    tests: ["tests/protocol/manifest_test.ts"],
  },
  {
    name: "item-after-hidden-text",
    guarantee:
      "An item action's after is the text a person sees, without text hidden for screen readers.",
    file: "elements/bindings.ts",
    find: "const shown = now && seenText(now);",
    replace: 'const shown = now && ((now as HTMLElement).innerText ?? "");',
    tests: ["tests/browser/item_actions_test.ts"],
  },
  {
    name: "health-check-logged",
    guarantee: "A passed health check (GET /__aim/health, 2xx) is left out of the request log.",
    file: "bridge/http/middleware.ts",
    find: "if (c.req.path === HEALTH_PATH && c.res.status < 300) return;",
    replace: "",
    tests: ["tests/cli/serve_test.ts", "tests/cli/file_limit_test.ts"],
  },
  {
    name: "scaling-nginx-no-map",
    guarantee:
      "docs/scaling.md's nginx configuration defines $connection_upgrade, which nginx -t needs.",
    file: "docs/scaling.md",
    find: "map $http_upgrade $connection_upgrade {",
    replace: "map $http_upgrade $connection_upgraded {",
    tests: ["tests/cluster/docs_configs_test.ts"],
  },
  {
    name: "a2a-doc-curl-unknown-action",
    guarantee: "docs/a2a.md's curl example sends an action the demo offers, and the test runs it.",
    file: "docs/a2a.md",
    find: `"data": {"actionId": "filter_requests", "input": "pending"}`,
    replace: `"data": {"actionId": "search", "input": "pending"}`,
    tests: ["tests/a2a/docs_test.ts"],
  },
  {
    name: "elements-doc-tabs-recipe-broken",
    guarantee:
      "docs/elements.md's recipe for choosing one of N tabs works as written in a browser.",
    file: "docs/elements.md",
    find: `items=".views [role=tab]" click=":scope"`,
    replace: `items=".views a" click=":scope"`,
    tests: ["tests/browser/elements_doc_test.ts"],
  },
  {
    name: "install-shim-no-npx-fallback",
    guarantee:
      "The installed aim still runs once npx's cache (where its Deno was) is cleared: deno on the PATH, else npx.",
    file: "bridge/cli/install.ts",
    find: '[ -n "$DENO" ] || exec npx -y ${quote(`deno@${version}`)} ${args}\n',
    replace: "",
    tests: ["tests/cli/install_test.ts"],
  },
];
