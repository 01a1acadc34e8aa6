/**
 * Ingest: turns a request body (JSON array, NDJSON, CSV) into events with a `_time`, reporting each bad
 * event as a failure entry while the good ones land.
 */
import { parse as parseCsv } from "csv-parse/sync";
import { HttpError, mediaTypeOf } from "../http";
import type { IncomingEvent } from "../store/events";
import { formatNs } from "../time";
import { compileGoLayout, parseGoLayout, parseTimestampHeuristic } from "./timestamp";

/** At most this many events per request. */
export const MAX_EVENTS_PER_REQUEST = 10_000;
/** A field name may be at most this many bytes. */
export const MAX_FIELD_NAME_BYTES = 200;
/** Objects and arrays may nest at most this deep. */
export const MAX_NESTING = 100;
/** Field names the service reserves; an event's own field of that name becomes `_user_<name>`. */
export const RESERVED_FIELDS = ["_blockInfo", "_cursor", "_rowID", "_source", "_sysTime"] as const;

/** One rejected event, as the ingest result reports it. */
export interface IngestFailure {
  timestamp: string;
  error: string;
}

/** Options of one ingest request. */
export interface IngestOptions {
  /** The field holding the event time; default `_time`. */
  timestampField?: string;
  /** A Go reference layout for that field; heuristic parsing when absent. */
  timestampFormat?: string;
  /** The CSV field separator (`csv-delimiter`), one character; default `,`. */
  csvDelimiter?: string;
  /** Field names of CSV without a header row (`X-Axiom-CSV-Fields`); every line is then an event. */
  csvFields?: readonly string[];
  /** Labels added to every event (`X-Axiom-Event-Labels`); an event's own field of the same name is kept. */
  labels?: Record<string, unknown>;
  /** The dataset's map fields: objects under these names stay whole; every other object is flattened. */
  mapFields?: ReadonlySet<string>;
  /** Receive time: `_time` of events without one, and the failure entries' timestamp. */
  nowNs: bigint;
}

/** Parsed events and failures of one request. */
export interface ParsedIngest {
  events: IncomingEvent[];
  failures: IngestFailure[];
  /** Every event seen, good or bad. */
  total: number;
}

type Format = "json" | "ndjson" | "csv";

/** Picks the body format from `Content-Type` (NDJSON may also arrive as `application/json`). */
export function detectFormat(contentType: string | undefined, body: string): Format {
  const type = mediaTypeOf(contentType);
  if (type === "text/csv") return "csv";
  if (type === "application/x-ndjson" || type === "application/ndjson") return "ndjson";
  if (type === "" || type === "application/json") {
    return body.trimStart().startsWith("[") ? "json" : "ndjson";
  }
  throw new HttpError(
    415,
    `unsupported Content-Type "${type}": use application/json, application/x-ndjson or text/csv`,
  );
}

/** The `csv-delimiter` option checked: one character that is not a quote or a line break. */
function csvDelimiterOr400(value: string | undefined): string {
  if (value === undefined || value === "") return ",";
  if ([...value].length !== 1 || /["\r\n]/.test(value)) {
    throw new HttpError(400, "csv-delimiter: must be a single character other than a quote or a line break");
  }
  return value;
}

function tooMany(n: number): HttpError {
  return new HttpError(400, `too many events: ${n} in one request, at most ${MAX_EVENTS_PER_REQUEST}`);
}

/** An NDJSON line that is not JSON: becomes a failure entry. */
class LineError {
  constructor(readonly message: string) {}
}

/**
 * A CSV cell's value as the service stores it: unquoted `true`/`false` and numbers written as JSON writes them are
 * typed, an empty cell is no field (undefined), anything quoted or in the header stays text. Exported so that the
 * CLI's alert tests read a replayed CSV file's rows as ingest stores them.
 */
export function csvCell(value: string, ctx: { header: boolean; quoting: boolean }): unknown {
  if (ctx.header || ctx.quoting) return value;
  if (value === "") return undefined;
  if (value === "true") return true;
  if (value === "false") return false;
  // A number only when it is written as JSON would write one: `007` or `.5` (a zip code, a version) stay text.
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value)) {
    const n = Number(value);
    if (Number.isFinite(n)) return n;
  }
  return value;
}

