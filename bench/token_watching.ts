/**
 * `deno task bench:tokens`, part 2 (bench/tokens.ts runs it): what watching the demo's control
 * panel through ten changes costs an agent, polling full manifests, polling conditionally,
 * waiting for change documents, or reading the event stream.
 *
 * @module
 */
import assert from "node:assert/strict";
import { decode as decodeToon } from "@toon-format/toon";
import type { JsonPatchOperation } from "../bridge/wire/json_patch.ts";
import { applyJsonPatch, applyMergePatch } from "../tests/helpers/patches.ts";
import { DEMO_PAGE } from "./demo_tab.ts";
import {
  Agent,
  bytes,
  etagVersion,
  type Exchange,
  freshDemo,
  signIn,
  tokens,
} from "./token_agent.ts";

/** A JSON value, as the change documents hold them. */
type Json = unknown;

/** How many times a polling agent reads per change the person makes. */
const POLLS_PER_CHANGE = 3;
/** The change documents an agent may wait for, and how it applies them. */
const CHANGE_DOCUMENTS = [
  {
    name: "JSON Patch",
    type: "application/json-patch+json",
    apply: (held: Json, patch: Json) => applyJsonPatch(held, patch as JsonPatchOperation[]),
  },
  { name: "merge patch", type: "application/merge-patch+json", apply: applyMergePatch },
] as const;
type ChangeDocument = (typeof CHANGE_DOCUMENTS)[number]["name"];

/**
 * 2. Watching ten changes the person makes in the page; the lines for `deno task bench`'s
 * summary go to `summaries`.
 */
