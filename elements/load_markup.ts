/**
 * Loads `<aim-action>`'s markup reader (elements/action_markup.ts, a chunk of its own) once
 * something needs the page's declarations: the client once the page's session is open, before
 * its channel opens (elements/client.ts `beforeChannel`), WebMCP before it offers them as tools,
 * the panel before it lists them. Until then, an
 * `<aim-action>`'s `declaration()` is null; a page a visitor merely loads never reads it.
 *
 * @module
 */
import { warn } from "./warnings.ts";

/** The reader, once loaded. */
let reader: typeof import("./action_markup.ts") | undefined;
/** The load, once started; it resolves whether or not the chunk came. */
let loading: Promise<void> | undefined;
/** The chunk could not load: declarations are read without `<aim-action>`s until a reload. */
let failed = false;

/** The markup reader, or undefined until it loaded. */
export function actionMarkup(): typeof import("./action_markup.ts") | undefined {
  return reader;
}

/**
 * Whether reading `actions` waits for the markup reader: one of them is an `<aim-action>`, and
 * the reader has not loaded (nor failed to).
 */
export function markupPending(actions: Iterable<{ localName?: string }>): boolean {
  return !reader && !failed && [...actions].some((a) => a.localName === "aim-action");
}

/**
 * Loads the markup reader, once; resolves when it is loaded, or when it could not be (then the
 * console says so, and `<aim-action>`s stay unregistered until the page is loaded again).
 */
export function loadActionMarkup(): Promise<void> {
  return loading ??= import("./action_markup.ts").then(
    (module) => void (reader = module),
    (error) => {
      failed = true;
      warn("chunk-not-loaded", ["action markup", error]);
    },
  );
}
