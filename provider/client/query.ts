/**
 * Queries: one page through `_apl` or the legacy endpoint, and `paginate`, which walks every page.
 * Query POSTs only read, so the transport retries them like GETs.
 */
import { z } from "zod";
import {
  LegacyResultSchema,
  QueryStatusSchema,
  TabularResultSchema,
  rowsOrEmpty,
  type LegacyQueryRequest,
  type LegacyResult,
  type Match,
  type TabularResult,
} from "../schemas";
import { parseRfc3339Ns } from "../time";
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
  /** Called once for each page the service answered: what a walk cost, in requests, for a caller that says so. */
  onPage?: () => void;
  /**
   * Timestamp paging when more rows share one `_time` than a page holds: `throw` (default) a
   * {@link PaginationStalledError}; `cursor` walks on from that page by the API's cursor (its other method, in
   * preview), never back to timestamps. A caller that must read every row (a backtest) asks for `cursor`.
   */
  onStall?: "throw" | "cursor";
}

/** Rows of the first table of a tabular result (its columns are column-major, aligned with its fields). */
export function* tabularRows(result: TabularResult): Generator<Record<string, unknown>> {
  const table = result.tables?.[0];
  // Results are read by shape, so a service that leaves out fields or columns yields no rows, not a crash.
  const fields = table?.fields ?? [];
  const columns = table?.columns ?? [];
  const length = columns.reduce((n, c) => Math.max(n, c?.length ?? 0), 0);
  for (let r = 0; r < length; r++) {
    const row: Record<string, unknown> = {};
    fields.forEach((f, i) => {
      if (f.name !== undefined) row[f.name] = columns[i]?.[r];
    });
    yield row;
  }
}

/** One page of `_apl`. @see POST /v1/datasets/_apl */
export function queryApl(
  transport: Transport,
  apl: string,
  options: QueryOptions & { format: "tabular" },
): Promise<TabularResult>;
export function queryApl(transport: Transport, apl: string, options?: QueryOptions): Promise<LegacyResult>;
export async function queryApl(
  transport: Transport,
  apl: string,
  options: QueryOptions = {},
): Promise<LegacyResult | TabularResult> {
  if (typeof apl !== "string" || apl.trim() === "")
    throw new TypeError("query: apl must be a non-empty string");
  const format = options.format ?? "legacy";
  if (format !== "legacy" && format !== "tabular") {
    throw new TypeError(`query: options.format must be legacy or tabular, got ${String(format)}`);
  }
  if (options.includeCursor !== undefined && typeof options.includeCursor !== "boolean") {
    throw new TypeError(
      `query: options.includeCursor must be a boolean, got ${typeof options.includeCursor}`,
    );
  }
  return transport.request<LegacyResult | TabularResult>(
    {
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
    },
    options,
  );
}

/** One page of the legacy query endpoint. @see POST /v1/datasets/{name}/query */
export async function queryLegacy(
  transport: Transport,
  dataset: string,
  request: LegacyQueryRequest,
  options: RequestOptions = {},
): Promise<LegacyResult> {
  return transport.request(
    {
      method: "POST",
      path: path`/v1/datasets/${dataset}/query`,
      json: request,
      schema: LegacyResultSchema,
      idempotent: true,
    },
    options,
  );
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
  // Only the end is trimmed, and what is added goes on lines of its own: an APL error's line and column then
  // point into the caller's text exactly as they wrote it (an error past its last line is in what was added).
  const text = apl.trimEnd();
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
  if (!sort) out += `\n| sort by _time ${effectiveOrder}`;
  if (!limit) out += `\n| limit ${size}`;
  return { apl: out, order: effectiveOrder, pageSize: size };
}

/** A row as a walk needs it: `_time` to move the window on, `_rowId` to drop rows fetched twice. */
export type PageRow = Match & { _time: string; _rowId: string };

/** Index of the first row without a string `_time` and `_rowId`, or -1 when every row has both. */
function firstBadRow(rows: readonly unknown[]): number {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as Partial<Match> | null;
    if (
      typeof row !== "object" ||
      row === null ||
      typeof row._time !== "string" ||
      typeof row._rowId !== "string"
    )
      return i;
  }
  return -1;
}

/** What a walk needs of a page. `status` is read as `query` reads it (nulls absent), and `matches: null` is no
 * rows, as for `query`. The rows are checked for string `_time`/`_rowId` in one plain loop over the array, which
 * is kept as parsed: a per-row schema (or copying the array) costs more than the rest of a walk. */
const WalkPageSchema = z.looseObject({
  status: QueryStatusSchema,
  matches: rowsOrEmpty(
    z.custom<PageRow[]>((rows) => Array.isArray(rows) && firstBadRow(rows) === -1, {
      error: (issue) =>
        Array.isArray(issue.input)
          ? `row ${firstBadRow(issue.input)} must have a string _time and _rowId`
          : "must be an array of rows",
    }),
  ),
});
type WalkPage = z.infer<typeof WalkPageSchema>;

