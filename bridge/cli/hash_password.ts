/**
 * @module `aim hash-password`: reads a password on stdin and prints its scrypt hash for a
 * users file.
 */
import { hashPassword } from "../core/login.ts";
import { CliError, type CliIO, Exit, parseFlags } from "./common.ts";

export const HASH_USAGE = `Usage: aim hash-password < password.txt

Reads one password on standard input and prints its scrypt hash, for the "passwordHash" of a
users file (aim serve --users FILE). The password itself is never printed or stored.

Options:
  -h, --help  this help
`;

/** Runs `aim hash-password`. */
export async function hashPasswordCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, {}, HASH_USAGE);
  if (values.help) {
    io.stdout(HASH_USAGE);
    return Exit.Ok;
  }
  if (positionals.length) {
    throw new CliError("the password is read on stdin, never from arguments", Exit.Usage);
  }
  const password = (await io.stdin()).replace(/\r?\n$/, "");
  if (!password) throw new CliError("no password on stdin");
  if (password.length > 1024) throw new CliError("the password is over 1024 characters");
  io.stdout((await hashPassword(password)) + "\n");
  return Exit.Ok;
}
