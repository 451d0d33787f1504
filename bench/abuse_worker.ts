/**
 * Runs one attack of bench/abuse_attacks.ts in a process of its own, started by `bench/abuse.ts`
 * (in a scheduler session of its own), so that what the attack costs never counts in the other
 * session's times or the bridge's: `deno run -A bench/abuse_worker.ts '{"name", "origin",
 * "concurrency"}'`. The attack runs until standard input closes, then what it sent is printed on
 * standard output.
 *
 * @module
 */
import { ATTACKS } from "./abuse_attacks.ts";

/** What the benchmark tells the attack. */
export interface AttackCommand {
  name: string;
  origin: string;
  concurrency: number;
}

if (import.meta.main) {
  const command = JSON.parse(Deno.args[0] ?? "{}") as AttackCommand;
  const controller = new AbortController();
  // Standard input closing is the signal to stop.
  (async () => {
    for await (const _ of Deno.stdin.readable) { /* nothing is sent; only the end counts */ }
    controller.abort();
  })();
  let summary: string;
  try {
    const attack = ATTACKS[command.name];
    if (!attack) throw new Error(`no attack named ${command.name}`);
    summary = await attack({ concurrency: command.concurrency })(command.origin, controller.signal);
  } catch (error) {
    summary = `the attack failed: ${error instanceof Error ? error.message : error}`;
  }
  console.log(summary);
  Deno.exit(0);
}
