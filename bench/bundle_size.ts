/**
 * @module Prints the size of the elements bundle, raw and gzip, against its budget of 12 KiB
 * gzip (DESIGN §8). `deno run --allow-read bench/bundle_size.ts [--json]`
 */
import { gzipSync } from "node:zlib";

/** The budget: the bundle stays under 12 KiB gzip. */
export const BUDGET_GZIP_BYTES = 12 * 1024;

/** Sizes of the committed bundle. */
export interface BundleSize {
  bytes: number;
  gzipBytes: number;
  budgetGzipBytes: number;
}

/** Measures elements/elements.bundle.js (gzip at level 9, as `gzip -9`). */
export async function bundleSize(): Promise<BundleSize> {
  const bytes = await Deno.readFile(new URL("../elements/elements.bundle.js", import.meta.url));
  return {
    bytes: bytes.byteLength,
    gzipBytes: gzipSync(bytes, { level: 9 }).byteLength,
    budgetGzipBytes: BUDGET_GZIP_BYTES,
  };
}

if (import.meta.main) {
  const size = await bundleSize();
  if (Deno.args.includes("--json")) console.log(JSON.stringify(size));
  else {
    console.log(
      `elements bundle: ${size.bytes} bytes, ${size.gzipBytes} bytes gzip ` +
        `(budget ${size.budgetGzipBytes}, ${
          size.gzipBytes < size.budgetGzipBytes ? "ok" : "OVER"
        })`,
    );
  }
}
