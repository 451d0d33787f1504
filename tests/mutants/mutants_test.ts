import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadMutants, problemsOf } from "./run.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("every named mutant applies to exactly one place and names test files that exist", async () => {
  const mutants = await loadMutants();
  assert.deepEqual(problemsOf(mutants, ROOT), []);
});

Deno.test("the mutants cover at least twenty guarantees", async () => {
  const mutants = await loadMutants();
  assert.ok(mutants.length >= 20, `${mutants.length} mutants`);
});
