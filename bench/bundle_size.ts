/**
 * Prints the size of the elements, raw and gzip: what a page loads up front (the entry
 * and the chunks it imports statically) against its budget of 12,000 bytes gzip,
 * and each chunk loaded on demand. `deno run --allow-read bench/bundle_size.ts [--json]`
 *
 * @example
 * ```ts
 * import { bundleSize } from "./bundle_size.ts";
 *
 * const size = await bundleSize();
 * console.log(size.gzipBytes <= size.budgetGzipBytes ? "ok" : "over");
 * ```
 *
 * @module
 */
import { gzipSync } from "node:zlib";

/** The budget: what a page loads up front stays within 12 KB gzip (12,000 bytes, to be safe). */
export const BUDGET_GZIP_BYTES = 12_000;

const ELEMENTS = new URL("../elements/", import.meta.url);

/** One module of the build: its file in elements/ and its sizes. */
export interface ModuleSize {
  /** The file in elements/, e.g. `elements.panel.js`. */
  file: string;
  bytes: number;
  gzipBytes: number;
}

/** Sizes of the committed build. */
export interface BundleSize {
  /** What a page loads up front: the entry and what it imports statically, transitively. */
  upFront: ModuleSize[];
  /** The chunks loaded on demand (`import()`), each with what only it needs. */
  lazy: ModuleSize[];
  /** The up-front modules' bytes, summed. */
  bytes: number;
  /** The up-front modules' gzip bytes, summed: each is a file of its own. */
  gzipBytes: number;
  budgetGzipBytes: number;
}

/** The files a module imports statically and on demand, by their names in elements/. */
export function importsOf(code: string): { static: string[]; dynamic: string[] } {
  // Chunks are imported as ./elements.<name>.js?v=<hash>; the file is elements.<name>.js.
  const file = (url: string) => url.replace(/\?.*$/, "");
  const find = (pattern: RegExp) => [...code.matchAll(pattern)].map((m) => file(m[2]!));
  return {
    static: find(/\b(?:from|import)\s*(["'])\.\/([\w.-]+\.js(?:\?v=\w+)?)\1/g),
    dynamic: find(/\bimport\s*\(\s*(["'])\.\/([\w.-]+\.js(?:\?v=\w+)?)\1\s*\)/g),
  };
}

async function measure(file: string): Promise<ModuleSize & { code: string }> {
  const bytes = await Deno.readFile(new URL(file, ELEMENTS));
  return {
    file,
    bytes: bytes.byteLength,
    gzipBytes: gzipSync(bytes, { level: 9 }).byteLength,
    code: new TextDecoder().decode(bytes),
  };
}

/** Measures the build in elements/ from elements.bundle.js (gzip at level 9, as `gzip -9`). */
export async function bundleSize(): Promise<BundleSize> {
  const seen = new Set<string>();
  const upFront: ModuleSize[] = [];
  const lazy: ModuleSize[] = [];
  const later: string[] = [];
  // Up front: the entry and its static imports; then each chunk imported on demand.
  const walk = async (file: string, into: ModuleSize[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    const { code, ...size } = await measure(file);
    into.push(size);
    const found = importsOf(code);
    later.push(...found.dynamic);
    for (const dep of found.static) await walk(dep, into);
  };
  await walk("elements.bundle.js", upFront);
  while (later.length) await walk(later.shift()!, lazy);
  return {
    upFront,
    lazy,
    bytes: upFront.reduce((sum, m) => sum + m.bytes, 0),
    gzipBytes: upFront.reduce((sum, m) => sum + m.gzipBytes, 0),
    budgetGzipBytes: BUDGET_GZIP_BYTES,
  };
}

if (import.meta.main) {
  const size = await bundleSize();
  if (Deno.args.includes("--json")) console.log(JSON.stringify(size));
  else {
    const line = (m: ModuleSize) => `  ${m.file}: ${m.bytes} bytes, ${m.gzipBytes} bytes gzip`;
    console.log(["up front:", ...size.upFront.map(line)].join("\n"));
    console.log(["on demand:", ...size.lazy.map(line)].join("\n"));
    const ok = size.gzipBytes <= size.budgetGzipBytes;
    console.log(
      `elements up front: ${size.bytes} bytes, ${size.gzipBytes} bytes gzip ` +
        `(budget ${size.budgetGzipBytes}, ${ok ? "ok" : "OVER"})`,
    );
    if (!ok) Deno.exitCode = 1;
  }
}
