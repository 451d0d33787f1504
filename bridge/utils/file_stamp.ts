/**
 * FileStamp: what tells that a file changed since it was read (its modification time,
 * size and inode), so that what was computed from it can be reused until then.
 *
 * @example
 * ```ts
 * import { fileStamp, sameStamp } from "./file_stamp.ts";
 *
 * const before = await fileStamp("site/index.html");
 * // … later
 * const changed = !sameStamp(before, await fileStamp("site/index.html"));
 * ```
 *
 * @module
 */

/** The stamp of a file. */
export interface FileStamp {
  mtime: number;
  size: number;
  ino: number | null;
}

/** The stamp of `file` now. */
export async function fileStamp(file: string): Promise<FileStamp> {
  return stampOf(await Deno.stat(file));
}

/** The stamp in a `Deno.FileInfo`. */
export function stampOf(info: Deno.FileInfo): FileStamp {
  return { mtime: info.mtime?.getTime() ?? 0, size: info.size, ino: info.ino };
}

/** Whether two stamps are of the same file contents, as far as stamps can tell. */
export function sameStamp(a: FileStamp | undefined, b: FileStamp): boolean {
  return a !== undefined && a.mtime === b.mtime && a.size === b.size && a.ino === b.ino;
}