/** Raw values of the body: parsed values, or a {@link LineError} for a line that is not JSON. */
function rawEvents(
  format: Format,
  text: string,
  csvDelimiter = ",",
  csvFields?: readonly string[],
): unknown[] {
  if (format === "json") {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new HttpError(400, `request body is not valid JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(value)) throw new HttpError(400, "request body must be a JSON array of events");
    if (value.length > MAX_EVENTS_PER_REQUEST) throw tooMany(value.length);
    return value;
  }
  if (format === "ndjson") {
    // Blank lines (also whitespace only, e.g. the `\r` of CRLF) separate nothing and are not events.
    const nonEmpty = text.split("\n").filter((line) => line.trim() !== "");
    if (nonEmpty.length > MAX_EVENTS_PER_REQUEST) throw tooMany(nonEmpty.length);
    // One parse per line, so that a line is exactly one event: parsing the lines joined into one array would
    // let a broken line (`{"a":1},{"b":2}`, or an object split over lines) count as some other number of events.
    const values: unknown[] = new Array(nonEmpty.length);
    let broken = false;
    for (let i = 0; i < nonEmpty.length; i++) {
      try {
        values[i] = JSON.parse(nonEmpty[i]) as unknown;
      } catch (err) {
        broken = true;
        values[i] = new LineError(`line ${i + 1}: invalid JSON: ${(err as Error).message}`);
      }
    }
    if (broken && nonEmpty.length > 1) {
      // A single object spread over several lines is one event, not many broken lines.
      try {
        const whole = JSON.parse(text) as unknown;
        if (typeof whole === "object" && whole !== null && !Array.isArray(whole)) return [whole];
      } catch {
        /* the per-line failures stand */
      }
    }
    return values;
  }
  let rows: Record<string, unknown>[];
  try {
    rows = parseCsv(text, {
      // Given field names replace the header row: the first line is then an event (OpenAPI `X-Axiom-CSV-Fields`).
      columns: csvFields && csvFields.length > 0 ? [...csvFields] : true,
      delimiter: csvDelimiter,
      skip_empty_lines: true,
      bom: true,
      cast: csvCell,
    }) as Record<string, unknown>[];
  } catch (err) {
    // A line whose field count differs from the names given in the header is the header's mismatch as much as the
    // body's: say so, so the caller knows which of the two to look at.
    const named =
      csvFields &&
      csvFields.length > 0 &&
      (err as { code?: string }).code === "CSV_RECORD_INCONSISTENT_COLUMNS"
        ? ` (X-Axiom-CSV-Fields names ${csvFields.length} fields)`
        : "";
    throw new HttpError(400, `request body is not valid CSV${named}: ${(err as Error).message}`);
  }
  if (rows.length > MAX_EVENTS_PER_REQUEST) throw tooMany(rows.length);
  for (const row of rows) for (const k of Object.keys(row)) if (row[k] === undefined) delete row[k];
  return rows;
}

/** Why a value breaks the field-name or nesting limits, or undefined when it keeps them. */
function limitProblem(value: unknown, depth: number): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (depth > MAX_NESTING) return `nesting deeper than ${MAX_NESTING} levels`;
  if (Array.isArray(value)) {
    for (const v of value) {
      const p = limitProblem(v, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  for (const key in value) {
    // A UTF-16 length of 66 or less cannot exceed 200 UTF-8 bytes, so most keys skip the byte count.
    if (key.length > 66 && Buffer.byteLength(key) > MAX_FIELD_NAME_BYTES) {
      return `field name "${key.slice(0, 40)}…" is longer than ${MAX_FIELD_NAME_BYTES} bytes`;
    }
    const p = limitProblem((value as Record<string, unknown>)[key], depth + 1);
    if (p) return p;
  }
  return undefined;
}

const RESERVED = new Set<string>(RESERVED_FIELDS);

/** Parses a body into events; request-level problems throw an {@link HttpError}, per-event ones are failures. */
export function parseIngest(
  body: Buffer,
  contentType: string | undefined,
  options: IngestOptions,
): ParsedIngest {
  const text = body.toString("utf8");
  const format = detectFormat(contentType, text);
  const raw = rawEvents(
    format,
    text,
    format === "csv" ? csvDelimiterOr400(options.csvDelimiter) : ",",
    options.csvFields,
  );
  const labels = options.labels && Object.keys(options.labels).length > 0 ? options.labels : undefined;
  const mapFields = options.mapFields ?? NO_MAP_FIELDS;
  const field = options.timestampField || "_time";
  const layout = options.timestampFormat ? compileGoLayout(options.timestampFormat) : undefined;
  const failureTime = formatNs(options.nowNs);
  const events: IncomingEvent[] = [];
  const failures: IngestFailure[] = [];
  const fail = (error: string) => failures.push({ timestamp: failureTime, error });
  for (let i = 0; i < raw.length; i++) {
    const value = raw[i];
    if (value instanceof LineError) {
      fail(value.message);
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      fail(
        `event ${i}: must be a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`,
      );
      continue;
    }
    // The limits hold for the event as sent (its own names and depth), before flattening joins names.
    const problem = limitProblem(value, 1);
    if (problem) {
      fail(`event ${i}: ${problem}`);
      continue;
    }
    const event = value as Record<string, unknown>;
    let timeNs = options.nowNs;
    // Own keys only: a timestamp-field such as "toString" must not find Object.prototype's method.
    const ts = timestampOf(event, field);
    if (ts !== undefined && ts !== null && ts !== "") {
      let parsed: bigint | undefined;
      let why = "not an RFC 3339 time or a Unix time number";
      if (layout) {
        try {
          parsed = parseGoLayout(layout, String(ts));
        } catch (err) {
          why = `does not match timestamp-format "${options.timestampFormat}": ${(err as Error).message}`;
        }
      } else parsed = parseTimestampHeuristic(ts);
      if (parsed === undefined) {
        fail(
          `event ${i}: cannot parse timestamp field "${field}" value ${JSON.stringify(ts).slice(0, 80)}: ${why}`,
        );
        continue;
      }
      timeNs = parsed;
    }
    events.push({ timeNs, data: storedFields(event, labels, field, mapFields) });
  }
  return { events, failures, total: raw.length };
}

const NO_MAP_FIELDS: ReadonlySet<string> = new Set();

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The time field's value: the event's own key (so "toString" never finds Object.prototype's method), else, for a
 * dotted name, the value at that path, the name it has once flattened. */
function timestampOf(event: Record<string, unknown>, field: string): unknown {
  if (Object.hasOwn(event, field)) return event[field];
  if (!field.includes(".")) return undefined;
  const stored = storedFields(event, undefined, "", NO_MAP_FIELDS);
  return Object.hasOwn(stored, field) ? stored[field] : undefined;
}

/** True when the event is stored as it came: no time field to drop, no reserved name, no nested object. */
function storedAsIs(event: Record<string, unknown>, field: string): boolean {
  for (const key in event) {
    if (key === field || key === "_time" || isObject(event[key])) return false;
    if (key.charCodeAt(0) === 95 && RESERVED.has(key)) return false;
  }
  return true;
}

/**
 * The event's fields as the service stores them, built in one pass (one copy, or none when nothing changes):
 * - nested objects flattened into dotted names (`{"bar":{"baz":1}}` becomes `bar.baz`), except an object under
 *   a map field, which stays whole (axiomhq/axiom-go axiom/datasets_integration_test.go, TestIngestWithMapFields:
 *   `foo` ingested as a map field is one field, `bar` ingested after is two); arrays stay as they are, and an
 *   empty object leaves no field;
 * - the labels added where the event has no field of that name (labels only add);
 * - the time field (and `_time`) left out, as it became the event's time;
 * - a reserved name renamed to `_user_<name>`.
 */
export function storedFields(
  event: Record<string, unknown>,
  labels: Record<string, unknown> | undefined,
  field: string,
  mapFields: ReadonlySet<string>,
): Record<string, unknown> {
  if (labels === undefined && storedAsIs(event, field)) return event;
  const out: Record<string, unknown> = {};
  const walk = (prefix: string, obj: Record<string, unknown>, depth: number) => {
    for (const key in obj) {
      const name = prefix === "" ? key : `${prefix}.${key}`;
      const v = obj[key];
      if (isObject(v) && !mapFields.has(name) && depth < MAX_NESTING) walk(name, v, depth + 1);
      else if (name !== field && name !== "_time") {
        out[name.charCodeAt(0) === 95 && RESERVED.has(name) ? `_user_${name}` : name] = v;
      }
    }
  };
  // Labels first, so that the event's own fields overwrite them.
  if (labels !== undefined) walk("", labels, 1);
  walk("", event, 1);
  return out;
}

/** A dataset name as the service allows it: letters, digits, `-`, `_` and `.`, not starting with `_`. */
export function datasetNameProblem(name: string): string | undefined {
  if (name === "") return "dataset name must not be empty";
  if (name.length > 128) return "dataset name must be at most 128 characters";
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    return `dataset name "${name.slice(0, 40)}" must start with a letter or digit and contain only letters, digits, "-", "_" and "."`;
  }
  return undefined;
}
