/**
 * Unit tests of elements/prompt.ts `ApproveGate`, the one rule for a prompt's Approve button, run
 * in Deno with stand-ins for what it reads of the browser (the document's visibility, an
 * IntersectionObserver, pointer and focus events) and a clock of its own: Approve works only once
 * the prompt has been on screen, visible and unchanged for READ_DELAY_MS, and after a withdrawn
 * prompt (or a change) only once the pointer moved onto it or the keyboard came to Approve
 * afresh. tests/security/prompt_test.ts holds the same rule in Chromium; these are the tests
 * `deno task mutate elements/prompt.ts` runs per mutant.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ApproveGate, READ_DELAY_MS } from "../../elements/prompt.ts";

// --- Stand-ins -------------------------------------------------------------------------------

const globals = globalThis as unknown as Record<string, unknown>;

class FakeDocument extends EventTarget {
  visibilityState: DocumentVisibilityState = "visible";
}
const document = new FakeDocument();
globals.document = document;

class FakeObserver {
  static all: FakeObserver[] = [];
  observed: unknown[] = [];
  disconnected = false;
  constructor(readonly callback: (entries: { isIntersecting: boolean }[]) => void) {
    FakeObserver.all.push(this);
  }
  observe(target: unknown): void {
    this.observed.push(target);
  }
  disconnect(): void {
    this.disconnected = true;
  }
}
globals.IntersectionObserver = FakeObserver;

/** The prompt's element: whether a press lands on Approve, whether Approve has visible focus. */
class Box extends EventTarget {
  onApprove = false;
  focusVisible = false;
  closest(selector: string): Box | null {
    return selector === ".approve" && this.onApprove ? this : null;
  }
  matches(selector: string): boolean {
    return selector === ".approve:focus-visible" && this.focusVisible;
  }
}

/** `box` where the gate takes an element. */
const element = (box: Box) => box as unknown as Element;

/** Tells the observers of `box` whether it is on screen; the last entry is the latest. */
function onScreen(box: Box, visible: boolean): void {
  for (const observer of FakeObserver.all) {
    if (observer.disconnected || !observer.observed.includes(box)) continue;
    observer.callback([{ isIntersecting: !visible }, { isIntersecting: !visible }, {
      isIntersecting: visible,
    }]);
  }
}

/** A pointer event at screen coordinates. */
function pointer(type: string, x: number, y: number): Event {
  const event = new Event(type);
  Object.defineProperties(event, { screenX: { value: x }, screenY: { value: y } });
  return event;
}

/** Moves the pointer on the page (the module tracks it on the window). */
function movePointer(x: number, y: number): void {
  globalThis.dispatchEvent(pointer("pointermove", x, y));
}

/** A clock of the test's own for setTimeout and clearTimeout. */
class Clock {
  now = 0;
  #next = 1;
  #timers = new Map<number, { at: number; run: () => void }>();
  #saved = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };

  install(): void {
    globals.setTimeout = (run: () => void, ms = 0) => {
      const id = this.#next++;
      this.#timers.set(id, { at: this.now + ms, run });
      return id;
    };
    globals.clearTimeout = (id: number | undefined) => {
      if (id !== undefined) this.#timers.delete(id);
    };
  }

  uninstall(): void {
    globals.setTimeout = this.#saved.setTimeout;
    globals.clearTimeout = this.#saved.clearTimeout;
  }

  get pending(): number {
    return this.#timers.size;
  }

  tick(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.#timers].filter(([, t]) =>
        t.at <= until
      ).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.now = due[1].at;
      due[1].run();
    }
    this.now = until;
  }
}

/** Runs `fn` with a fresh clock, a visible document, and the last prompt answered. */
function withClock(fn: (clock: Clock) => void): () => void {
  return () => {
    const clock = new Clock();
    clock.install();
    document.visibilityState = "visible";
    FakeObserver.all = [];
    try {
      new ApproveGate(() => {}).close(true);
      fn(clock);
    } finally {
      clock.uninstall();
    }
  };
}

/** A gate on a new box, with a count of its changes. */
function gate(text = "Approve req-3?"): { gate: ApproveGate; box: Box; changes: () => number } {
  let changes = 0;
  const made = new ApproveGate(() => changes++);
  const box = new Box();
  made.watch(element(box), text);
  return { gate: made, box, changes: () => changes };
}