/** One page of a walk: `_apl` in the legacy format, read-only so retried like a GET. */
function walkPage(
  transport: Transport,
  apl: string,
  body: { startTime: string; endTime: string; cursor?: string },
  options: RequestOptions,
): Promise<WalkPage> {
  return transport.request(
    {
      method: "POST",
      path: `/v1/datasets/_apl${queryString({ format: "legacy" })}`,
      json: { apl, ...body },
      schema: WalkPageSchema,
      idempotent: true,
    },
    options,
  );
}

/** Thrown when timestamp paging cannot move on: more rows share one `_time` than fit in a page. */
export class PaginationStalledError extends Error {
  override readonly name = "PaginationStalledError";
}

/** A row's RFC 3339 `_time` as bigint nanoseconds (Date stops at ms; rows carry ns). */
export function timeNs(text: string): bigint {
  const ns = parseRfc3339Ns(text);
  if (ns === undefined) throw new TypeError(`paginate: row _time is not RFC 3339: ${JSON.stringify(text)}`);
  return ns;
}

type Plan = { apl: string; order: "asc" | "desc"; pageSize: number };

/**
 * Every row over all pages. Timestamp mode (the method the API reference recommends) moves `endTime` (desc) or
 * `startTime` (asc) to the last row's `_time` without a ±1 ns step, so boundary rows are fetched again and
 * dropped by `_rowId`; only ids at the current boundary time are remembered, so memory stays bounded.
 * It stops on an empty page, a short page, or a page that brings nothing new.
 *
 * Pages are fetched by an inner generator and rows handed out by a plain iterator, so a row costs one
 * resolved promise rather than a trip through an async generator.
 */
export function paginate(
  transport: Transport,
  apl: string,
  options: PaginateOptions,
): AsyncIterableIterator<PageRow> {
  return new RowIterator(pagesOf(transport, apl, options));
}

/** The walk, a page of fresh rows at a time; options are checked on the first `next()`. */
async function* pagesOf(
  transport: Transport,
  apl: string,
  options: PaginateOptions,
): AsyncGenerator<readonly PageRow[]> {
  if (!options || typeof options.startTime !== "string" || typeof options.endTime !== "string") {
    throw new TypeError("paginate: options.startTime and options.endTime are required strings");
  }
  if (options.mode !== undefined && options.mode !== "timestamp" && options.mode !== "cursor") {
    throw new TypeError(`paginate: options.mode must be timestamp or cursor, got ${String(options.mode)}`);
  }
  if (options.order !== undefined && options.order !== "asc" && options.order !== "desc") {
    throw new TypeError(`paginate: options.order must be asc or desc, got ${String(options.order)}`);
  }
  if (options.onStall !== undefined && options.onStall !== "throw" && options.onStall !== "cursor") {
    throw new TypeError(`paginate: options.onStall must be throw or cursor, got ${String(options.onStall)}`);
  }
  const plan = paginationApl(apl, options.order, options.pageSize);
  if (options.mode === "cursor") yield* cursorPages(transport, plan, options);
  else yield* timestampPages(transport, plan, options);
}

/** Timestamp paging. Rows come sorted by `_time`, so only a page's leading rows can repeat an earlier page
 * and only its trailing rows form the next boundary: timestamps are parsed there, a few per page. */
