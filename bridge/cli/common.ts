/**
 * @module What every command shares: exit codes, a usage error, and parsing flags with
 * `node:util` parseArgs into a clear message.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** Exit codes of every command. */
export const Exit = { Ok: 0, Failure: 1, Usage: 2 } as const;

/** A failure a command reports as `aim: <message>` with its exit code. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = Exit.Failure) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

/** Where a command writes. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: () => Promise<string>;
  env: (name: string) => string | undefined;
}

/** The process's own streams. */
export const processIO: CliIO = {
  stdout: (text) => void Deno.stdout.writeSync(new TextEncoder().encode(text)),
  stderr: (text) => void Deno.stderr.writeSync(new TextEncoder().encode(text)),
  stdin: () => new Response(Deno.stdin.readable).text(),
  env: (name) => Deno.env.get(name),
};

/** Parses a command's flags; an unknown flag or a missing value is a usage error. */
export function parseFlags<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  usage: string,
) {
  try {
    return parseArgs({
      args,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new CliError(`${error instanceof Error ? error.message : error}\n\n${usage}`, Exit.Usage);
  }
}
