/**
 * Ingest: turns any event source into batches of at most 10,000 events, gzips them, and sends them one after
 * another (the next batch is compressed while the previous one is in flight). Sources are streamed record by
 * record, so memory holds one batch being built and one in flight, whatever the input size.
 */
import { StringDecoder } from "node:string_decoder";
import { promisify } from "node:util";
import { constants, gzip } from "node:zlib";
import { IngestResultSchema, type IngestResult } from "../schemas";
import { path, queryString } from "./path";
import { callOptions, type RequestOptions, type Transport } from "./transport";

const gzipAsync = promisify(gzip);

/** The service's limit on events per ingest request. */
export const MAX_BATCH_EVENTS = 10_000;
/** Batches are also cut at this many uncompressed bytes, so huge events cannot make a huge request. */
export const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** What `ingest` accepts: event objects (array, iterable, async iterable, object-mode stream) or raw
 * NDJSON/CSV text (string, bytes, or a stream/async iterable of string or byte chunks). */
export type IngestSource =
  | string
  | Uint8Array
  | Iterable<Record<string, unknown>>
  | AsyncIterable<Record<string, unknown> | string | Uint8Array>;

/** Running totals passed to `onProgress` after each batch. */
export interface IngestProgress {
  /** Events accepted so far. */
  ingested: number;
  /** Events rejected so far. */
  failed: number;
  /** Batches sent so far. */
  batches: number;
  /** Events sent so far (the client's count: `ingested + failed` unless the service dropped some). */
  events: number;
  /** Uncompressed bytes sent so far. */
  bytes: number;
  /** Bytes the service reports it processed so far. */
  processedBytes: number;
}

/** Options of `client.ingest`. */
export interface IngestOptions extends RequestOptions {
  /** Format of raw text input; detected from the first character when omitted (`{` NDJSON, otherwise CSV). */
  format?: "ndjson" | "csv";
  /** Field that becomes `_time` (sent as `timestamp-field`). */
  timestampField?: string;
  /** Go-style layout of that field (sent as `timestamp-format`), e.g. `2/Jan/2006:15:04:05 +0000`. */
  timestampFormat?: string;
  /** Events per request, 1 to 10,000. Defaults to 10,000. */
  batchSize?: number;
  /** Called after each batch the service answered, with running totals. When `ingest` rejects, the last
   * call holds everything accepted before the failure (the failed batch may or may not have been). */
  onProgress?: (progress: IngestProgress) => void;
  /** How many failure entries to keep in the summary (the counts stay exact). Defaults to 1,000. */
  maxFailures?: number;
}

/** The summed result of every batch. */
export interface IngestSummary {
  /** Events accepted. */
  ingested: number;
  /** Events rejected. */
  failed: number;
  /** Failure entries, at most `maxFailures` of them. */
  failures: IngestResult["failures"];
  /** Bytes the service processed. */
  processedBytes: number;
  /** Requests sent. */
  batches: number;
}

