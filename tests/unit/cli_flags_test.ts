import assert from "node:assert/strict";
import { CliError, parseFlags } from "../../bridge/cli/common.ts";

const OPTIONS = { token: { type: "string" }, json: { type: "boolean" } } as const;

Deno.test("parseFlags() takes a value that starts with a dash, as a token may", () => {
  for (const token of ["-Ab3_x", "--Ab3_x", "-h9", "-"]) {
    const { values, positionals } = parseFlags(["url", "--token", token, "--json"], OPTIONS, "");
    assert.equal(values.token, token);
    assert.equal(values.json, true);
    assert.deepEqual(positionals, ["url"]);
  }
});

Deno.test("parseFlags() still refuses an option whose value is missing before another flag", () => {
  for (const args of [["--token", "--json"], ["--token", "-h"], ["--token"]]) {
    assert.throws(() => parseFlags(args, OPTIONS, "usage"), CliError, JSON.stringify(args));
  }
});
