/**
 * What every command shares: exit codes, a usage error, and parsing flags with
 * `node:util` parseArgs into a clear message.
 *
 * @module
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

/**
 * `--name VALUE` as `--name=VALUE` when the option takes a value and VALUE starts with a dash
 * but is no flag of the command: a session token is base64url, and one in 64 starts with `-`,
 * which `parseArgs` would refuse as ambiguous. `--token --json` stays an error.
 */
function joinDashValues(
  args: string[],
  options: NonNullable<ParseArgsConfig["options"]>,
): string[] {
  const flags = new Set(["-h", "--help"]);
  for (const [name, option] of Object.entries(options)) {
    flags.add(`--${name}`);
    if (option.short) flags.add(`-${option.short}`);
  }
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const option = arg.startsWith("--") ? options[arg.slice(2)] : undefined;
    const isFlag = (value: string) => flags.has(value.split("=")[0]!);
    if (option?.type === "string" && next?.startsWith("-") && next !== "--" && !isFlag(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** Parses a command's flags; an unknown flag or a missing value is a usage error. */
export function parseFlags<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  usage: string,
) {
  try {
    return parseArgs({
      args: joinDashValues(args, options),
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new CliError(`${error instanceof Error ? error.message : error}\n\n${usage}`, Exit.Usage);
  }
}
