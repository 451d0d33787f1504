/**
 * Which keys look like secrets (`SECRET_KEY`), and a JSON value with them removed.
 *
 * @module
 */

/** `source` (letters and `[-_]?`, `(…|…)`, `^`, `$`) matching its letters in either case. */
function anyCase(source: string): string {
  return source.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

/**
 * Words as a key spells them (`pin`, `Pin` or `PIN`, several words joined by `_`, `-`, `.` or
 * nothing, or in camelCase), matched only where they are whole words of the key: `userPin`,
 * `pin_code`, `PINCode` and `card-number` hold one; `spinner`, `pinned`, `shipping` and
 * `className` do not. Built without lookbehind, which older browsers lack.
 */
function wholeWords(...phrases: string[][]): string {
  const forms: string[] = [];
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  for (const words of phrases) {
    const lower = words.join("[-_. ]?");
    const camel = [words[0], ...words.slice(1).map(cap)].join("[-_. ]?");
    const pascal = words.map(cap).join("[-_. ]?");
    const upper = words.map((w) => w.toUpperCase()).join("[-_. ]?");
    // A word starts the key, follows a non-letter, or (capitalized) follows a lower-case letter;
    // it ends the key, comes before a non-letter, or before the capital of the next word.
    forms.push(`(?:^|[^A-Za-z])(?:${lower}|${camel})(?![a-z])`);
    forms.push(`(?:^|[^A-Z])${pascal}(?![a-z])`);
    forms.push(`(?:^|[^A-Z])${upper}(?![a-z]|[A-Z][^a-z]|[A-Z]$)`);
  }
  return forms.join("|");
}

/**
 * Key names that look like secrets: never published in state. Substrings that are never
 * innocent (`password`, `token`, `secret`, …) match anywhere; short words (`pin`, `otp`,
 * `ssn`, `cvv`, …) only as whole words of the key; `refresh` only as the whole key (a
 * `refresh_token` holds `token`; `refreshed_at` and `auto_refresh` are ordinary).
 */
export const SECRET_KEY: RegExp = new RegExp(
  [
    anyCase(
      "^pass$|pass(word|wd|phrase|code)|secret|token|api[-_]?key|auth(orization)?$|cookie|" +
        "credential|private[-_]?key|session[-_]?id|^refresh$",
    ),
    wholeWords(
      ["pwd"],
      ["pin"],
      ["pincode"],
      ["otp"],
      ["totp"],
      ["hotp"],
      ["jwt"],
      ["bearer"],
      ["ssn"],
      ["cvv"],
      ["cvc"],
      ["card", "number"],
      ["card", "num"],
      ["card", "no"],
      ["cc", "number"],
    ),
  ].join("|"),
);

/** A copy of a JSON value without keys that look like secrets, at any depth. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 32) return null;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (SECRET_KEY.test(key) || key === "__proto__") continue;
    out[key] = redactSecrets(v, depth + 1);
  }
  return out;
}
