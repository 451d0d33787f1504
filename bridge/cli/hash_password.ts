/**
 * `aim hash-password`: reads a password on stdin and prints its scrypt hash for a
 * users file.
 *
 * @module
 */
import { hashPassword } from "../core/login.ts";
import { CliError, type CliIO, Exit, parseFlags } from "./common.ts";

/** The fewest characters `aim hash-password` takes in a password (NIST SP 800-63B's minimum). */
export const MIN_PASSWORD_LENGTH = 8;

export const HASH_USAGE = `Usage: aim hash-password < password.txt

Reads one password on standard input and prints its scrypt hash, for the "passwordHash" of a
users file (aim serve --users FILE). The password itself is never printed or stored. A password
has ${MIN_PASSWORD_LENGTH} to 1024 characters; a passphrase of a few words is best.

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
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new CliError(
      `the password is under ${MIN_PASSWORD_LENGTH} characters: choose a longer one ` +
        "(a passphrase of a few words is easy to remember)",
    );
  }
  if (password.length > 1024) throw new CliError("the password is over 1024 characters");
  io.stdout((await hashPassword(password)) + "\n");
  return Exit.Ok;
}
