/**
 * Rows to standard output as a table, JSON, NDJSON or CSV, one row at a time, so a large result streams.
 * `table` and `csv` need their columns before the first line: they take them from the first rows (up to
 * LAYOUT_ROWS), and say on stderr when a later row brings a field that is not shown.
 */
import { InvalidArgumentError } from "commander";

/** The formats `--format` accepts. */
export const OUTPUT_FORMATS = ["table", "json", "ndjson", "csv"] as const;
/** One of {@link OUTPUT_FORMATS}. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Commander parser for `--format`: an unknown name is a usage error. */
export function outputFormat(value: string): OutputFormat {
  if (!(OUTPUT_FORMATS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`unknown format "${value}": use ${OUTPUT_FORMATS.join(", ")}.`);
  }
  return value as OutputFormat;
}

/** `table` for a person at a terminal, `ndjson` for a program reading a pipe or a file. */
export function defaultOutputFormat(stream: { isTTY?: boolean }): OutputFormat {
  return stream.isTTY ? "table" : "ndjson";
}

/** Rows buffered to lay out a table's or a CSV's columns. */
export const LAYOUT_ROWS = 200;
/** Widest table cell; longer values end in "…" (the other formats print them whole). */
const MAX_CELL = 48;

/** A row of output: field name to value. */
export type Row = Record<string, unknown>;

/** Writes rows in one format. `row` resolves false once the reader has gone (a closed pipe): stop then. */
export interface RowWriter {
  row(row: Row): Promise<boolean>;
  end(): Promise<void>;
}

/** A sink that respects backpressure and turns a closed pipe (EPIPE, e.g. `| head`) into "stop", not a crash. */
class Sink {
  closed = false;
  constructor(private readonly out: NodeJS.WritableStream) {
    out.on("error", () => {
      this.closed = true;
    });
  }

  async write(text: string): Promise<boolean> {
    if (this.closed) return false;
    if (this.out.write(text)) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.out.off("drain", done);
        this.out.off("error", done);
        this.out.off("close", done);
        resolve();
      };
      this.out.on("drain", done);
      this.out.on("error", done);
      this.out.on("close", done);
    });
    return !this.closed;
  }
}

/** A value as text for a cell: strings as they are, objects as JSON, null and absent as empty. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** RFC 4180 quoting: a field with a quote, comma, line break or edge space is quoted, quotes doubled. */
export function csvField(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** `_time` first (when present), then every field in the order first seen. */
function columnsOf(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  const columns = [...seen];
  const t = columns.indexOf("_time");
  if (t > 0) columns.unshift(...columns.splice(t, 1));
  return columns;
}

/** Shared by table and CSV: buffers rows until the columns are known, then writes each row as one line. */
abstract class ColumnWriter implements RowWriter {
  private pending: Row[] | undefined = [];
  protected columns: string[] = [];
  private known = new Set<string>();
  private warned = new Set<string>();

  constructor(
    protected readonly sink: Sink,
    private readonly warn: (line: string) => void,
  ) {}

  async row(row: Row): Promise<boolean> {
    if (this.pending) {
      this.pending.push(row);
      return this.pending.length < LAYOUT_ROWS || (await this.layout());
    }
    for (const key of Object.keys(row)) {
      if (!this.known.has(key) && !this.warned.has(key)) {
        this.warned.add(key);
        this.warn(
          `field "${key}" first appears after the columns were laid out and is not shown; use --format ndjson or json to see every field`,
        );
      }
    }
    return this.sink.write(this.line(row));
  }

  async end(): Promise<void> {
    if (this.pending) await this.layout();
  }

  private async layout(): Promise<boolean> {
    const rows = this.pending ?? [];
    this.pending = undefined;
    this.columns = columnsOf(rows);
    this.known = new Set(this.columns);
    this.prepare(rows);
    let text = this.header();
    for (const row of rows) text += this.line(row);
    return this.sink.write(text);
  }

  protected abstract prepare(rows: readonly Row[]): void;
  protected abstract header(): string;
  protected abstract line(row: Row): string;
}

class CsvWriter extends ColumnWriter {
  protected prepare(): void {}
  protected header(): string {
    return this.columns.length === 0 ? "" : `${this.columns.map(csvField).join(",")}\n`;
  }
  protected line(row: Row): string {
    return `${this.columns.map((c) => csvField(cellText(row[c]))).join(",")}\n`;
  }
}

class TableWriter extends ColumnWriter {
  private widths: number[] = [];

  /** One line per row: line breaks and tabs become spaces, long values are cut. */
  private static cell(value: unknown): string {
    const text = cellText(value).replace(/\s+/g, " ");
    return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
  }

  protected prepare(rows: readonly Row[]): void {
    this.widths = this.columns.map((c) =>
      rows.reduce((w, row) => Math.max(w, TableWriter.cell(row[c]).length), Math.min(c.length, MAX_CELL)),
    );
  }
  protected header(): string {
    if (this.columns.length === 0) return "(no rows)\n";
    return this.format(this.columns.map((c) => TableWriter.cell(c)));
  }
  protected line(row: Row): string {
    return this.format(this.columns.map((c) => TableWriter.cell(row[c])));
  }
  private format(cells: string[]): string {
    return `${cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(this.widths[i])))
      .join("  ")
      .trimEnd()}\n`;
  }
}

class NdjsonWriter implements RowWriter {
  constructor(private readonly sink: Sink) {}
  row(row: Row): Promise<boolean> {
    return this.sink.write(`${JSON.stringify(row)}\n`);
  }
  async end(): Promise<void> {}
}

/** A JSON array written as it goes: `[`, one row per line, `]`. */
class JsonWriter implements RowWriter {
  private first = true;
  constructor(private readonly sink: Sink) {}
  row(row: Row): Promise<boolean> {
    const text = `${this.first ? "[\n" : ",\n"}${JSON.stringify(row)}`;
    this.first = false;
    return this.sink.write(text);
  }
  async end(): Promise<void> {
    await this.sink.write(this.first ? "[]\n" : "\n]\n");
  }
}

/** A writer of `format` to `out`; `warn` gets notes meant for stderr. */
export function createRowWriter(
  format: OutputFormat,
  out: NodeJS.WritableStream,
  warn: (line: string) => void,
): RowWriter {
  const sink = new Sink(out);
  switch (format) {
    case "table":
      return new TableWriter(sink, warn);
    case "csv":
      return new CsvWriter(sink, warn);
    case "json":
      return new JsonWriter(sink);
    case "ndjson":
      return new NdjsonWriter(sink);
  }
}
