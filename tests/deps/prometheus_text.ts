/**
 * parse-prometheus-text-format, a parser of the Prometheus text format independent of
 * prom-client, for the tests only: the metrics the bridge serves are read with it, and a line it
 * cannot parse fails the test. Imported by relative path, not mapped in deno.json, so that
 * `deno task start` never downloads it; locked in deno.test.lock.
 *
 * Its histograms follow prom2json's for an unlabelled histogram: one object per family, so the
 * label sets of a labelled histogram fold into one (see `readSamples` in tests/metrics/scrape.ts, which types what it returns).
 *
 * @module
 */
export { default } from "npm:parse-prometheus-text-format@1.1.1";
