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
import type { RequestOptions, Transport } from "./transport";

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
  /** Uncompressed bytes sent so far. */
  bytes: number;
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
  /** Called after each batch with running totals. */
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

/** A unit of input: one event (object or raw record), or a raw text chunk to split into records. */
type Format = "ndjson" | "csv";

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
  const endpoint =
    path`/v1/datasets/${dataset}/ingest` +
    queryString({ "timestamp-field": options.timestampField, "timestamp-format": options.timestampFormat });
  const summary: IngestSummary = { ingested: 0, failed: 0, failures: [], processedBytes: 0, batches: 0 };
  let bytes = 0;

  const send = async (body: Buffer, format: Format, rawBytes: number): Promise<void> => {
    const result = await transport.request({
      method: "POST",
      path: endpoint,
      raw: {
        body,
        contentType: format === "csv" ? "text/csv" : "application/x-ndjson",
        contentEncoding: "gzip",
      },
      schema: IngestResultSchema,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
    summary.ingested += result.ingested;
    summary.failed += result.failed;
    summary.processedBytes += result.processedBytes;
    summary.batches++;
    bytes += rawBytes;
    for (const f of result.failures) {
      if (summary.failures.length >= maxFailures) break;
      summary.failures.push(f);
    }
    options.onProgress?.({
      ingested: summary.ingested,
      failed: summary.failed,
      batches: summary.batches,
      bytes,
    });
  };

  let inflight: Promise<void> | undefined;
  for await (const batch of batches(records(source, options.format), batchSize)) {
    const body = await gzipAsync(batch.text, { level: constants.Z_BEST_SPEED });
    if (inflight) await inflight;
    inflight = send(body, batch.format, Buffer.byteLength(batch.text));
    // Awaited on the next turn or after the loop; this only keeps Node from calling it unhandled meanwhile.
    inflight.catch(() => undefined);
  }
  if (inflight) await inflight;
  return summary;
}

/** One record ready for a batch: an NDJSON line, or a CSV record that belongs under `header`. */
interface RecordItem {
  format: Format;
  line: string;
  header?: string;
}

/** Cuts records into batches of at most `batchSize` events and MAX_BATCH_BYTES bytes. */
async function* batches(
  items: AsyncIterable<RecordItem>,
  batchSize: number,
): AsyncGenerator<{ text: string; format: Format; count: number }> {
  let lines: string[] = [];
  let size = 0;
  let format: Format = "ndjson";
  let header: string | undefined;
  const flush = () => {
    const body = lines.join("\n") + "\n";
    const text = format === "csv" ? `${header}\n${body}` : body;
    const out = { text, format, count: lines.length };
    lines = [];
    size = 0;
    return out;
  };
  for await (const item of items) {
    if (lines.length > 0 && (lines.length >= batchSize || size + item.line.length > MAX_BATCH_BYTES)) {
      yield flush();
    }
    format = item.format;
    header = item.header;
    lines.push(item.line);
    size += item.line.length + 1;
  }
  if (lines.length > 0) yield flush();
}

function isBytes(x: unknown): x is Uint8Array {
  return x instanceof Uint8Array;
}

/** Every record of the source, one at a time. */
async function* records(source: IngestSource, format: Format | undefined): AsyncGenerator<RecordItem> {
  if (typeof source === "string" || isBytes(source)) {
    const text = typeof source === "string" ? source : Buffer.from(source).toString("utf8");
    if (format === undefined && text.trimStart().startsWith("[")) {
      // A whole JSON array given as text: it is already in memory, so parse it and send it as objects.
      yield* objectRecords(JSON.parse(text) as Iterable<Record<string, unknown>>, 0);
      return;
    }
    yield* textRecords(oneChunk(text), format);
    return;
  }
  if (Symbol.asyncIterator in Object(source)) {
    const it = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done) return;
    const rest = resume(first.value, it);
    if (typeof first.value === "string" || isBytes(first.value)) {
      yield* textRecords(rest as AsyncIterable<string | Uint8Array>, format);
    } else {
      yield* objectRecords(rest as AsyncIterable<Record<string, unknown>>, 0);
    }
    return;
  }
  if (Symbol.iterator in Object(source)) {
    yield* objectRecords(source as Iterable<Record<string, unknown>>, 0);
    return;
  }
  throw new TypeError(
    "events must be an array, an iterable, an async iterable, a stream, or NDJSON/CSV text",
  );
}

async function* oneChunk(text: string): AsyncGenerator<string> {
  yield text;
}

/** Puts the peeked first item back in front of the rest of the iterator. */
async function* resume<T>(first: T, it: AsyncIterator<T>): AsyncGenerator<T> {
  yield first;
  for (;;) {
    const next = await it.next();
    if (next.done) return;
    yield next.value;
  }
}

async function* objectRecords(
  events: Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>,
  start: number,
): AsyncGenerator<RecordItem> {
  let index = start;
  for await (const event of events) {
    if (typeof event !== "object" || event === null || Array.isArray(event)) {
      throw new TypeError(
        `events[${index}] must be an object, got ${Array.isArray(event) ? "an array" : typeof event}`,
      );
    }
    yield { format: "ndjson", line: JSON.stringify(event) };
    index++;
  }
}

/** Splits text chunks into records: NDJSON by line, CSV by record (a quoted field may hold newlines). */
async function* textRecords(
  chunks: AsyncIterable<string | Uint8Array>,
  format: Format | undefined,
): AsyncGenerator<RecordItem> {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let scan = 0; // where the CSV scanner stopped in `pending`
  let inQuotes = false;
  let header: string | undefined;
  let fmt = format;

  const emit = function* (record: string): Generator<RecordItem> {
    const line = record.endsWith("\r") ? record.slice(0, -1) : record;
    if (line.trim() === "") return;
    if (fmt === "csv") {
      if (header === undefined) header = line;
      else yield { format: "csv", line, header };
    } else {
      yield { format: "ndjson", line };
    }
  };

  const drain = function* (final: boolean): Generator<RecordItem> {
    if (fmt === undefined) {
      const start = pending.trimStart();
      if (start === "" && !final) return;
      if (start.startsWith("[")) {
        throw new TypeError(
          'a JSON array given as a stream cannot be split without reading it whole; send NDJSON, objects, or { format: "csv" }',
        );
      }
      fmt = start.startsWith("{") ? "ndjson" : "csv";
    }
    let from = 0;
    if (fmt === "ndjson") {
      let nl: number;
      while ((nl = pending.indexOf("\n", from)) !== -1) {
        yield* emit(pending.slice(from, nl));
        from = nl + 1;
      }
      pending = pending.slice(from);
    } else {
      // RFC 4180: a record ends at a newline outside quotes; "" inside quotes toggles twice, so it stays inside.
      let i = scan;
      for (; i < pending.length; i++) {
        const c = pending.charCodeAt(i);
        if (c === 34) inQuotes = !inQuotes;
        else if (c === 10 && !inQuotes) {
          yield* emit(pending.slice(from, i));
          from = i + 1;
        }
      }
      pending = pending.slice(from);
      scan = pending.length;
    }
    if (final && pending !== "") {
      if (fmt === "csv" && inQuotes) throw new TypeError("CSV input ends inside a quoted field");
      yield* emit(pending);
      pending = "";
    }
  };

  for await (const chunk of chunks) {
    pending +=
      typeof chunk === "string"
        ? chunk
        : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    yield* drain(false);
  }
  pending += decoder.end();
  yield* drain(true);
}
