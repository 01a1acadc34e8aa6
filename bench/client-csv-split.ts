/**
 * Finding CSV records in raw text, as `client.ingest(text, { format: "csv" })` does before batching: the
 * client's hand-written scan (A) against csv-parse with `raw: true` (B), both feeding the client's own
 * batcher with the same records. Runs are interleaved A B A B in one process; medians, min/max and the
 * ratio are printed. This is the figure behind keeping the scan (see RecordSplitter in provider/client/ingest.ts).
 *
 *   npm run build && node_modules/.bin/node --expose-gc bench/client-csv-split.ts [records] [rounds]
 */
// A block, not a module: see bench/client-ingest.ts.
{
  const { Batcher, RecordSplitter } =
    require("../dist/provider/client/ingest") as typeof import("../provider/client/ingest");
  const { Parser } = require("csv-parse") as typeof import("csv-parse");
  const { interleave, printComparison } = require("./client-harness.ts") as typeof import("./client-harness");

  const RECORDS = Number(process.argv[2] ?? 200_000);
  const ROUNDS = Number(process.argv[3] ?? 7);
  const BATCH = 10_000;

  const lines = ["_time,level,status,path,message"];
  for (let i = 0; i < RECORDS; i++) {
    const time = new Date(Date.UTC(2024, 0, 1) + i).toISOString();
    // Quoted fields with commas, doubled quotes and, now and then, a newline: what makes CSV harder than lines.
    const message = i % 100 === 0 ? `"line one\nline two ${i}"` : `"handled, ok ""${i}"""`;
    lines.push(`${time},${i % 10 ? "info" : "error"},${200 + (i % 5)},/api/v1/items/${i % 1000},${message}`);
  }
  const text = lines.join("\n") + "\n";

  // A: the client's scan, as ingest drives it for text input.
  const viaScan = async (): Promise<number> => {
    const started = performance.now();
    const batcher = new Batcher(BATCH);
    const splitter = new RecordSplitter("csv");
    splitter.push(text);
    splitter.end();
    let records = 0;
    for (let b = splitter.fill(batcher); b; b = splitter.fill(batcher)) records += b.count;
    records += batcher.flush()?.count ?? 0;
    if (records !== RECORDS) throw new Error(`scan found ${records} records`);
    return performance.now() - started;
  };

  // B: csv-parse finds the records (parsing every field on the way); its raw text goes to the same batcher.
  const viaCsvParse = async (): Promise<number> => {
    const started = performance.now();
    const batcher = new Batcher(BATCH);
    const parser = new Parser({ raw: true, relax_column_count: true, skip_empty_lines: true });
    let header: string | undefined;
    let records = 0;
    const take = (raw: string) => {
      const line = raw.replace(/\r?\n$/, "");
      if (header === undefined) header = line;
      else records += batcher.add(line, "csv", header)?.count ?? 0;
    };
    parser.on("data", (r: { raw: string }) => take(r.raw));
    await new Promise<void>((resolve, reject) => {
      parser.on("end", resolve).on("error", reject);
      parser.end(text);
    });
    records += batcher.flush()?.count ?? 0;
    if (records !== RECORDS) throw new Error(`csv-parse found ${records} records`);
    return performance.now() - started;
  };

  interleave(ROUNDS, viaScan, viaCsvParse)
    .then((t) => {
      printComparison(
        `Finding ${RECORDS.toLocaleString("en")} CSV records and batching them by ${BATCH.toLocaleString("en")}`,
        { label: "A: hand-written scan", times: t.a, cpu: t.cpuA },
        { label: "B: csv-parse raw", times: t.b, cpu: t.cpuB },
        1,
      );
    })
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
