/**
 * The APL reference's own queries against the emulator: every fenced APL block of axiomhq/docs (the commit
 * test/fixtures/apl-docs/queries.json names), posted to `POST /v1/datasets/_apl` over synthetic datasets shaped like
 * the sample datasets the docs read (test/fixtures/apl-docs/datasets.ts). Each query is answered (200), refused
 * (4xx, with the service's message) or a server error (5xx). Blocks that cannot run as written (syntax templates,
 * fragments, MPL, a page's own error) carry their reason in the fixture; they are posted too (no server error on
 * them either), but the share counts the runnable ones.
 *
 * `APL_REFUSALS_OUT=<file>` writes the share and the most frequent refusals (with a sample query each) to that
 * file, as Markdown, so that the engine's authors can see what to do next.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Agent, request } from "undici";
import { sampleDatasets } from "../fixtures/apl-docs/datasets";
import { api, useEmulator } from "../helpers/emulator";

interface CorpusQuery {
  id: string;
  page: string;
  line: number;
  apl: string;
  notRunnable?: string;
}

interface Corpus {
  source: { repository: string; commit: string };
  queries: CorpusQuery[];
}

const corpus = JSON.parse(
  readFileSync(path.join(__dirname, "../fixtures/apl-docs/queries.json"), "utf8"),
) as Corpus;

/**
 * Datasets the reference's examples name as a reader's own (`['logs']`, `['vercel']`, `['myDataset']`, a bare
 * `dataset`...): created empty, so their queries are checked for the language (parsed, compiled, run over no rows)
 * as a reader's would be on their own data. A dataset name this list misses shows up as a refusal ("dataset ... not
 * found") that names no unsupported construct, and fails the test below.
 */
const READER_DATASETS = [
  "dataset",
  "logs",
  "vercel",
  "convex",
  "myDataset",
  "my-dataset",
  "sample_dataset",
  "my_traces",
  "otel-demo-logs",
  "http-logs",
  "otel-backend-traces",
  "DATASET_NAME",
  "dataset.name",
  "Users",
  "T",
  "events",
  "StormEvents",
  "example",
  "HttpRequestLogs",
  "PodLogs",
  "port_lookup",
  "hn",
  "Dataset",
];

/** The data's time span: the day before the test started, rounded to the second. */
const END_MS = Math.floor(Date.now() / 1000) * 1000;
const START_MS = END_MS - 24 * 3600 * 1000;
/** A range that holds every event (and reaches past now, for the examples that look at `now()`). */
const RANGE = {
  startTime: new Date(START_MS - 7 * 24 * 3600 * 1000).toISOString(),
  endTime: new Date(END_MS + 3600 * 1000).toISOString(),
};
const DATASETS = sampleDatasets(START_MS, END_MS);

const em = useEmulator({ datasets: [...DATASETS.map((d) => d.name), ...READER_DATASETS] });

/** What the emulator did with one query. */
interface Outcome {
  query: CorpusQuery;
  status: number;
  /** The refusal's message (4xx and 5xx). */
  message?: string;
  /** Milliseconds from sending the query to its whole answer. */
  ms: number;
}

/** The wording every refusal of a construct the emulator leaves out carries (docs/emulator.md, "APL"). */
const UNSUPPORTED = "not supported by the emulator";
/** A refusal that names its construct: `not supported by the emulator: geo_info_from_ip_address (...)`. */
const REFUSAL = new RegExp(`${UNSUPPORTED}: \\S`);

let outcomes: Outcome[] = [];

/** Posts every query, `concurrency` at a time, over one keep-alive connection pool. */
async function runCorpus(queries: readonly CorpusQuery[], concurrency: number): Promise<Outcome[]> {
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  const url = `${em.current.url}/v1/datasets/_apl?format=tabular`;
  const headers = { authorization: `Bearer ${em.current.token}`, "content-type": "application/json" };
  const out: Outcome[] = new Array(queries.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < queries.length) {
      const i = next++;
      const query = queries[i];
      const started = performance.now();
      const res = await request(url, {
        method: "POST",
        headers,
        // Pages of 100 rows: the page's size decides nothing here (every operator runs over every row before the
        // page is cut), and writing 1,000-row answers was a third of the run's time.
        body: JSON.stringify({ apl: query.apl, ...RANGE, limit: 100 }),
        dispatcher: agent,
      });
      const text = await res.body.text();
      let message: string | undefined;
      if (res.statusCode !== 200) {
        try {
          message = String((JSON.parse(text) as { message?: unknown }).message ?? text);
        } catch {
          message = text;
        }
      }
      out[i] = { query, status: res.statusCode, message, ms: performance.now() - started };
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
  } finally {
    await agent.close();
  }
  return out;
}

/** A refusal's message without its position, for grouping: the construct it names stays, so the counts rank
 * constructs (`unknown function 'parse_json'`). */
function refusalCause(message: string): string {
  return message.replace(/\s*\(line \d+, column \d+\)/g, "").trim();
}

