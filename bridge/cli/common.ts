/**
 * What every command shares: exit codes, a usage error, and parsing flags with
 * `node:util` parseArgs into a clear message.
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { pageQueryProblem } from "../site/page_identity.ts";

/** Exit codes of every command. */
export const Exit = { Ok: 0, Failure: 1, Usage: 2 } as const;

/** Options of {@linkcode CliError}. */
export interface CliErrorOptions {
  /** The command's usage, printed after the message (a usage error). */
  usage?: string;
}

/**
 * A failure a command reports as `aim: <message>` with its exit code, followed by `usage` when
 * there is one (`aim` alone prints its general usage instead when the command was implied).
 */
export class CliError extends Error {
  readonly exitCode: number;
  readonly usage: string | undefined;
  constructor(message: string, exitCode: number = Exit.Failure, options: CliErrorOptions = {}) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
    this.usage = options.usage;
  }
}

/** Where a command reads and writes: the process's own streams, or a test's. */
export interface CliIO {
  /** Writes to standard output. */
  stdout: (text: string) => void;
  /** Writes to standard error. */
  stderr: (text: string) => void;
  /** Reads the whole of standard input. */
  stdin: () => Promise<string>;
  /** Reads an environment variable. */
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

/**
 * What `parseArgs` refused, in aim's own words (`unknown option --bogus`): its own messages leave
 * a quote open and give advice about `--` that fits no aim command.
 */
export function flagProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const named = /^(?:Unknown option|Option) '([^' ]+)/.exec(message)?.[1];
  if (named !== undefined) {
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option ${named}`;
    if (/argument missing|ambiguous/.test(message)) return `${named} needs a value`;
    if (/does not take an argument/.test(message)) return `${named} takes no value`;
  }
  return message.split("\n")[0]!;
}

/** What {@linkcode parseFlags} gives `parseArgs`: a command's flags and `--help`. */
export interface FlagsConfig<T extends NonNullable<ParseArgsConfig["options"]>> {
  args: string[];
  options: T & { help: { type: "boolean"; short: "h" } };
  allowPositionals: true;
  strict: true;
}

/** A command's flags as `parseArgs` parsed them: `values` and `positionals`. */
export type ParsedFlags<T extends NonNullable<ParseArgsConfig["options"]>> = ReturnType<
  typeof parseArgs<FlagsConfig<T>>
>;

/** Parses a command's flags; an unknown flag or a missing value is a usage error. */
export function parseFlags<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  usage: string,
): ParsedFlags<T> {
  try {
    return parseArgs({
      args: joinDashValues(args, options),
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new CliError(flagProblem(error), Exit.Usage, { usage });
  }
}

/** Options of {@linkcode sessionToken}. */
export interface SessionTokenOptions {
  /** What the command does without a token, said when `AIM_TOKEN` is set but empty. */
  withoutToken?: string;
}

/**
 * The session token of `aim invoke` and `aim mcp`, read the same way by both: `--token` when
 * given, else `AIM_TOKEN`; trimmed (a token pasted with the line break after it is still the
 * token); refused when empty or when it holds characters a token never has, before it reaches
 * an HTTP library that could echo it. Undefined when neither is set.
 */
export function sessionToken(
  flag: string | undefined,
  io: CliIO,
  options: SessionTokenOptions = {},
): string | undefined {
  const from = flag !== undefined ? "--token" : "AIM_TOKEN";
  const token = (flag ?? io.env("AIM_TOKEN"))?.trim();
  if (token === "") {
    throw new CliError(
      from === "--token"
        ? "--token is empty: give the token the page shows in its Agent access panel"
        : "AIM_TOKEN is empty: set it to the token the page shows in its Agent access panel " +
          "(export AIM_TOKEN=<token>)" +
          (options.withoutToken ? `, or unset it to ${options.withoutToken}` : ""),
      Exit.Usage,
    );
  }
  if (token !== undefined && !/^[\x21-\x7e]{1,4096}$/.test(token)) {
    throw new CliError(
      `${from} holds characters a token never has: copy it again from the page`,
      Exit.Usage,
    );
  }
  return token;
}

/**
 * The `--page-query` names, checked (docs/upstream.md, "Query strings").
 *
 * @throws {CliError} a usage error naming what is wrong.
 */
export function checkPageQuery(names: string[] | undefined): string[] {
  const problem = pageQueryProblem(names ?? []);
  if (problem) throw new CliError(`--page-query: ${problem}`, Exit.Usage);
  return names ?? [];
}
