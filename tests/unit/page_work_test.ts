/**
 * Three small parts of the elements that need no DOM, imported directly under Deno: the work a
 * page declares for one invocation (elements/work.ts) with a fake `document` and frame, where
 * the tab keeps its session across reloads (elements/session_storage.ts, on Deno's own
 * `sessionStorage`), and the markup reader loaded once it is needed (elements/load_markup.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import { Work } from "../../elements/work.ts";
import { store, stored } from "../../elements/session_storage.ts";
import { actionMarkup, loadActionMarkup, markupPending } from "../../elements/load_markup.ts";
import { readAction } from "../../bridge/markup/action.ts";

/** Runs `fn` with a fake `document.hidden` and frame; how many frames were asked for. */
async function withPage<T>(hidden: boolean, fn: () => Promise<T>): Promise<[T, number]> {
  const saved = Object.getOwnPropertyDescriptors(globalThis);
  let frames = 0;
  Object.assign(globalThis, {
    document: { hidden },
    requestAnimationFrame: (callback: () => void) => (frames++, setTimeout(callback, 0)),
  });
  try {
    return [await fn(), frames];
  } finally {
    for (const name of ["document", "requestAnimationFrame"]) {
      if (name in saved) Object.defineProperty(globalThis, name, saved[name]!);
      else delete (globalThis as Record<string, unknown>)[name];
    }
  }
}

Deno.test("Work.done() resolves true at once when nothing was declared, with no frame", async () => {
  const [done, frames] = await withPage(false, () => new Work().done(1000));
  assert.deepEqual([done, frames], [true, 0]);
});

Deno.test("Work.done() waits for each declared piece, work declared meanwhile too, then a frame", async () => {
  const work = new Work();
  const order: string[] = [];
  const first = Promise.withResolvers<void>();
  work.waitUntil(first.promise.then(() => {
    order.push("first");
    // Declared while done() waits: waited for as well.
    work.waitUntil(
      new Promise<void>((resolve) => setTimeout(() => (order.push("second"), resolve()), 5)),
    );
  }));
  work.waitUntil("not a promise");
  const [done, frames] = await withPage(false, async () => {
    const waiting = work.done(5000).then((d) => (order.push("done"), d));
    setTimeout(first.resolve, 5);
    return await waiting;
  });
  assert.deepEqual([done, frames, order], [true, 1, ["first", "second", "done"]]);
});

Deno.test("Work.done() on a hidden page waits for no frame, and a rejection ends the work with a warning", async () => {
  const warned = Promise.withResolvers<unknown>();
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warned.resolve(args[0]);
  try {
    const work = new Work();
    work.waitUntil(Promise.reject(new Error("load failed")));
    const [done, frames] = await withPage(true, () => work.done(1000));
    assert.deepEqual([done, frames], [true, 0]);
    // The warning's words load as a chunk of their own.
    // The warning's words load as a chunk of their own: said once they have.
    assert.match(
      String(await warned.promise),
      /^\[aim\] .*\(docs\/elements\.md#wait-until-failed\)$/,
    );
  } finally {
    console.warn = warn;
  }
});

Deno.test("Work.done() answers false once its time ran out, and waits without end when given none", async () => {
  const work = new Work();
  work.waitUntil(new Promise(() => {}));
  const [done] = await withPage(false, () => work.done(20));
  assert.equal(done, false);
  const forever = new Work();
  const slow = Promise.withResolvers<void>();
  forever.waitUntil(slow.promise);
  const waiting = withPage(true, () => forever.done());
  setTimeout(slow.resolve, 30);
  assert.deepEqual(await waiting, [true, 0]);
});

Deno.test("stored() gives back only a whole session the tab stored; store(null) forgets it", () => {
  store(null);
  assert.equal(stored(), null);
  store({ token: "t", credential: "c" });
  assert.deepEqual(stored(), { token: "t", credential: "c" });
  assert.equal(sessionStorage.getItem("aim.session"), '{"token":"t","credential":"c"}');
  for (
    const text of [
      "{",
      "null",
      "1",
      '{"token":"t"}',
      '{"credential":"c"}',
      '{"token":"","credential":"c"}',
    ]
  ) {
    sessionStorage.setItem("aim.session", text);
    assert.equal(stored(), null, text);
  }
  store({ token: "t", credential: "c" });
  store(null);
  assert.equal(sessionStorage.getItem("aim.session"), null);
});

Deno.test("loadActionMarkup() loads the markup reader once, and markupPending() waits for it only for an <aim-action>", async () => {
  const actions = [{ localName: "aim-state" }, { localName: "aim-action" }];
  assert.equal(actionMarkup(), undefined);
  assert.equal(markupPending(actions), true);
  assert.equal(markupPending([{ localName: "aim-state" }, {}]), false);
  const load = loadActionMarkup();
  assert.equal(loadActionMarkup(), load, "one load");
  await load;
  assert.equal(actionMarkup()?.readAction, readAction);
  assert.equal(markupPending(actions), false);
});
