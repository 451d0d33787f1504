/**
 * Named mutants of issue 33's gestures: an action presses and fills as a person does, a page that
 * stops what the agent started is reported and shows the person no dialog, an action that leaves
 * the page answers with the next one (here, at `pagehide`, on another instance, along a route,
 * without secrets), `<aim-tool read-only>` with its limits and its record, declarative forms
 * followed live, and the prompt outlining and naming what an action will act on.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const GESTURES = "tests/browser/gestures_test.ts";
const LEAVING = "tests/browser/leaving_test.ts";
const FORMS = "tests/browser/webmcp_forms_test.ts";
const TARGET = "tests/browser/target_test.ts";
const CLUSTER = "tests/cluster/browser_cluster_test.ts";
const UNITS = [
  "tests/unit/webmcp_tools_test.ts",
  "tests/unit/webmcp_tool_markup_test.ts",
];

export const mutants: Mutant[] = [
  {
    name: "gesture-submitter-not-clicked",
    guarantee: "submitter= presses the button as a person does: its own click listeners run " +
      "(a wiki clears its unsaved-changes guard there) before the browser submits.",
    file: "elements/gestures.ts",
    find: "    if (button) button.click();\n    else form.requestSubmit();",
    replace: "    form.requestSubmit(button);",
    tests: [GESTURES],
  },
  {
    name: "gesture-chunk-failure-unanswered",
    guarantee: "An invocation whose code the page could not load is answered at once (and the " +
      "next one loads it again), never left to time out.",
    file: "elements/client.ts",
    find: "this.#gestures = undefined;",
    replace: "return;",
    tests: [GESTURES],
  },
  {
    name: "gesture-guard-not-asked",
    guarantee: "A navigation the agent started asks the page's beforeunload guard first: when it " +
      "would stop it, the agent is told so in its words, never answered 200.",
    file: "elements/leaving.ts",
    find: "const message = guardMessage();",
    replace: "const message: string | null = null;",
    tests: [GESTURES],
  },
  {
    name: "gesture-guard-dialog-shown",
    guarantee: "A navigation the page's guard would stop is cancelled before the browser asks: " +
      "the person is never shown a 'Leave site?' dialog the agent caused.",
    file: "elements/leaving.ts",
    find: "    e.preventDefault();\n    this.stopped = message",
    replace: "    this.stopped = message",
    tests: [GESTURES],
  },
  {
    name: "gesture-fill-once",
    guarantee: "A field the page enables or fills only once an earlier one is chosen (a " +
      "resolution list after Resolve) is filled once the page did so, not left out.",
    file: "elements/gestures.ts",
    find: "const ROUNDS = 3;",
    replace: "const ROUNDS = 1;",
    tests: [GESTURES],
  },
  {
    name: "gesture-checkbox-list-ignored",
    guarantee: "A list checks exactly the boxes of a checkbox group whose values it holds.",
    file: "elements/gestures.ts",
    find: "  if (Array.isArray(value)) return value.map(String).includes(box.value);\n",
    replace: "",
    tests: [GESTURES],
  },
  {
    name: "gesture-form-refusal-ignored",
    guarantee: "A form the page's submit listener kept and marked invalid fails with the page's " +
      "message, never 200.",
    file: "elements/gestures.ts",
    find: "export function formProblem(form: HTMLFormElement): string {",
    replace: 'export function formProblem(form: HTMLFormElement): string {\n  if (form) return "";',
    tests: [GESTURES],
  },
  {
    name: "gesture-validation-refusal-ignored",
    guarantee: "A press the browser's validation refused fails with the browser's message.",
    file: "elements/leaving.ts",
    find: "const refused = this.invalid && this.#pressed && !this.#submitted;",
    replace: "const refused = false;",
    tests: [GESTURES],
  },
  {
    name: "leaving-not-said",
    guarantee: "An action that loads another page answers once the next page holds the session, " +
      "with navigating_to, page and that page's state, never the old page's as settled.",
    file: "elements/leaving.ts",
    find: "      ...(leaving && { leaving: leaving.kind }),",
    replace: "",
    tests: [LEAVING, GESTURES],
  },
  {
    name: "leaving-no-answer-at-pagehide",
    guarantee: "A page hidden for good before its answer went out answers then: the channel " +
      "closes next, and the agent would get browser_not_connected for an action that ran.",
    file: "elements/leaving.ts",
    find: "    if (!this.#done) this.#onLeave();",
    replace: "",
    tests: [LEAVING],
  },
  {
    name: "leaving-route-page-unsaid",
    guarantee: "A single-page app's route an action moved to is the answer's page.",
    file: "bridge/core/arrival.ts",
    find: "const moved = hosts !== null && session.tab.holder === from;",
    replace: "const moved = false;",
    tests: [LEAVING],
  },
  {
    name: "leaving-url-keeps-secrets",
    guarantee: "Where the tab went is said without query parameters that look like secrets.",
    file: "bridge/core/arrival.ts",
    find: "    if (SECRET_KEY.test(name)) url.searchParams.delete(name);\n",
    replace: "",
    tests: [LEAVING],
  },
  {
    name: "leaving-next-page-elsewhere-unseen",
    guarantee: "In a cluster, a next page whose tab lands on another instance is the answer's " +
      "page (seen through the shared store), not null.",
    file: "bridge/core/arrival.ts",
    find: "  if (!ctx.sessions.share.shared) return await here;",
    replace: "  if (ctx.sessions.share.shared !== undefined) return await here;",
    tests: [CLUSTER],
  },
  {
    name: "leaving-state-tab-not-shared",
    guarantee: "The instance holding a tab that reported its state says so in the shared store, " +
      "so that another instance waiting for that next page sees it come.",
    file: "bridge/core/shared_copies.ts",
    find: "      ...(holder?.reported ? { stateTab: holder.id } : {}),\n",
    replace: "",
    tests: [CLUSTER],
  },
  {
    name: "tool-read-only-over-destructive",
    guarantee: "<aim-tool read-only> never makes a tool that says destructiveHint or " +
      "consequentialHint run without the person.",
    file: "bridge/wire/webmcp_tools.ts",
    find: "return !reads || saysConsequences(hints) || markup.consequential === true;",
    replace: "return !reads || markup.consequential === true;",
    tests: [...UNITS, FORMS],
  },
  {
    name: "tool-read-only-unchecked-hints",
    guarantee: "<aim-tool read-only> counts only where aim saw the tool's own hints (Chromium " +
      "lists no destructiveHint): otherwise the person is still asked.",
    file: "elements/page_tools.ts",
    find: "if (owner?.readOnly && registered === undefined && !declarative) {",
    replace: "if (false) {",
    tests: [FORMS],
  },
  {
    name: "tool-read-only-unrecorded",
    guarantee: "A tool that ran unasked on the site owner's word alone is recorded so in the " +
      "activity log (read_only_by: site_owner).",
    file: "bridge/core/invocations.ts",
    find: "if (spec.read_only_by) call.readOnlyBy = spec.read_only_by;",
    replace: "",
    tests: [FORMS],
  },
  {
    name: "tool-markup-not-in-catalog",
    guarantee: "The public catalog reads <aim-tool> for a page's forms as the page does: a form " +
      "marked read-only is no consequential floor, a hidden one is not listed.",
    file: "bridge/site/catalog.ts",
    find: "const mapped = actionOfTool(tool, owner);",
    replace: "const mapped = actionOfTool(tool);",
    tests: [...UNITS, FORMS],
  },
  {
    name: "forms-not-observed-live",
    guarantee: "Without the WebMCP flag, a form that gains, changes or loses toolname after load " +
      "is added, changed or withdrawn.",
    file: "elements/webmcp_api.ts",
    find: "}).observe(document, {",
    replace: '}).observe(document.createElement("div"), {',
    tests: [FORMS],
  },
  {
    name: "prompt-target-not-outlined",
    guarantee: "While a prompt waits, what the action will act on is outlined and scrolled into " +
      "view.",
    file: "elements/confirm_dialog.ts",
    find: "const unmark = outline(target?.elements ?? []);",
    replace: "const unmark = outline([]);",
    tests: [TARGET],
  },
  {
    name: "prompt-target-not-named",
    guarantee: "The prompt names in words what the action will act on (the row req-3).",
    file: "elements/confirm_dialog.ts",
    find: "const asked = target ? { ...request, target: target.words } : request;",
    replace: "const asked = request;",
    tests: [TARGET],
  },
  {
    name: "prompt-target-outline-kept",
    guarantee: "The outline goes with the prompt, leaving the page as it was.",
    file: "elements/confirm_dialog.ts",
    find: "    } finally {\n      unmark();\n    }",
    replace: "    } finally {\n      void unmark;\n    }",
    tests: [TARGET],
  },
  {
    name: "channel-before-page-scripts",
    guarantee:
      "The tab offers the page's actions only once its deferred and module scripts ran, so an agent's first click is a person's.",
    file: "elements/client.ts",
    find: "    if (contentLoaded()) return markup();",
    replace: "    if (contentLoaded() || true) return markup();",
    tests: ["tests/browser/page_ready_test.ts"],
  },
];