// --- Reading time ----------------------------------------------------------------------------

// First: no test before it moved the pointer on the page.
Deno.test(
  "before the pointer moved on the page at all, any movement on a prompt after a withdrawn one counts",
  withClock((clock) => {
    new ApproveGate(() => {}).close(false);
    const { gate: g, box } = gate();
    onScreen(box, true);
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, false);
    box.dispatchEvent(pointer("pointermove", 1, 1));
    assert.equal(g.armed, true);
  }),
);

// --- Closing and moving --------------------------------------------------------------------------

Deno.test(
  "Approve works once the prompt has been on screen and visible for the whole delay",
  withClock((clock) => {
    const { gate: g, box, changes } = gate();
    assert.equal(g.replaced, false);
    assert.equal(g.armed, false);
    clock.tick(READ_DELAY_MS * 5);
    assert.equal(g.armed, false, "not on screen yet: no reading time");
    onScreen(box, true);
    clock.tick(READ_DELAY_MS - 1);
    assert.equal(g.armed, false);
    assert.equal(changes(), 0);
    clock.tick(1);
    assert.equal(g.armed, true);
    assert.equal(changes(), 1);
  }),
);

Deno.test(
  "a prompt that leaves the screen, or a hidden page, starts its reading time over",
  withClock((clock) => {
    const { gate: g, box, changes } = gate();
    onScreen(box, true);
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, true);
    onScreen(box, false);
    assert.equal(g.armed, false);
    assert.equal(changes(), 2);
    clock.tick(READ_DELAY_MS * 2);
    assert.equal(g.armed, false, "off screen, no time counts");
    onScreen(box, true);
    clock.tick(READ_DELAY_MS / 2);
    onScreen(box, true);
    clock.tick(READ_DELAY_MS / 2);
    assert.equal(g.armed, true, "the same state again restarts nothing");
    document.visibilityState = "hidden";
    document.dispatchEvent(new Event("visibilitychange"));
    assert.equal(g.armed, false);
    clock.tick(READ_DELAY_MS * 2);
    assert.equal(g.armed, false, "a hidden page reads nothing");
    document.visibilityState = "visible";
    document.dispatchEvent(new Event("visibilitychange"));
    clock.tick(READ_DELAY_MS - 1);
    assert.equal(g.armed, false);
    clock.tick(1);
    assert.equal(g.armed, true);
  }),
);

Deno.test(
  "a prompt whose text changes reads again from the start, and must be pointed at again",
  withClock((clock) => {
    movePointer(5, 5);
    const { gate: g, box } = gate("first");
    onScreen(box, true);
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, true);
    g.watch(element(box), "first");
    assert.equal(g.armed, true, "the same text is no change");
    g.watch(element(box), "second");
    assert.equal(g.armed, false);
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, false, "read, but not pointed at since it changed");
    box.dispatchEvent(pointer("pointermove", 5, 5));
    assert.equal(g.armed, false, "a pointer that did not move is no movement");
    box.dispatchEvent(pointer("pointermove", 6, 5));
    assert.equal(g.armed, true);
  }),
);

// --- After a withdrawn prompt ----------------------------------------------------------------

Deno.test(
  "after a withdrawn prompt, the next says so and needs a movement onto it, not a press on Approve",
  withClock((clock) => {
    new ApproveGate(() => {}).close(false);
    movePointer(10, 20);
    const { gate: g, box } = gate();
    assert.equal(g.replaced, true);
    onScreen(box, true);
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, false);
    box.dispatchEvent(pointer("pointermove", 10, 20));
    box.dispatchEvent(pointer("pointerdown", 10, 20));
    assert.equal(g.armed, false, "where the pointer already was");
    box.onApprove = true;
    box.dispatchEvent(pointer("pointerdown", 11, 20));
    assert.equal(g.armed, false, "a press on Approve is the click to refuse");
    box.onApprove = false;
    box.dispatchEvent(pointer("pointerdown", 10, 21));
    assert.equal(g.armed, true, "a touch on the prompt");
    // Answered: the next prompt is not a replacement.
    g.close(true);
    assert.equal(gate().gate.replaced, false);
  }),
);

