/**
 * File stamps (bridge/utils/file_stamp.ts): what tells that a file changed since it was read,
 * by its modification time, its size and its inode, each on its own.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type FileStamp, fileStamp, sameStamp, stampOf } from "../../bridge/utils/file_stamp.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("fileStamp() reads a file's modification time, size and inode", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "page.html");
  await Deno.writeTextFile(file, "12345");
  const info = await Deno.stat(file);
  assert.deepEqual(await fileStamp(file), {
    mtime: info.mtime!.getTime(),
    size: 5,
    ino: info.ino,
  });
  await assert.rejects(() => fileStamp(join(dir.path, "gone.html")), Deno.errors.NotFound);
});

Deno.test("stampOf() reads a missing modification time as 0", () => {
  const info = { mtime: null, size: 3, ino: null } as unknown as Deno.FileInfo;
  assert.deepEqual(stampOf(info), { mtime: 0, size: 3, ino: null });
});

Deno.test("sameStamp() is true only when modification time, size and inode are all the same", () => {
  const stamp: FileStamp = { mtime: 1000, size: 10, ino: 7 };
  assert.equal(sameStamp(stamp, { ...stamp }), true);
  assert.equal(sameStamp(undefined, stamp), false, "nothing read before");
  for (
    const [what, other] of [
      ["modification time", { ...stamp, mtime: 1001 }],
      ["size", { ...stamp, size: 11 }],
      ["inode", { ...stamp, ino: 8 }],
      ["inode now unknown", { ...stamp, ino: null }],
    ] as const
  ) {
    assert.equal(sameStamp(stamp, other), false, what);
  }
});

Deno.test("a file rewritten with other contents of another size has another stamp", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "page.html");
  await Deno.writeTextFile(file, "one");
  const before = await fileStamp(file);
  assert.ok(sameStamp(before, await fileStamp(file)));
  await Deno.writeTextFile(file, "three");
  assert.ok(!sameStamp(before, await fileStamp(file)));
});
