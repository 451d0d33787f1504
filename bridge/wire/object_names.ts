/**
 * The names no key or action may take, shared by the bridge and the elements' markup reader. A
 * module of its own, importing nothing: the elements read `<aim-action>` markup in a chunk of
 * its own (elements/action_markup.ts), which must not share bridge/wire/names.ts with the
 * client.
 *
 * @module
 */

/**
 * Names of `Object.prototype` (and `prototype`), in lower case: a key or an id that code might
 * look up in a plain object, refused wherever a page names one.
 */
export const OBJECT_NAMES: ReadonlySet<string> = new Set(
  [
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "prototype",
    "toLocaleString",
    "toString",
    "valueOf",
  ].map((name) => name.toLowerCase()),
);