/** Sends `source` to `dataset` in gzip batches and sums the results. */
export async function ingest(
  transport: Transport,
  dataset: string,
  source: IngestSource,
  options: IngestOptions = {},
): Promise<IngestSummary> {
  const batchSize = options.batchSize ?? MAX_BATCH_EVENTS;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_EVENTS) {
    throw new RangeError(
      `options.batchSize must be an integer from 1 to ${MAX_BATCH_EVENTS}, got ${batchSize}`,
    );
  }
  const maxFailures = options.maxFailures ?? 1000;
  if (!Number.isInteger(maxFailures) || maxFailures < 0) {
    throw new RangeError(`options.maxFailures must be an integer of at least 0, got ${maxFailures}`);
  }
  if (options.format !== undefined && options.format !== "ndjson" && options.format !== "csv") {
    throw new TypeError(`options.format must be ndjson or csv, got ${String(options.format)}`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw new TypeError("options.onProgress must be a function");
  }
  const request = callOptions(options);
  const endpoint =
    path`/v1/datasets/${dataset}/ingest` +
    queryString({ "timestamp-field": options.timestampField, "timestamp-format": options.timestampFormat });
  const summary: IngestSummary = { ingested: 0, failed: 0, failures: [], processedBytes: 0, batches: 0 };
  let bytes = 0;
  let sentEvents = 0;

  const send = async (body: Buffer, format: Format, rawBytes: number, count: number): Promise<void> => {
    const result = await transport.request({
      method: "POST",
      path: endpoint,
      raw: {
        body,
        contentType: format === "csv" ? "text/csv" : "application/x-ndjson",
        contentEncoding: "gzip",
      },
      schema: IngestResultSchema,
      ...request,
    });
    summary.ingested += result.ingested;
    summary.failed += result.failed;
    summary.processedBytes += result.processedBytes;
    summary.batches++;
    bytes += rawBytes;
    sentEvents += count;
    for (const f of result.failures) {
      if (summary.failures.length >= maxFailures) break;
      summary.failures.push(f);
    }
    options.onProgress?.({
      ingested: summary.ingested,
      failed: summary.failed,
      batches: summary.batches,
      events: sentEvents,
      bytes,
      processedBytes: summary.processedBytes,
    });
  };

  let inflight: Promise<void> | undefined;
  const emit = async (batch: Batch): Promise<void> => {
    const body = await gzipAsync(batch.text, { level: constants.Z_BEST_SPEED });
    if (inflight) await inflight;
    inflight = send(body, batch.format, Buffer.byteLength(batch.text), batch.count);
    // Awaited by the next emit or after the loop; this only keeps Node from calling it unhandled meanwhile.
    inflight.catch(() => undefined);
  };
  const batcher = new Batcher(batchSize);
  // Plain loops rather than async generators per event: the per-event promise overhead of generator
  // layers costs several times the serialization itself.
  const add = (line: string, format: Format, header?: string): Batch | undefined =>
    batcher.add(line, format, header);
  if (typeof source === "string" || isBytes(source)) {
    const text = typeof source === "string" ? source : Buffer.from(source).toString("utf8");
    if (options.format === undefined && text.trimStart().startsWith("[")) {
      // A whole JSON array given as text is already in memory: parse it and send it as objects.
      const parsed = JSON.parse(text) as unknown;
      if (!Array.isArray(parsed)) throw new TypeError("events: JSON text starting with [ must be an array");
      for (const [i, event] of parsed.entries()) {
        const b = add(serialize(event, i), "ndjson");
        if (b) await emit(b);
      }
    } else {
      const splitter = new RecordSplitter(options.format);
      for (const r of splitter.push(text)) {
        const b = add(r.line, r.format, r.header);
        if (b) await emit(b);
      }
      for (const r of splitter.end()) {
        const b = add(r.line, r.format, r.header);
        if (b) await emit(b);
      }
    }
  } else if (Symbol.asyncIterator in Object(source)) {
    let index = 0;
    let splitter: RecordSplitter | undefined;
    for await (const item of source as AsyncIterable<unknown>) {
      if (index === 0 && (typeof item === "string" || isBytes(item)))
        splitter = new RecordSplitter(options.format);
      if (splitter) {
        if (typeof item !== "string" && !isBytes(item)) {
          throw new TypeError(`events: chunk ${index} is not text or bytes, but earlier chunks were`);
        }
        for (const r of splitter.push(item)) {
          const b = add(r.line, r.format, r.header);
          if (b) await emit(b);
        }
      } else {
        const b = add(serialize(item, index), "ndjson");
        if (b) await emit(b);
      }
      index++;
    }
    for (const r of splitter?.end() ?? []) {
      const b = add(r.line, r.format, r.header);
      if (b) await emit(b);
    }
  } else if (Symbol.iterator in Object(source)) {
    let index = 0;
    for (const event of source as Iterable<unknown>) {
      const b = add(serialize(event, index++), "ndjson");
      if (b) await emit(b);
    }
  } else {
    throw new TypeError(
      "events must be an array, an iterable, an async iterable, a stream, or NDJSON/CSV text",
    );
  }
  const last = batcher.flush();
  if (last) await emit(last);
  if (inflight) await inflight;
  return summary;
}

type Format = "ndjson" | "csv";

/** A request body: NDJSON lines, or CSV records under their header. */
interface Batch {
  text: string;
  format: Format;
  count: number;
}

/** One record ready for a batch: an NDJSON line, or a CSV record that belongs under `header`. */
interface RecordItem {
  format: Format;
  line: string;
  header?: string;
}

