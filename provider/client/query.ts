/**
 * Queries: one page through `_apl` or the legacy endpoint, and `paginate`, which walks every page.
 * Query POSTs only read, so the transport retries them like GETs.
 */
import { z } from "zod";
import {
  LegacyResultSchema,
  TabularResultSchema,
  type LegacyQueryRequest,
  type LegacyResult,
  type Match,
  type TabularResult,
} from "../schemas";
import { path, queryString } from "./path";
import type { RequestOptions, Transport } from "./transport";

/** Options of `client.query`. */
export interface QueryOptions extends RequestOptions {
  /** RFC 3339 or relative (`now-1h`) start of the window. */
  startTime?: string;
  /** RFC 3339 or relative end of the window. */
  endTime?: string;
  /** Continue from this row id (cursor paging, preview). */
  cursor?: string;
  /** Include the row the cursor names. Defaults to false on the service. */
  includeCursor?: boolean;
  /** `legacy` (rows as `matches`) or `tabular` (column-major tables). Defaults to `legacy`. */
  format?: "legacy" | "tabular";
}

/** Options of `client.paginate`. */
export interface PaginateOptions {
  /** Start of the window; RFC 3339 or relative. Required. */
  startTime: string;
  /** End of the window; RFC 3339 or relative. Required. */
  endTime: string;
  /** `timestamp` (default, recommended) or `cursor` (preview). */
  mode?: "timestamp" | "cursor";
  /** Sort order; defaults to the APL's `sort by _time` direction, else `desc`. */
  order?: "asc" | "desc";
  /** Rows per page; defaults to the APL's `limit`/`take`, else 1,000. */
  pageSize?: number;
  /** Stops the walk; the iterator then rejects with AbortError. */
  signal?: AbortSignal;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
}

/** One page of `_apl`. @see POST /v1/datasets/_apl */
export function queryApl(
  transport: Transport,
  apl: string,
  options: QueryOptions & { format: "tabular" },
): Promise<TabularResult>;
export function queryApl(transport: Transport, apl: string, options?: QueryOptions): Promise<LegacyResult>;
export function queryApl(
  transport: Transport,
  apl: string,
  options: QueryOptions = {},
): Promise<LegacyResult | TabularResult> {
  const format = options.format ?? "legacy";
  return transport.request<LegacyResult | TabularResult>({
    method: "POST",
    path: `/v1/datasets/_apl${queryString({ format })}`,
    json: {
      apl,
      startTime: options.startTime,
      endTime: options.endTime,
      cursor: options.cursor,
      includeCursor: options.includeCursor,
    },
    schema: format === "tabular" ? TabularResultSchema : LegacyResultSchema,
    idempotent: true,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  });
}

/** One page of the legacy query endpoint. @see POST /v1/datasets/{name}/query */
export function queryLegacy(
  transport: Transport,
  dataset: string,
  request: LegacyQueryRequest,
  options: RequestOptions = {},
): Promise<LegacyResult> {
  return transport.request({
    method: "POST",
    path: path`/v1/datasets/${dataset}/query`,
    json: request,
    schema: LegacyResultSchema,
    idempotent: true,
    ...options,
  });
}

const SORT = /\|\s*(?:sort|order)\s+by\s+_time(?:\s+(asc|desc))?\s*(?=\||$)/i;
const LIMIT = /\|\s*(?:limit|take)\s+(\d+)\s*(?=\||$)/i;

/** The APL a paginated walk sends: the caller's, with `sort by _time <order>` and `limit <n>` appended when
 * absent. A query that limits before sorting by time is refused, since its pages would not follow `_time`. */
export function paginationApl(
  apl: string,
  order: "asc" | "desc" | undefined,
  pageSize: number | undefined,
): { apl: string; order: "asc" | "desc"; pageSize: number } {
  const text = apl.trim();
  const sort = SORT.exec(text);
  const limit = LIMIT.exec(text);
  if (limit && (!sort || limit.index < sort.index)) {
    throw new TypeError(
      "paginate: the APL has a limit but no `sort by _time` before it; add `| sort by _time asc|desc` before the limit",
    );
  }
  // `sort by _time` without a direction is descending on the service.
  const aplOrder = sort ? ((sort[1]?.toLowerCase() as "asc" | "desc" | undefined) ?? "desc") : undefined;
  if (order && aplOrder && order !== aplOrder) {
    throw new TypeError(`paginate: options.order is ${order} but the APL sorts by _time ${aplOrder}`);
  }
  const effectiveOrder = order ?? aplOrder ?? "desc";
  const aplLimit = limit ? Number(limit[1]) : undefined;
  if (pageSize !== undefined && (!Number.isInteger(pageSize) || pageSize < 1)) {
    throw new RangeError(`paginate: options.pageSize must be a positive integer, got ${pageSize}`);
  }
  if (pageSize !== undefined && aplLimit !== undefined && pageSize !== aplLimit) {
    throw new TypeError(`paginate: options.pageSize is ${pageSize} but the APL limits to ${aplLimit}`);
  }
  const size = aplLimit ?? pageSize ?? 1000;
  let out = text;
  if (!sort) out += ` | sort by _time ${effectiveOrder}`;
  if (!limit) out += ` | limit ${size}`;
  return { apl: out, order: effectiveOrder, pageSize: size };
}