async function* timestampPages(
  transport: Transport,
  plan: Plan,
  options: PaginateOptions,
): AsyncGenerator<readonly PageRow[]> {
  const desc = plan.order === "desc";
  let startTime = options.startTime;
  let endTime = options.endTime;
  // The last page's final `_time` (as sent back, and parsed), and the ids already yielded at that time.
  let boundaryText: string | undefined;
  let boundaryNs = 0n;
  let seenAtBoundary = new Set<string>();
  /** >0: beyond the boundary (an earlier page covered it), 0: at it, <0: not reached before. */
  const relation = (time: string): number => {
    if (time === boundaryText) return 0;
    const t = timeNs(time);
    if (t === boundaryNs) return 0;
    return t > boundaryNs === desc ? 1 : -1;
  };
  for (;;) {
    const page = await walkPage(transport, plan.apl, { startTime, endTime }, options);
    options.onPage?.();
    const rows = page.matches;
    if (rows.length === 0) return;
    let fresh: readonly PageRow[] = rows;
    if (boundaryText !== undefined) {
      // A service whose bounds are inclusive hands back rows at (or beyond) the boundary; keep only the
      // boundary rows whose id was not yielded yet.
      let head = 0;
      while (head < rows.length && relation(rows[head]._time) >= 0) head++;
      if (head > 0) {
        const kept: PageRow[] = [];
        for (let i = 0; i < head; i++) {
          const row = rows[i];
          if (relation(row._time) === 0 && !seenAtBoundary.has(row._rowId)) kept.push(row);
        }
        fresh = kept.length === 0 ? rows.slice(head) : kept.concat(rows.slice(head));
      }
    }
    if (fresh.length === 0 && rows.length >= plan.pageSize) {
      // Every row of a full page was handed out already: all share the boundary's time, and the next page by
      // time would be this one again. A cursor names a row, not a time: the walk goes on after this page's last.
      const cursor = desc ? page.status.minCursor : page.status.maxCursor;
      if (options.onStall === "cursor" && cursor) {
        yield* cursorPages(
          transport,
          plan,
          { ...options, startTime, endTime },
          { cursor, seen: seenAtBoundary },
        );
        return;
      }
      throw new PaginationStalledError(
        `paginate: more than ${plan.pageSize} rows share _time ${rows[rows.length - 1]._time}; raise pageSize or use cursor mode`,
      );
    }
    if (fresh.length > 0) {
      // The new boundary is the last row's time; remember the ids of the trailing rows that share it.
      const lastText = fresh[fresh.length - 1]._time;
      const lastNs = timeNs(lastText);
      if (boundaryText === undefined || lastNs !== boundaryNs) seenAtBoundary = new Set();
      for (let i = fresh.length - 1; i >= 0; i--) {
        const row = fresh[i];
        if (row._time !== lastText && timeNs(row._time) !== lastNs) break;
        seenAtBoundary.add(row._rowId);
      }
      boundaryText = lastText;
      boundaryNs = lastNs;
      yield fresh;
    }
    if (rows.length < plan.pageSize) return;
    const last = rows[rows.length - 1]._time;
    if (desc) endTime = last;
    else startTime = last;
  }
}

/** Cursor paging (preview): desc sends `status.minCursor`, asc `status.maxCursor`; stops when the cursor
 * comes back equal to the one sent, on an empty page or on a short page. The row the cursor names was
 * yielded with the page before, so it is dropped should the service send it again. */
async function* cursorPages(
  transport: Transport,
  plan: Plan,
  options: PaginateOptions,
  /** Where a stalled timestamp walk left off: the cursor to start after, and the rows it handed out there. */
  from?: { cursor: string; seen: ReadonlySet<string> },
): AsyncGenerator<readonly PageRow[]> {
  let cursor = from?.cursor;
  for (;;) {
    const page = await walkPage(
      transport,
      plan.apl,
      { startTime: options.startTime, endTime: options.endTime, cursor },
      options,
    );
    options.onPage?.();
    const rows = page.matches;
    if (rows.length === 0) return;
    const sent = cursor;
    const seen = from?.seen;
    yield seen !== undefined && rows.some((r) => seen.has(r._rowId))
      ? rows.filter((r) => r._rowId !== sent && !seen.has(r._rowId))
      : sent === undefined || !rows.some((r) => r._rowId === sent)
        ? rows
        : rows.filter((r) => r._rowId !== sent);
    const next = plan.order === "desc" ? page.status.minCursor : page.status.maxCursor;
    if (rows.length < plan.pageSize || !next || next === sent) return;
    cursor = next;
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/** Hands out the rows of a page generator one by one. A `next()` made while a page is being fetched waits
 * for it, so rows come in order even when calls overlap. */
class RowIterator implements AsyncIterableIterator<PageRow> {
  private rows: readonly PageRow[] = [];
  private index = 0;
  private fetching: Promise<IteratorResult<PageRow>> | undefined;
  private finished = false;

  constructor(private readonly pages: AsyncGenerator<readonly PageRow[]>) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<PageRow>> {
    if (this.index < this.rows.length)
      return Promise.resolve({ value: this.rows[this.index++], done: false });
    if (this.finished) return Promise.resolve(DONE);
    if (this.fetching) {
      const again = () => this.next();
      return this.fetching.then(again, again);
    }
    const fetching = this.nextPage();
    this.fetching = fetching;
    // Registered before any caller's reaction, so callers waiting on this fetch see it cleared.
    const clear = () => {
      if (this.fetching === fetching) this.fetching = undefined;
    };
    fetching.then(clear, clear);
    return fetching;
  }

  /** Stops the walk (`break` out of `for await`): no further page is requested. */
  async return(): Promise<IteratorResult<PageRow>> {
    this.finish();
    await this.pages.return(undefined);
    return DONE;
  }

  private async nextPage(): Promise<IteratorResult<PageRow>> {
    for (;;) {
      let result: IteratorResult<readonly PageRow[]>;
      try {
        result = await this.pages.next();
      } catch (err) {
        this.finish();
        throw err;
      }
      if (result.done || this.finished) {
        this.finish();
        return DONE;
      }
      if (result.value.length > 0) {
        this.rows = result.value;
        this.index = 1;
        return { value: this.rows[0], done: false };
      }
    }
  }

  private finish(): void {
    this.finished = true;
    this.rows = [];
    this.index = 0;
  }
}
