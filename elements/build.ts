/**
 * @module Builds the elements bundle: `deno bundle` makes one ES module of elements/mod.ts,
 * then terser squeezes it under its budget. `deno task bundle` runs it; the output path is the
 * one argument.
 */
import { minify } from "terser";

const out = Deno.args[0] ?? "elements/elements.bundle.js";
const bundled = await Deno.makeTempFile({ suffix: ".js" });
try {
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform=browser", "--minify", "-o", bundled, "elements/mod.ts"],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!built.success) Deno.exit(built.code || 1);
  const minified = await minify(await Deno.readTextFile(bundled), {
    module: true,
    compress: { passes: 2 },
    format: { comments: false },
  });
  if (minified.code === undefined) throw new Error("terser produced no code");
  await Deno.writeTextFile(out, minified.code);
} finally {
  await Deno.remove(bundled);
}