/** Collects records and hands out a batch once it holds `batchSize` events or MAX_BATCH_BYTES bytes. */
class Batcher {
  private lines: string[] = [];
  private size = 0;
  private format: Format = "ndjson";
  private header: string | undefined;

  constructor(private readonly batchSize: number) {}

  /** Adds one record; returns the previous batch when this record does not fit in it. */
  add(line: string, format: Format, header?: string): Batch | undefined {
    let full: Batch | undefined;
    if (
      this.lines.length > 0 &&
      (this.lines.length >= this.batchSize || this.size + line.length > MAX_BATCH_BYTES)
    ) {
      full = this.flush();
    }
    this.format = format;
    this.header = header;
    this.lines.push(line);
    this.size += line.length + 1;
    return full;
  }

  /** The batch built so far, if any. */
  flush(): Batch | undefined {
    if (this.lines.length === 0) return undefined;
    const body = this.lines.join("\n") + "\n";
    const text = this.format === "csv" ? `${this.header}\n${body}` : body;
    const batch = { text, format: this.format, count: this.lines.length };
    this.lines = [];
    this.size = 0;
    return batch;
  }
}

function isBytes(x: unknown): x is Uint8Array {
  return x instanceof Uint8Array;
}

function serialize(event: unknown, index: number): string {
  if (typeof event !== "object" || event === null || Array.isArray(event)) {
    throw new TypeError(
      `events[${index}] must be an object, got ${Array.isArray(event) ? "an array" : typeof event}`,
    );
  }
  return JSON.stringify(event);
}

/** Splits text chunks into records: NDJSON by line, CSV by record (a quoted field may hold newlines). */
class RecordSplitter {
  private readonly decoder = new StringDecoder("utf8");
  private pending = "";
  private scan = 0; // where the CSV scanner stopped in `pending`
  private inQuotes = false;
  private header: string | undefined;

  constructor(private format: Format | undefined) {}

  /** Records completed by this chunk. */
  push(chunk: string | Uint8Array): RecordItem[] {
    this.pending +=
      typeof chunk === "string"
        ? chunk
        : this.decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    return this.drain(false);
  }

  /** The last record, after the input ended. */
  end(): RecordItem[] {
    this.pending += this.decoder.end();
    return this.drain(true);
  }

  private emit(record: string, out: RecordItem[]): void {
    const line = record.endsWith("\r") ? record.slice(0, -1) : record;
    if (line.trim() === "") return;
    if (this.format === "csv") {
      if (this.header === undefined) this.header = line;
      else out.push({ format: "csv", line, header: this.header });
    } else {
      out.push({ format: "ndjson", line });
    }
  }

  private drain(final: boolean): RecordItem[] {
    const out: RecordItem[] = [];
    if (this.format === undefined) {
      const start = this.pending.trimStart();
      if (start === "" && !final) return out;
      if (start.startsWith("[")) {
        throw new TypeError(
          'a JSON array given as a stream cannot be split without reading it whole; send NDJSON, objects, or { format: "csv" }',
        );
      }
      this.format = start.startsWith("{") ? "ndjson" : "csv";
    }
    const pending = this.pending;
    let from = 0;
    if (this.format === "ndjson") {
      let nl: number;
      while ((nl = pending.indexOf("\n", from)) !== -1) {
        this.emit(pending.slice(from, nl), out);
        from = nl + 1;
      }
      this.pending = pending.slice(from);
    } else {
      // RFC 4180: a record ends at a newline outside quotes; "" inside quotes toggles twice, so it stays inside.
      for (let i = this.scan; i < pending.length; i++) {
        const c = pending.charCodeAt(i);
        if (c === 34) this.inQuotes = !this.inQuotes;
        else if (c === 10 && !this.inQuotes) {
          this.emit(pending.slice(from, i), out);
          from = i + 1;
        }
      }
      this.pending = pending.slice(from);
      this.scan = this.pending.length;
    }
    if (final && this.pending !== "") {
      if (this.format === "csv" && this.inQuotes) throw new TypeError("CSV input ends inside a quoted field");
      this.emit(this.pending, out);
      this.pending = "";
    }
    return out;
  }
}
