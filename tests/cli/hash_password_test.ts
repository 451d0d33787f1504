/**
 * `aim hash-password` (bridge/cli/hash_password.ts), imported directly and run in this process:
 * each password it refuses (none, one under 8 characters counted as characters, one over 1024,
 * one given as an argument), one line ending of each kind taken off, and a hash that verifies.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  HASH_USAGE,
  hashPasswordCommand,
  MIN_PASSWORD_LENGTH,
} from "../../bridge/cli/hash_password.ts";
import { CliError, Exit } from "../../bridge/cli/common.ts";
import { verifyPassword } from "../../bridge/core/login.ts";

/** Runs the command with `stdin`; its exit code and what it printed. */
async function run(args: string[], stdin: string) {
  let stdout = "";
  const code = await hashPasswordCommand(args, {
    stdout: (text) => void (stdout += text),
    stderr: () => assert.fail("nothing is printed on stderr"),
    stdin: () => Promise.resolve(stdin),
    env: () => undefined,
  });
  return { code, stdout };
}

Deno.test("aim hash-password prints a hash that verifies, with one line ending of either kind taken off", async () => {
  for (
    const [stdin, password] of [
      ["correct horse", "correct horse"],
      ["correct horse\n", "correct horse"],
      ["correct horse\r\n", "correct horse"],
      ["correct horse\n\n", "correct horse\n"],
      [" spaced out ", " spaced out "],
    ]
  ) {
    const { code, stdout } = await run([], stdin!);
    assert.equal(code, Exit.Ok);
    assert.match(stdout, /\n$/);
    assert.equal(await verifyPassword(password!, stdout.trim()), true, JSON.stringify(stdin));
    assert.equal(stdout.includes(password!.trim()), false, "the password is never printed");
  }
});

Deno.test("aim hash-password refuses each password it must not hash, with a sentence saying why", async () => {
  assert.equal(MIN_PASSWORD_LENGTH, 8);
  const refused: [string[], string, number, RegExp][] = [
    [[], "", Exit.Failure, /^no password on stdin$/],
    [[], "\n", Exit.Failure, /^no password on stdin$/],
    [[], "1234567", Exit.Failure, /^the password is under 8 characters/],
    // Characters, not UTF-16 units: seven emoji are fourteen units and still seven characters.
    [[], "😀".repeat(7), Exit.Failure, /^the password is under 8 characters/],
    [[], "x".repeat(1025), Exit.Failure, /^the password is over 1024 characters$/],
    [["hunter22"], "", Exit.Usage, /^the password is read on stdin, never from arguments$/],
  ];
  for (const [args, stdin, exitCode, message] of refused) {
    await assert.rejects(
      run(args, stdin),
      (e) => e instanceof CliError && e.exitCode === exitCode && message.test(e.message),
      JSON.stringify([args, stdin.slice(0, 20)]),
    );
  }
  // The bounds themselves are taken.
  assert.equal((await run([], "12345678")).code, Exit.Ok);
  assert.equal((await run([], "😀".repeat(8))).code, Exit.Ok);
  assert.equal((await run([], "x".repeat(1024))).code, Exit.Ok);
});

Deno.test("aim hash-password --help prints its usage and reads nothing", async () => {
  for (const flag of ["--help", "-h"]) {
    let read = false;
    let stdout = "";
    const code = await hashPasswordCommand([flag], {
      stdout: (text) => void (stdout += text),
      stderr: () => {},
      stdin: () => (read = true, Promise.resolve("")),
      env: () => undefined,
    });
    assert.deepEqual([code, stdout, read], [Exit.Ok, HASH_USAGE, false], flag);
  }
});