export async function watching(summaries: string[]): Promise<void> {
  console.log(
    `\n### Watching the signed-in control panel through ten changes the person makes ` +
      `(${POLLS_PER_CHANGE} polls per change for the polling agents)`,
  );
  await using demo = await freshDemo();
  const { panel } = demo;
  const agent = new Agent(demo.origin, panel.token);
  await signIn(agent);
  await panel.sync();
  const comment = (request_id: string, text: string) => async () =>
    void await panel.tab.handlers.get("add_comment")!({ request_id, text });
  const changes: [string, () => Promise<void>][] = [
    ["picks the pending filter", () => panel.pick("pending")],
    ["comments on req-4", comment("req-4", "Which monitor is it?")],
    ["picks all", () => panel.pick("all")],
    ["comments on req-5", comment("req-5", "Catering for 30 people, quote attached")],
    ["another approver rejects req-4", async () => {
      demo.store.decide("req-4", "rejected", "bob");
      await panel.refresh();
    }],
    ["picks the approved filter", () => panel.pick("approved")],
    ["picks all", () => panel.pick("all")],
    ["comments on req-3", comment("req-3", "Hotel receipt attached")],
    ["picks the rejected filter", () => panel.pick("rejected")],
    ["picks all", () => panel.pick("all")],
  ];

  // Every agent starts holding the manifest as it is now: only the watching is counted.
  const start = await agent.get("start", `${DEMO_PAGE}.json`);
  const startToon = await agent.get("start", `${DEMO_PAGE}.toon`);
  type Held = Record<"json" | "toon", { version: number; manifest: Json }>;
  const holding = (): Held => ({
    json: { version: etagVersion(start), manifest: JSON.parse(start.body) },
    toon: { version: etagVersion(startToon), manifest: decodeToon(startToon.body) as Json },
  });
  const held = Object.fromEntries(
    CHANGE_DOCUMENTS.map((d) => [d.name, holding()]),
  ) as Record<ChangeDocument, Held>;
  const conditional = { json: etagVersion(start), toon: etagVersion(startToon) };
  const logs = () => ({ json: [] as Exchange[], toon: [] as Exchange[] });
  const spent = {
    full: logs(),
    conditional: logs(),
    patches: Object.fromEntries(CHANGE_DOCUMENTS.map((d) => [d.name, logs()])) as Record<
      ChangeDocument,
      ReturnType<typeof logs>
    >,
    events: [] as string[],
  };

  // The event stream, from the version every agent holds.
  const events = await fetch(`${demo.origin}/__aim/events`, {
    headers: { Authorization: `Bearer ${panel.token}`, "Last-Event-ID": String(conditional.json) },
  });
  assert.equal(events.status, 200);
  const stream = events.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextEvent = async (): Promise<{ id: number; data: string }> => {
    while (true) {
      const end = buffered.indexOf("\n\n");
      if (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const fields = block.split("\n");
        const get = (name: string) =>
          fields.filter((l) => l.startsWith(`${name}:`)).map((l) =>
            l.slice(name.length + 1).trimStart()
          );
        if (get("event")[0] !== "change") continue;
        return { id: Number(get("id")[0]), data: get("data").join("\n") };
      }
      const { value, done } = await stream.read();
      if (done) throw new Error("the event stream ended");
      buffered += value;
    }
  };

  for (const [what, change] of changes) {
    // The change-document agents: the first kind waits for the next version (a long poll)
    // while the person acts; the others (at most 4 requests wait at once on a session) ask for
    // the change once the first kind has it, which reads the same document.
    const ask = (d: (typeof CHANGE_DOCUMENTS)[number], format: "json" | "toon", wait: boolean) =>
      agent.get(`${what}: ${d.name} (${format})`, `${DEMO_PAGE}.${format}`, {
        "If-None-Match": `"v${held[d.name][format].version}"`,
        ...(wait ? { Prefer: "wait=10" } : {}),
        Accept: d.type,
      });
    const formats = ["json", "toon"] as const;
    const [first, ...others] = CHANGE_DOCUMENTS;
    const waits: {
      d: (typeof CHANGE_DOCUMENTS)[number];
      format: "json" | "toon";
      answer: Promise<Exchange>;
    }[] = formats.map((format) => ({ d: first, format, answer: ask(first, format, true) }));
    await change();
    await Promise.all(waits.map((w) => w.answer));
    for (const d of others) {
      for (const format of formats) waits.push({ d, format, answer: ask(d, format, false) });
    }
    for (const { d, format, answer: pending } of waits) {
      const answer = await pending;
      assert.equal(answer.status, 200, `${what}: the long poll answered ${answer.status}`);
      const patch = format === "json" ? JSON.parse(answer.body) : decodeToon(answer.body) as Json;
      const isPatch = answer.headers.get("aim-patch-from") !== null;
      held[d.name][format] = {
        version: etagVersion(answer),
        manifest: isPatch ? d.apply(held[d.name][format].manifest, patch) : patch,
      };
      spent.patches[d.name][format].push(answer);
    }
    const event = await nextEvent();
    spent.events.push(event.data);
    for (const format of ["json", "toon"] as const) {
      // Polling the whole manifest, the same number of times per change.
      for (let poll = 0; poll < POLLS_PER_CHANGE; poll++) {
        spent.full[format].push(
          await agent.get(`${what}: full (${format})`, `${DEMO_PAGE}.${format}`),
        );
      }
      // Polling with If-None-Match: the first read after the change is whole, the others 304.
      for (let poll = 0; poll < POLLS_PER_CHANGE; poll++) {
        const read = await agent.get(`${what}: conditional (${format})`, `${DEMO_PAGE}.${format}`, {
          "If-None-Match": `"v${conditional[format]}"`,
        });
        assert.equal(read.status, poll === 0 ? 200 : 304, `${what}: conditional read ${poll}`);
        conditional[format] = etagVersion(read);
        spent.conditional[format].push(read);
      }
      // The change documents, applied to what the agent held, give the manifest now.
      const now = spent.full[format].at(-1)!;
      const whole = format === "json" ? JSON.parse(now.body) : decodeToon(now.body);
      for (const d of CHANGE_DOCUMENTS) {
        assert.deepEqual(
          held[d.name][format].manifest,
          whole,
          `${what}: the ${format} ${d.name} gives the new manifest`,
        );
        assert.equal(held[d.name][format].version, etagVersion(now));
      }
      assert.equal(event.id, etagVersion(now), `${what}: the event stream is at the same version`);
    }
  }
  await stream.cancel();

  const sumRead = (log: Exchange[]) => log.reduce((n, e) => n + tokens(e.body), 0);
  const sumBytes = (log: Exchange[]) => log.reduce((n, e) => n + bytes(e.body), 0);
  const rows = [
    ["polling full manifests", spent.full],
    ["polling with If-None-Match (304: no body)", spent.conditional],
    ...CHANGE_DOCUMENTS.map((d) =>
      [`long poll for change documents (${d.name})`, spent.patches[d.name]] as const
    ),
  ] as const;
  const results: Record<string, number> = {};
  for (const [name, logs] of rows) {
    const reads = logs.json.length;
    console.log(
      `  ${name.padEnd(46)} ${String(reads).padStart(2)} reads: JSON ${
        String(sumRead(logs.json)).padStart(6)
      } tokens (${sumBytes(logs.json)} B), TOON ${String(sumRead(logs.toon)).padStart(6)} tokens (${
        sumBytes(logs.toon)
      } B)`,
    );
    results[name] = Math.min(sumRead(logs.json), sumRead(logs.toon));
  }
  const eventTokens = spent.events.reduce((n, d) => n + tokens(d), 0);
  console.log(
    `  ${"event stream (GET /__aim/events)".padEnd(46)} ${
      String(spent.events.length).padStart(2)
    } events: JSON ${String(eventTokens).padStart(6)} tokens (${
      spent.events.reduce((n, d) => n + bytes(d), 0)
    } B)`,
  );
  for (const d of CHANGE_DOCUMENTS) {
    const patches = spent.patches[d.name].json.filter((e) => e.headers.get("aim-patch-from"));
    console.log(
      `  ${patches.length} of ${changes.length} long polls answered with a ${d.name}, the rest whole`,
    );
  }
  summaries.push(
    `ten changes: full polling ${results[rows[0][0]]}, If-None-Match ${results[rows[1][0]]}, ` +
      CHANGE_DOCUMENTS.map((d, i) => `${d.name} ${results[rows[2 + i]![0]]}`).join(", ") +
      `, event stream ${eventTokens} tokens`,
  );
}
