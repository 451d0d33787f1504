/**
 * `If-None-Match` (RFC 9110 §13.1.2) read in one place: `*`, or the entity tags it lists, each
 * compared weakly (`W/"x"` matches `"x"`), as a conditional GET compares them.
 *
 * @module
 */

/** What an `If-None-Match` header names. */
export interface IfNoneMatch {
  /** It is `*`: any current representation matches. */
  any: boolean;
  /** The opaque tags it lists, with their quotes and without `W/`: `"v12"`. */
  tags: string[];
}

/** The most entity tags read of one header; a longer list is cut there. */
const MAX_TAGS = 64;

/** Whether `c`, the character after an element, ends it (the header's end, a comma, a space). */
function endsElement(c: string | undefined): boolean {
  return c === undefined || c === "," || c === " " || c === "\t";
}

/**
 * The tags `header` lists. An element that is not an entity tag (no quotes, a quote missing) is
 * skipped up to the next comma; commas inside quotes belong to the tag (`etagc` allows them).
 */
export function parseIfNoneMatch(header: string | null | undefined): IfNoneMatch {
  const tags: string[] = [];
  let any = false;
  const text = header ?? "";
  let i = 0;
  while (i < text.length && tags.length < MAX_TAGS) {
    const c = text[i]!;
    if (c === "," || c === " " || c === "\t") {
      i++;
      continue;
    }
    let start = i;
    if (text.startsWith("W/", i)) start = i + 2;
    if (text[start] === '"') {
      const end = text.indexOf('"', start + 1);
      if (end >= 0 && endsElement(text[end + 1])) {
        tags.push(text.slice(start, end + 1));
        i = end + 1;
        continue;
      }
    } else if (c === "*" && endsElement(text[i + 1])) {
      any = true;
      i++;
      continue;
    }
    // Not an entity tag: skipped up to the next comma.
    const comma = text.indexOf(",", i);
    i = comma < 0 ? text.length : comma + 1;
  }
  return { any, tags };
}

/** Whether `header` names `etag` (`"…"`, weak comparison) or says `*`: the answer is then 304. */
export function namesEtag(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  const held = parseIfNoneMatch(header);
  return held.any || held.tags.includes(etag.replace(/^W\//, ""));
}
