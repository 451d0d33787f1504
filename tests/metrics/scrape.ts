/**
 * Test helper: scrapes a bridge's metrics and reads them with an independent parser of the
 * Prometheus text format (tests/deps/prometheus_text.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import parse from "../deps/prometheus_text.ts";

/** One sample of a family: a value, or a histogram's buckets, count and sum. */
interface ParsedSample {
  value?: string;
  labels?: Record<string, string>;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}

/** One metric family as the parser reads it: its name, help, type (upper case) and samples. */
export interface ParsedFamily {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  metrics: ParsedSample[];
}

/** Parses a scrape; throws on a line that is not of the format. */
const parsePrometheusText = parse as (text: string) => ParsedFamily[];

/** One sample line: its name (with a histogram's `_bucket`, `_sum`, `_count`), labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed scrape. */
export interface Scrape {
  /** The families by name, as the parser reads them (types, help). */
  families: Map<string, ParsedFamily>;
  /** Every sample line with its labels. */
  samples: Sample[];
  /** The sum of the samples named `name` whose labels include `labels`. */
  value(name: string, labels?: Record<string, string>): number;
}

/**
 * The samples of `text`, each with its labels. The parser folds a labelled histogram's label
 * sets into one object (as prom2json does for an unlabelled one): parsed again with histogram
 * types left out, each `_bucket`, `_sum` and `_count` line is a family of its own, labels kept.
 */
export function readSamples(text: string): Sample[] {
  const flat = parsePrometheusText(text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"));
  return flat.flatMap((family) =>
    family.metrics.map((sample) => ({
      name: family.name,
      labels: sample.labels ?? {},
      value: Number(sample.value),
    }))
  );
}

/** Reads the text of a scrape. */
export function readScrape(text: string): Scrape {
  const families = new Map(parsePrometheusText(text).map((family) => [family.name, family]));
  const samples = readSamples(text);
  return {
    families,
    samples,
    value(name, labels = {}) {
      return samples
        .filter((s) =>
          s.name === name && Object.entries(labels).every(([key, v]) => s.labels[key] === v)
        )
        .reduce((sum, s) => sum + s.value, 0);
    },
  };
}

/** `GET url`: checks the answer's status and headers, and parses its body. */
export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  assert.equal(res.headers.get("cache-control"), "no-store");
  return readScrape(text);
}