Deno.test(
  "after a withdrawn prompt, a movement counts on the prompt anywhere the pointer did not start",
  withClock((clock) => {
    new ApproveGate(() => {}).close(false);
    movePointer(10, 20);
    const { gate: g, box } = gate();
    onScreen(box, true);
    box.dispatchEvent(pointer("pointermove", 10, 21));
    assert.equal(g.armed, false, "moved, but not read yet");
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, true);
  }),
);

Deno.test(
  "after a withdrawn prompt, the keyboard arms it by coming to Approve with visible focus only",
  withClock((clock) => {
    new ApproveGate(() => {}).close(false);
    const { gate: g, box } = gate();
    onScreen(box, true);
    clock.tick(READ_DELAY_MS);
    box.dispatchEvent(new Event("focusin"));
    assert.equal(g.armed, false, "a click's focus");
    box.focusVisible = true;
    box.dispatchEvent(new Event("focusin"));
    assert.equal(g.armed, true);
  }),
);

Deno.test(
  "a touch on the page counts as where the pointer is, as a movement does",
  withClock((clock) => {
    new ApproveGate(() => {}).close(false);
    globalThis.dispatchEvent(pointer("pointerdown", 30, 40));
    const { gate: g, box } = gate();
    onScreen(box, true);
    clock.tick(READ_DELAY_MS);
    box.dispatchEvent(pointer("pointermove", 30, 40));
    assert.equal(g.armed, false, "where the touch was");
    box.dispatchEvent(pointer("pointermove", 30, 41));
    assert.equal(g.armed, true);
  }),
);

Deno.test(
  "a closed prompt never arms, stops listening, and closes once",
  withClock((clock) => {
    const { gate: g, box, changes } = gate();
    onScreen(box, true);
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, true);
    const observer = FakeObserver.all.at(-1)!;
    g.close(true);
    assert.equal(g.armed, false);
    assert.equal(observer.disconnected, true);
    assert.equal(clock.pending, 0);
    const before = changes();
    onScreen(box, true);
    document.dispatchEvent(new Event("visibilitychange"));
    box.dispatchEvent(pointer("pointermove", 99, 99));
    clock.tick(READ_DELAY_MS * 2);
    g.watch(element(new Box()), "other");
    clock.tick(READ_DELAY_MS * 2);
    assert.equal(g.armed, false);
    assert.equal(changes(), before);
    // A second close is no answer: it does not mark the prompt withdrawn.
    g.close(false);
    assert.equal(gate().gate.replaced, false);
  }),
);

Deno.test(
  "closing a prompt before its reading time is over cancels it",
  withClock((clock) => {
    const { gate: g, box } = gate();
    onScreen(box, true);
    clock.tick(READ_DELAY_MS / 2);
    g.close(true);
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, false);
  }),
);

Deno.test(
  "a prompt shown in another element is watched there, and no longer in the first",
  withClock((clock) => {
    const { gate: g, box: first } = gate();
    onScreen(first, true);
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, true);
    const second = new Box();
    g.watch(element(second), "Approve req-3?");
    assert.equal(FakeObserver.all[0]!.disconnected, true);
    // The new element's observer says at once that it is on screen: read again.
    onScreen(second, true);
    assert.equal(g.armed, false);
    onScreen(first, false);
    onScreen(first, true);
    clock.tick(READ_DELAY_MS - 1);
    assert.equal(g.armed, false, "the first element is not watched");
    clock.tick(1);
    assert.equal(g.armed, true);
    // Watching the same element again adds no second observer.
    const observers = FakeObserver.all.length;
    g.watch(element(second), "Approve req-3?");
    assert.equal(FakeObserver.all.length, observers);
  }),
);

Deno.test(
  "after a withdrawn prompt, events on an element no longer watched arm nothing",
  withClock((clock) => {
    new ApproveGate(() => {}).close(false);
    const { gate: g, box: first } = gate();
    const second = new Box();
    g.watch(element(second), "Approve req-3?");
    onScreen(second, true);
    clock.tick(READ_DELAY_MS);
    first.dispatchEvent(pointer("pointermove", 40, 40));
    first.focusVisible = true;
    first.dispatchEvent(new Event("focusin"));
    assert.equal(g.armed, false);
    second.dispatchEvent(pointer("pointermove", 40, 40));
    assert.equal(g.armed, true);
  }),
);