/** What a walk needs of a page; rows are checked for `_time`/`_rowId` only, since validating every field of
 * thousands of rows per page with the full schema costs more than the rest of the walk. */
const WalkPageSchema = z.looseObject({
  status: z.looseObject({ minCursor: z.string().optional(), maxCursor: z.string().optional() }),
  matches: z.array(
    z.custom<Match>(
      (row) =>
        typeof row === "object" &&
        row !== null &&
        typeof (row as Match)._time === "string" &&
        typeof (row as Match)._rowId === "string",
      { error: "must be a row with string _time and _rowId" },
    ),
  ),
});
type WalkPage = z.infer<typeof WalkPageSchema>;

/** One page of a walk: `_apl` in the legacy format, read-only so retried like a GET. */
function walkPage(
  transport: Transport,
  apl: string,
  body: { startTime: string; endTime: string; cursor?: string },
  request: RequestOptions,
): Promise<WalkPage> {
  return transport.request({
    method: "POST",
    path: `/v1/datasets/_apl${queryString({ format: "legacy" })}`,
    json: { apl, ...body },
    schema: WalkPageSchema,
    idempotent: true,
    ...request,
  });
}

/** Thrown when timestamp paging cannot move on: more rows share one `_time` than fit in a page. */
export class PaginationStalledError extends Error {
  override readonly name = "PaginationStalledError";
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** An RFC 3339 time as bigint nanoseconds (Date stops at ms; rows carry ns). */
export function timeNs(text: string): bigint {
  const m = RFC3339.exec(text);
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(ms))
    throw new TypeError(`paginate: row _time is not RFC 3339: ${JSON.stringify(text)}`);
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? "").padEnd(9, "0"));
}

/**
 * Every row over all pages. Timestamp mode (the spec's recommended method) moves `endTime` (desc) or
 * `startTime` (asc) to the last row's `_time` without a ±1 ns step, so boundary rows are fetched again and
 * dropped by `_rowId`; only ids at the current boundary time are remembered, so memory stays bounded.
 * It stops on an empty page, a short page, or a page that brings nothing new.
 */
export async function* paginate(
  transport: Transport,
  apl: string,
  options: PaginateOptions,
): AsyncGenerator<Match> {
  if (!options || typeof options.startTime !== "string" || typeof options.endTime !== "string") {
    throw new TypeError("paginate: options.startTime and options.endTime are required");
  }
  const plan = paginationApl(apl, options.order, options.pageSize);
  const request = { signal: options.signal, timeoutMs: options.timeoutMs };
  if (options.mode === "cursor") {
    yield* paginateByCursor(transport, plan, options, request);
    return;
  }
  if (options.mode !== undefined && options.mode !== "timestamp") {
    throw new TypeError(`paginate: options.mode must be timestamp or cursor, got ${String(options.mode)}`);
  }
  const desc = plan.order === "desc";
  let startTime = options.startTime;
  let endTime = options.endTime;
  let boundary: bigint | undefined;
  let seenAtBoundary = new Set<string>();
  for (;;) {
    const page = await walkPage(transport, plan.apl, { startTime, endTime }, request);
    const rows = page.matches;
    if (rows.length === 0) return;
    let fresh = 0;
    let lastText = "";
    let t = 0n;
    for (const row of rows) {
      // Neighbouring rows often share a timestamp; parse each distinct string once.
      if (row._time !== lastText) {
        lastText = row._time;
        t = timeNs(lastText);
      }
      if (boundary !== undefined) {
        // Rows beyond the boundary were returned by an earlier page (a service whose bounds are inclusive
        // hands them back); rows at the boundary are new only if their id was not seen there.
        if (desc ? t > boundary : t < boundary) continue;
        if (t === boundary && seenAtBoundary.has(row._rowId)) continue;
      }
      if (boundary === undefined || t !== boundary) {
        boundary = t;
        seenAtBoundary = new Set();
      }
      seenAtBoundary.add(row._rowId);
      fresh++;
      yield row;
    }
    if (rows.length < plan.pageSize) return;
    if (fresh === 0) {
      throw new PaginationStalledError(
        `paginate: more than ${plan.pageSize} rows share _time ${rows[rows.length - 1]._time}; raise pageSize or use cursor mode`,
      );
    }
    const last = rows[rows.length - 1]._time;
    if (desc) endTime = last;
    else startTime = last;
  }
}

/** Cursor paging (preview): desc sends `status.minCursor`, asc `status.maxCursor`; stops when the cursor
 * comes back unchanged, on an empty page or on a short page. */
async function* paginateByCursor(
  transport: Transport,
  plan: { apl: string; order: "asc" | "desc"; pageSize: number },
  options: PaginateOptions,
  request: RequestOptions,
): AsyncGenerator<Match> {
  let cursor: string | undefined;
  for (;;) {
    const page = await walkPage(
      transport,
      plan.apl,
      { startTime: options.startTime, endTime: options.endTime, cursor },
      request,
    );
    const rows = page.matches;
    if (rows.length === 0) return;
    yield* rows;
    const next = plan.order === "desc" ? page.status.minCursor : page.status.maxCursor;
    if (rows.length < plan.pageSize || !next || next === cursor) return;
    cursor = next;
  }
}
