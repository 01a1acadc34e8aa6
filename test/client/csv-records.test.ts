/** The client's CSV record scan finds the same records as csv-parse, the parser the emulator reads CSV with. */
import fc from "fast-check";
import { parse } from "csv-parse/sync";
import { Batcher, RecordSplitter } from "../../provider/client/ingest";

/** A batcher that only remembers what it is given. */
class Recorder extends Batcher {
  readonly records: string[] = [];
  header: string | undefined;
  override add(line: string, _format: "ndjson" | "csv", header?: string): undefined {
    this.header = header;
    this.records.push(line);
    return undefined;
  }
}

/** Records (header first) as the client's scan finds them, the text arriving in the given chunks. */
function scan(chunks: string[]): string[] {
  const recorder = new Recorder(10_000);
  const splitter = new RecordSplitter("csv");
  for (const chunk of chunks) {
    splitter.push(chunk);
    splitter.fill(recorder);
  }
  splitter.end();
  splitter.fill(recorder);
  return recorder.header === undefined ? [] : [recorder.header, ...recorder.records];
}

/** Records as csv-parse finds them in the whole text. */
function library(text: string): string[] {
  // csv-parse's types do not model `raw: true`, which returns `{record, raw}` instead of the fields.
  const records = parse(text, { raw: true, relax_column_count: true, skip_empty_lines: true }) as unknown as {
    raw: string;
  }[];
  return records.map(
    // `raw` also holds the empty lines skipped before a record, and its delimiter.
    (r: { raw: string }) =>
      r.raw
        .replace(/^[\r\n]+/, "")
        .replace(/\r?\n$/, "")
        .replace(/\r$/, ""),
  );
}

const field = fc.oneof(
  fc.stringMatching(/^[a-z0-9 ]*$/),
  fc
    .string({ unit: fc.constantFrom("a", ",", '"', "\n", "\r\n", " ") })
    .map((s) => `"${s.replace(/"/g, '""')}"`),
);
const csv = fc
  .tuple(
    fc.array(fc.array(field, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 8 }),
    fc.constantFrom("\n", "\r\n"),
  )
  .map(([rows, eol]) => rows.map((r) => r.join(",")).join(eol) + eol);

describe("CSV records", () => {
  it("the scan and csv-parse agree on well-formed CSV, however the text is chunked", () => {
    fc.assert(
      fc.property(csv, fc.array(fc.nat(40), { maxLength: 6 }), (text, cuts) => {
        const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((from, i) => text.slice(from, [...points, text.length][i]));
        const blank = (r: string) => r.trim() === "";
        // Blank lines carry no record, and a header without records sends nothing.
        const expected = library(text).filter((r) => !blank(r));
        expect(scan(chunks)).toEqual(expected.length > 1 ? expected : []);
      }),
      { numRuns: 500 },
    );
  });
});