/** The share, and the most frequent refusal causes with a sample query each, as Markdown. */
function refusalReport(runnable: readonly Outcome[], answered: number, top: number): string {
  const groups = new Map<string, Outcome[]>();
  for (const o of runnable) {
    if (o.status === 200) continue;
    const key = `${o.status} ${refusalCause(o.message ?? "")}`;
    const list = groups.get(key) ?? [];
    list.push(o);
    groups.set(key, list);
  }
  const ranked = [...groups.entries()].sort((a, b) => b[1].length - a[1].length);
  const kinds = new Map<string, number>();
  for (const [cause, list] of ranked) {
    const kind = cause.replace(/"[^"]*"|'[^']*'|`[^`]*`/g, "…").replace(/\b\d+\b/g, "N");
    kinds.set(kind, (kinds.get(kind) ?? 0) + list.length);
  }
  const lines = [
    `# APL reference corpus: refusals`,
    "",
    `Run at ${new Date().toISOString()} over ${corpus.source.repository} at ${corpus.source.commit}.`,
    "",
    `**${answered} of ${runnable.length} runnable queries answered (${((100 * answered) / runnable.length).toFixed(1)}%)**;` +
      ` ${ranked.length} distinct refusal causes. Regenerate: \`APL_REFUSALS_OUT=${process.env.APL_REFUSALS_OUT} npx jest test/emulator/apl-docs.test.ts\`.`,
    "",
    "## Refusals by kind",
    "",
    ...[...kinds.entries()].sort((a, b) => b[1] - a[1]).map(([kind, n]) => `- ${n} × ${kind}`),
    "",
    "## Refusals that name no unsupported construct (the test fails on each)",
    "",
    "Either the engine should answer the query, or refuse it with `not supported by the emulator: <construct> (<why>)`;",
    "a query with an error of its page's own goes into test/fixtures/apl-docs/docs-errors.json, with the error.",
    "",
    ...ranked
      .filter(([, list]) => !REFUSAL.test(list[0].message ?? ""))
      .map(
        ([cause, list]) =>
          `- ${list.length} × ${cause}: ${list.map((o) => o.query.id.replace("content/docs/", "")).join(", ")}`,
      ),
    "",
    "## The slowest queries (ms, with four in flight)",
    "",
    ...[...outcomes]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10)
      .map(
        (o) =>
          `- ${o.ms.toFixed(0)} ms ${o.status} \`${o.query.id.replace("content/docs/", "")}\`: \`${o.query.apl.replace(/\s+/g, " ").slice(0, 160)}\``,
      ),
    "",
    `## Top ${top} refusal causes`,
    "",
  ];
  for (const [cause, list] of ranked.slice(0, top)) {
    const sample = list[0];
    lines.push(`### ${list.length} × ${cause}`, "");
    lines.push(
      `e.g. \`${sample.query.id}\`: ${sample.message ?? ""}`,
      "",
      "```kusto",
      sample.query.apl,
      "```",
      "",
    );
  }
  return lines.join("\n");
}

beforeAll(async () => {
  const started = performance.now();
  for (const d of DATASETS) {
    const res = await api(
      em.current,
      "POST",
      `/v1/datasets/${d.name}/ingest`,
      d.events.map((e) => JSON.stringify(e)).join("\n"),
      { "content-type": "application/x-ndjson" },
    );
    if (res.status !== 200 || res.body.ingested !== d.events.length)
      throw new Error(`ingest into ${d.name}: ${res.status} ${res.text}`);
  }
  const ingested = performance.now();
  outcomes = await runCorpus(corpus.queries, 4);
  const ran = performance.now();
  const runnable = outcomes.filter((o) => o.query.notRunnable === undefined);
  const answered = runnable.filter((o) => o.status === 200).length;
  console.log(
    `APL reference corpus: ${answered} of ${runnable.length} answered (${((100 * answered) / runnable.length).toFixed(1)}%)` +
      ` (${corpus.queries.length} blocks at ${corpus.source.repository} ${corpus.source.commit.slice(0, 12)};` +
      ` ${corpus.queries.length - runnable.length} not runnable as written, reasons in the fixture;` +
      ` ingest ${((ingested - started) / 1000).toFixed(1)} s, queries ${((ran - ingested) / 1000).toFixed(1)} s)`,
  );
  if (process.env.APL_REFUSALS_OUT)
    writeFileSync(process.env.APL_REFUSALS_OUT, refusalReport(runnable, answered, 40));
}, 120_000);

describe(`the APL reference's queries (${corpus.source.repository} at ${corpus.source.commit.slice(0, 12)})`, () => {
  it("holds every fenced APL block of the docs, each with its page and line", () => {
    // The issue counted 1,979 blocks at this commit; the ids (page:line) are unique.
    expect(corpus.queries).toHaveLength(1979);
    expect(new Set(corpus.queries.map((q) => q.id)).size).toBe(corpus.queries.length);
    expect(outcomes).toHaveLength(corpus.queries.length);
  });

  it("gives no server error on any block, runnable or not", () => {
    const errors = outcomes
      .filter((o) => o.status >= 500)
      .map((o) => `${o.query.id}: ${o.status} ${o.message}\n${o.query.apl}`);
    expect(errors).toEqual([]);
  });

  it("refuses only by naming the construct as not supported by the emulator", () => {
    // A runnable query's refusal either says which construct the emulator leaves out, or is a bug of the engine's
    // (a query the service answers, refused). A query with an error of its page's own is listed, with the error,
    // in test/fixtures/apl-docs/docs-errors.json and is not runnable.
    const bad = outcomes
      .filter((o) => o.query.notRunnable === undefined && o.status !== 200)
      .filter((o) => !REFUSAL.test(o.message ?? ""))
      .map((o) => `${o.query.id}: ${o.status} ${o.message}`);
    expect(bad).toEqual([]);
  });

  it("refuses the blocks whose page has an error of its own (docs-errors.json)", () => {
    const pageErrors = outcomes.filter((o) => o.query.notRunnable?.startsWith("the page's error"));
    expect(pageErrors.length).toBeGreaterThan(0);
    const answered = pageErrors.filter((o) => o.status < 400 || o.status >= 500).map((o) => o.query.id);
    expect(answered).toEqual([]);
  });

  it("answers at least 90% of the runnable queries", () => {
    const runnable = outcomes.filter((o) => o.query.notRunnable === undefined);
    const answered = runnable.filter((o) => o.status === 200).length;
    expect(answered / runnable.length).toBeGreaterThanOrEqual(0.9);
  });
});
