/**
 * Named mutants of what a person confirms: Approve works only once the
 * prompt was read (and pointed at again after a replacement), a replaced prompt says so, and
 * what the person reads of an agent's input hides nothing and keeps the buttons in view.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

/** The browser tests of the prompt: the bait and switch, and what the person reads. */
const PROMPT_TESTS = [
  "tests/security/prompt_test.ts",
  "tests/security/prompt_text_test.ts",
];

export const mutants: Mutant[] = [
  {
    name: "prompt-read-delay-zero",
    guarantee: "Approve works only once the prompt has been on screen, unchanged, for the read " +
      "delay: a click or a key that lands at once approves nothing.",
    file: "elements/prompt.ts",
    find: "export const READ_DELAY_MS = 1000;",
    replace: "export const READ_DELAY_MS = 0;",
    tests: PROMPT_TESTS,
  },
  {
    name: "prompt-replaced-needs-no-pointer",
    guarantee: "After a replacement, Approve works only once the pointer moved onto the new " +
      "prompt (or the focus came to Approve afresh).",
    file: "elements/prompt.ts",
    find: "#moved = !this.replaced;",
    replace: "#moved = true;",
    tests: PROMPT_TESTS,
  },
  {
    name: "prompt-tap-on-approve-arms",
    guarantee: "After a replacement, a press on Approve itself (a tap, a click without a " +
      "movement) does not count as coming onto the new prompt.",
    file: "elements/prompt.ts",
    find: 'if (type === "pointerdown" && (target as Element).closest?.(".approve")) return;',
    replace: "",
    tests: PROMPT_TESTS,
  },
  {
    name: "prompt-click-focus-arms",
    guarantee: "Only the keyboard's focus on Approve counts as coming onto the new prompt, not " +
      "the focus a click or a tap gives it.",
    file: "elements/prompt.ts",
    find: '.matches?.(".approve:focus-visible")',
    replace: '.matches?.(".approve")',
    tests: PROMPT_TESTS,
  },
  {
    name: "prompt-withdrawal-forgotten",
    guarantee: "A prompt that follows one withdrawn before the person answered it says that it " +
      "replaced one.",
    file: "elements/prompt.ts",
    find: "withdrawn = !answered;",
    replace: "withdrawn = false;",
    tests: PROMPT_TESTS,
  },
  {
    name: "prompt-escapes-nothing",
    guarantee: "Control, format, bidirectional and zero-width characters of an agent's input " +
      "show as visible escapes wherever a person reads it.",
    file: "elements/prompt.ts",
    find: 'shown += HIDDEN.test(char) && !(lines && char === "\\n") ? escape(char) : char;',
    replace: "shown += char;",
    tests: ["tests/unit/prompt_test.ts", ...PROMPT_TESTS],
  },
  {
    name: "prompt-input-never-cut",
    guarantee: "A very long input is cut, and the prompt says how many characters it leaves out.",
    file: "elements/prompt.ts",
    find: "max: MAX_SHOWN_CHARS });",
    replace: "max: Infinity });",
    tests: ["tests/unit/prompt_test.ts", ...PROMPT_TESTS],
  },
  {
    name: "panel-approves-unarmed",
    guarantee: "The panel's Approve does nothing before its gate is armed.",
    file: "elements/client_controller.ts",
    find: "if (approved && !this.pending?.gate.armed) return;",
    replace: "",
    tests: PROMPT_TESTS,
  },
  {
    name: "dialog-approves-unarmed",
    guarantee: "The dialog's Approve does nothing before its gate is armed.",
    file: "elements/confirm_dialog.ts",
    find: "if (e.submitter === approve && !gate.armed) return e.preventDefault();",
    replace: "",
    tests: PROMPT_TESTS,
  },
  {
    name: "panel-log-unescaped",
    guarantee: "The panel's activity log shows the action id an agent sent with its hidden " +
      "characters escaped.",
    file: "elements/aim_panel.ts",
    find: "<code>${readable(a.actionId).text}</code>",
    replace: "<code>${a.actionId}</code>",
    tests: PROMPT_TESTS,
  },
  {
    name: "panel-input-unbounded",
    guarantee: "In the panel, a long input scrolls in its own box: Approve and Decline stay on " +
      "screen.",
    file: "elements/aim_panel.ts",
    find: "pre{white-space:pre-wrap;word-break:break-all;max-height:min(12em,30vh);overflow:auto}",
    replace: "pre{white-space:pre-wrap;word-break:break-all}",
    tests: PROMPT_TESTS,
  },
];
