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

/** An EventTarget that counts the listeners added to it and not removed, by type. */
class Tracked extends EventTarget {
  readonly listening = new Map<string, Set<unknown>>();
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    if (!this.listening.has(type)) this.listening.set(type, new Set());
    this.listening.get(type)!.add(listener);
    super.addEventListener(type, listener, options);
  }
  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void {
    this.listening.get(type)?.delete(listener);
    super.removeEventListener(type, listener, options);
  }
  /** The types with a listener still added. */
  types(): string[] {
    return [...this.listening].filter(([, set]) => set.size > 0).map(([type]) => type).sort();
  }
}

class FakeDocument extends Tracked {
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
class Box extends Tracked {
  onApprove = false;
  focusVisible = false;
  closest(selector: string): Box | null {
    return selector === ".approve" && this.onApprove ? this : null;
  }
  matches(selector: string): boolean {
    return selector === ".approve:focus-visible" && this.focusVisible;
  }
}

/** A target with neither `closest` nor `matches` (a text node's parent may be one). */
class Bare extends Tracked {}

/** `box` where the gate takes an element. */
const element = (box: Box | Bare) => box as unknown as Element;

/** Tells the observers of `box` whether it is on screen; the last entry is the latest. */
function onScreen(box: Box | Bare, visible: boolean): void {
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

/** The gates a test made with {@linkcode gate}, closed when it ends. */
const open: ApproveGate[] = [];

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
      // Every prompt of the test goes: none listens on into the next test.
      for (const made of open.splice(0)) made.close(true);
      clock.uninstall();
    }
  };
}

/** A gate on a new box, with a count of its changes. */
function gate(text = "Approve req-3?"): { gate: ApproveGate; box: Box; changes: () => number } {
  let changes = 0;
  const made = new ApproveGate(() => changes++);
  open.push(made);
  const box = new Box();
  made.watch(element(box), text);
  return { gate: made, box, changes: () => changes };
}

// --- Reading time ----------------------------------------------------------------------------

Deno.test("the first prompt of a page is no replacement", () => {
  // Before any test closes a gate: the module's own starting state.
  assert.equal(new ApproveGate(() => {}).replaced, false);
});

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
    // A movement onto Approve is a movement: the person points at what they approve.
    const { gate: h, box: other } = gate();
    onScreen(other, true);
    clock.tick(READ_DELAY_MS);
    other.onApprove = true;
    other.dispatchEvent(pointer("pointermove", 12, 20));
    assert.equal(h.armed, true);
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
    box.dispatchEvent(pointer("pointermove", 10, 22));
    assert.equal(g.armed, false, "moved, but never on screen");
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
    const observers = FakeObserver.all.length;
    const other = new Box();
    g.watch(element(other), "other");
    assert.equal(FakeObserver.all.length, observers, "a closed prompt watches nothing");
    assert.deepEqual(other.types(), []);
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
    const visibility = () => document.listening.get("visibilitychange")?.size ?? 0;
    const before = visibility();
    const { gate: g, box } = gate();
    onScreen(box, true);
    clock.tick(READ_DELAY_MS / 2);
    g.close(true);
    assert.equal(clock.pending, 0, "its timer is cleared");
    clock.tick(READ_DELAY_MS);
    assert.equal(g.armed, false);
    assert.deepEqual(box.types(), [], "no listener left on the prompt");
    assert.equal(visibility(), before, "no listener left on the document");
  }),
);

Deno.test(
  "a restart halfway through the reading time asks for the whole delay again",
  withClock((clock) => {
    const { gate: g, box } = gate();
    onScreen(box, true);
    clock.tick(READ_DELAY_MS / 2);
    document.dispatchEvent(new Event("visibilitychange"));
    assert.equal(clock.pending, 1, "one reading time at a time");
    clock.tick(READ_DELAY_MS / 2);
    assert.equal(g.armed, false);
    clock.tick(READ_DELAY_MS / 2);
    assert.equal(g.armed, true);
  }),
);

Deno.test(
  "a target without closest() or matches() is a movement, never Approve, and no error",
  withClock((clock) => {
    new ApproveGate(() => {}).close(false);
    const made = new ApproveGate(() => {});
    open.push(made);
    const bare = new Bare();
    made.watch(element(bare), "Approve?");
    onScreen(bare, true);
    clock.tick(READ_DELAY_MS);
    bare.dispatchEvent(new Event("focusin"));
    assert.equal(made.armed, false);
    bare.dispatchEvent(pointer("pointerdown", 77, 78));
    assert.equal(made.armed, true);
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
    first.dispatchEvent(pointer("pointerdown", 41, 40));
    first.focusVisible = true;
    first.dispatchEvent(new Event("focusin"));
    assert.equal(g.armed, false);
    assert.deepEqual(first.types(), []);
    assert.deepEqual(second.types(), ["focusin", "pointerdown", "pointermove"]);
    second.dispatchEvent(pointer("pointermove", 40, 40));
    assert.equal(g.armed, true);
  }),
);
