/**
 * `<aim-action>`'s markup reader, a chunk of the elements of its own (`elements.markup.js`): the
 * one reading of an action's attributes, fields and form that the bridge's HTML scan shares
 * (bridge/markup/action.ts), `open=`'s reading included (bridge/markup/open.ts), which the
 * bindings are handed. A page needs it once its declarations are read: when its session is
 * open, before its channel opens (the client registers them with the bridge as soon as it is),
 * when WebMCP offers them as tools, or when an `<aim-panel>` lists them; elements/load_markup.ts
 * loads it then.
 *
 * @module
 */
export { actionItems, readAction } from "../bridge/markup/action.ts";
export { readOpen } from "../bridge/markup/open.ts";
