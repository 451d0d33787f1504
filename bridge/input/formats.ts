/**
 * The `format`s the bridge checks, and an example value of each. Each is zod's own regular
 * expression for it (`z.regexes`), run on the bridge's linear-time matcher (RE2, see
 * pattern.ts) like a schema's `pattern`, or the platform's URL parser: never a backtracking
 * `RegExp` on agent input. A format not listed here only annotates, as JSON Schema says of
 * formats by default.
 *
 * @module
 */
import { z } from "zod";

/** How the bridge checks one format. */
export interface FormatCheck {
  /** A pattern (ECMAScript, `u` flag) the whole value must match, run with RE2. */
  pattern?: string;
  /** The value, as the pattern sees it (a time is checked as the time of a date-time). */
  prefix?: string;
  /** The longest value checked; a longer one does not have the format. */
  maxLength: number;
  /** A check that needs no pattern (a URI: the platform's URL parser). */
  test?: (value: string) => boolean;
  /** A value of the format, for examples. */
  example: string;
}

const DATE_TIME = z.regexes.datetime({ offset: true, local: false, precision: null }).source;

/**
 * zod's hostname pattern without its lookahead, which RE2 lacks: it only bounds the length,
 * which `maxLength` does here.
 */
const HOSTNAME = z.regexes.hostname.source.replace("(?=.{1,253}\\.?$)", "");

/** The formats checked, by name. */
export const FORMATS: Readonly<Record<string, FormatCheck>> = {
  email: { pattern: z.regexes.html5Email.source, maxLength: 254, example: "user@example.com" },
  uuid: {
    pattern: z.regexes.uuid().source,
    maxLength: 36,
    example: "00000000-0000-4000-8000-000000000000",
  },
  date: { pattern: z.regexes.date.source, maxLength: 10, example: "2026-01-01" },
  "date-time": { pattern: DATE_TIME, maxLength: 64, example: "2026-01-01T00:00:00Z" },
  time: { pattern: DATE_TIME, prefix: "2026-01-01T", maxLength: 40, example: "12:00:00Z" },
  ipv4: { pattern: z.regexes.ipv4.source, maxLength: 15, example: "192.0.2.1" },
  ipv6: { pattern: z.regexes.ipv6.source, maxLength: 45, example: "2001:db8::1" },
  hostname: { pattern: HOSTNAME, maxLength: 253, example: "example.com" },
  uri: {
    maxLength: 8192,
    // An absolute URI: the parser refuses one without a scheme.
    test: (value) => URL.canParse(value),
    example: "https://example.com/",
  },
};

/** The formats checked, as a list for documentation. */
export const CHECKED_FORMATS: readonly string[] = Object.keys(FORMATS);
