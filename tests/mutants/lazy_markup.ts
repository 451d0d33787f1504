/**
 * Named mutants of `<aim-action>`'s markup reader loading on demand (elements/load_markup.ts):
 * a page without one never loads it, a page whose session opens opens its channel only once it
 * is loaded and registers its actions then, never an empty list first (nor says it settled a
 * sign-in before), and one that cannot load it registers the rest.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const BUNDLE = "tests/browser/bundle_test.ts";
const CHUNK = "tests/browser/markup_chunk_test.ts";

export const mutants: Mutant[] = [
  {
    name: "markup-loaded-without-actions",
    guarantee: "A page that declares no <aim-action> never loads the markup reader's chunk.",
    file: "elements/load_markup.ts",
    find: `[...actions].some((a) => a.localName === "aim-action")`,
    replace: "true",
    tests: [BUNDLE],
  },
  {
    name: "markup-registered-before-reader",
    guarantee: "A tab whose session opens registers its actions once the markup reader loaded: " +
      "its first register holds them, so the bridge never holds the page without them.",
    file: "elements/client.ts",
    find: "    if (this.#markupFirst()) return;\n    this.#register();\n",
    replace: "    this.#register();\n",
    tests: [BUNDLE, CHUNK],
  },
  {
    name: "markup-failure-waited-for",
    guarantee: "A markup reader that could not be fetched is not waited for: the page registers " +
      "its state (and warns once) without its <aim-action>s.",
    file: "elements/load_markup.ts",
    find: "      failed = true;\n",
    replace: "",
    tests: [BUNDLE],
  },
  {
    name: "markup-settled-before-reader",
    guarantee: "A tab that hears of a sign-in while the markup reader loads says it settled only " +
      "after its actions and state went, so the sign-in is answered with the page's state.",
    file: "elements/client.ts",
    find: "          if (this.#markupFirst()) await loadActionMarkup();\n",
    replace: "",
    tests: [CHUNK],
  },
  {
    name: "markup-channel-before-reader",
    guarantee: "A tab opens its channel only once the markup reader loaded: it is connected, its " +
      "token working, only with the page's actions registered, so an agent's first call finds them.",
    file: "elements/client.ts",
    find: "const markup = () => markupPending(this.actions) ? loadActionMarkup() : undefined;",
    replace: "const markup = () => undefined;",
    tests: [CHUNK],
  },
  {
    name: "markup-channel-not-waited",
    guarantee: "The channel waits for what the client needs before it opens (beforeChannel).",
    file: "elements/client_link.ts",
    find: "    if (ready) await ready;\n",
    replace: "",
    tests: [CHUNK],
  },
];
