/**
 * A value written into a form's controls as a person writes it, and the check that they hold it
 * (elements/gestures.ts `setValue`, `notHeld`), imported directly under Deno with fake controls
 * that are EventTargets, as the page's are: each kind of control (a lone checkbox, a group of
 * them, radio buttons, a select, a multi-select, a text input), each value a checkbox takes, the
 * events the page sees, the prototype's setter used (as React needs), and each reason a field does
 * not hold its value. Typing into a real page: tests/browser/gestures_test.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type Control, notHeld, setValue } from "../../elements/gestures.ts";

/** A fake control: its events, and the values written through its prototype's setter. */
class FakeControl extends EventTarget {
  events: string[] = [];
  written: string[] = [];
  disabled = false;
  #value: string;
  constructor(readonly type: string, readonly name: string, value = "") {
    super();
    this.#value = value;
    for (const kind of ["click", "input", "change"]) {
      this.addEventListener(kind, () => this.events.push(kind));
    }
  }
  get value(): string {
    return this.#value;
  }
  set value(value: string) {
    this.written.push(value);
    this.#value = value;
  }
}
/** An `<input>`: a click toggles a checkbox and checks a radio button, as a browser's does. */
class FakeInput extends FakeControl {
  checked = false;
  // Its own accessor, as HTMLInputElement.prototype has.
  override get value(): string {
    return super.value;
  }
  override set value(value: string) {
    super.value = value;
  }
  click(): void {
    this.checked = this.type === "radio" ? true : !this.checked;
    this.dispatchEvent(new Event("click"));
    this.dispatchEvent(new Event("input"));
    this.dispatchEvent(new Event("change"));
  }
}
/** A `<select>`: its options, and which are chosen. */
class FakeSelect extends FakeControl {
  multiple: boolean;
  options: { value: string; selected: boolean }[];
  constructor(name: string, values: string[], multiple = false) {
    super("select-one", name);
    this.multiple = multiple;
    this.options = values.map((value) => ({ value, selected: false }));
  }
  override set value(value: string) {
    for (const option of this.options) option.selected = option.value === value;
  }
  override get value(): string {
    return this.options.find((o) => o.selected)?.value ?? "";
  }
  get selectedOptions() {
    return this.options.filter((o) => o.selected);
  }
}
Object.assign(globalThis, { HTMLSelectElement: FakeSelect });

const box = (value = "on", checked = false, type = "checkbox") =>
  Object.assign(new FakeInput(type, "f", value), { checked });
const controls = (...list: FakeControl[]) => list as unknown as Control[];

Deno.test('setValue() checks a lone checkbox for true and any value but false and "", with a click the page sees', () => {
  const cases: [unknown, boolean][] = [[true, true], ["yes", true], [1, true], [false, false], [
    "",
    false,
  ]];
  for (const [value, checked] of cases) {
    const lone = box();
    setValue(controls(lone), value as never);
    assert.equal(lone.checked, checked, JSON.stringify(value));
    assert.deepEqual(
      lone.events,
      checked ? ["click", "input", "change"] : [],
      "a box is clicked, or left alone",
    );
  }
  const on = box("on", true);
  setValue(controls(on), false);
  assert.equal(on.checked, false, "unchecked by a click too");
});

Deno.test("setValue() checks the boxes of a group by their values, and a radio button by its own, never unchecking one by a click", () => {
  const [a, b, c] = [box("a"), box("b", true), box("c")];
  setValue(controls(a, b, c), ["a", "c"]);
  assert.deepEqual([a.checked, b.checked, c.checked], [true, false, true]);
  const [x, y] = [box("x", false), box("y", false)];
  setValue(controls(x, y), "y");
  assert.deepEqual([x.checked, y.checked], [false, true], "a group of several: by value");
  const [r1, r2] = [box("1", true, "radio"), box("2", false, "radio")];
  setValue(controls(r1, r2), 2);
  assert.equal(r2.checked, true);
  assert.equal(
    r1.events.includes("click"),
    false,
    "a radio button is unchecked by checking another",
  );
});

Deno.test("setValue() chooses a multi-select's options, writes a text through the prototype's setter, and refuses a list for one value", () => {
  const multi = new FakeSelect("tags", ["a", "b", "c"], true);
  setValue(controls(multi), ["a", "c"]);
  assert.deepEqual(multi.selectedOptions.map((o) => o.value), ["a", "c"]);
  assert.deepEqual(multi.events, ["input", "change"]);
  const text = new FakeInput("text", "q");
  // An own property shadowing the prototype's, as React puts on the instance.
  Object.defineProperty(text, "value", { value: "own", writable: true, configurable: true });
  setValue(controls(text), 42);
  assert.deepEqual(text.written, ["42"], "written through the prototype's setter");
  assert.deepEqual(text.events, ["input", "change"]);
  assert.throws(
    () => setValue(controls(new FakeInput("text", "q")), ["a"], "q"),
    /^Error: Field "q" takes one value, not a list\.$/,
  );
  assert.throws(
    () => setValue(controls(new FakeInput("text", "n")), ["a"]),
    /Field "n" takes one value/,
  );
});

Deno.test("notHeld() says why a field does not hold its value, for each kind of control, and nothing when it does", () => {
  const select = new FakeSelect("size", ["s", "m"]);
  select.value = "s";
  const disabled = Object.assign(new FakeInput("text", "d"), { disabled: true });
  const [r1, r2] = [box("1", false, "radio"), box("2", false, "radio")];
  const cases: [Control[], unknown, string][] = [
    [controls(), "x", 'Field "f" is not in the form now.'],
    [controls(disabled), "x", 'Field "f" is disabled: the page did not enable it.'],
    [controls(box("on", false)), true, 'Field "f": the page kept "on" unchecked.'],
    [controls(box("on", true)), false, 'Field "f": the page kept "on" checked.'],
    [controls(select), "l", 'Field "f" has no option "l" now (its options: "s", "m").'],
    [
      controls(new FakeSelect("e", [])),
      "l",
      'Field "f" has no option "l" now (its options: none).',
    ],
    [controls(r1, r2), "3", 'Field "f" has no choice "3" the page lets be chosen now.'],
    [controls(select), "s", ""],
    [controls(box("on", true)), true, ""],
    [controls(new FakeInput("text", "t", "formatted")), "raw", ""],
  ];
  for (const [list, value, reason] of cases) {
    assert.equal(notHeld(list, value as never, "f"), reason, reason || String(value));
  }
});
