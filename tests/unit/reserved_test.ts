import assert from "node:assert/strict";
import { parseActionSpec } from "../../bridge/input/action_spec.ts";
import { MarkupError } from "../../bridge/markup/action.ts";

const spec = (id: string) => ({
  id,
  description: "An action",
  input_schema: { type: "string" },
  input_example: "x",
  consequential: false,
  protected: false,
});

Deno.test("parseActionSpec() refuses the read tool's name in any case, so no page action shadows it", () => {
  for (const id of ["aim_read_page", "AIM_READ_PAGE", "Aim_Read_Page"]) {
    assert.throws(() => parseActionSpec(spec(id)), MarkupError, id);
  }
  assert.equal(parseActionSpec(spec("aim_read_pages")).id, "aim_read_pages");
});
