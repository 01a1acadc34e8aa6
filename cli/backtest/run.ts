/**
 * Runs monitors over a past period of the service's events, by the emulator's own rules (the pure judge of
 * emulator/alerting/judge.ts, one run after another as emulator/alerting/replay.ts makes them), and sends nothing
 * anywhere. Each monitor takes one of two paths:
 *
 * - `service`: a decomposable query (./decompose.ts) is sent to the service once for the period, binned at the
 *   finest grain its runs need, in as few requests as the result limit allows; each run's window is rebuilt
 *   from those bins.
 * - `events`: any other query. Only the events it reads are fetched (its dataset, its leading `where` filters
 *   pushed down, the columns it names) through the query API's paging, into a local store that keeps only what the next runs' windows
 *   still need, and each run's query runs there on the emulator's engine.
 */
import {
  ApiError,
  ForbiddenError,
  NotFoundError,
  PaginationStalledError,
  type ObservabilityClient,
} from "../../provider/client";
import { parseApl } from "../../emulator/apl";
import { readAlerts } from "../../emulator/alerting/alert-state";
import { runSpan, type QueryOutcome, type QueryWindow } from "../../emulator/alerting/judge";
import type { RunnableMonitor } from "../../emulator/alerting/monitor";
import { replay, type ReplayedRun } from "../../emulator/alerting/replay";
import { storeCatalog } from "../../emulator/catalog";
import { queryTable } from "../../emulator/query/table";
import { EventStore } from "../../emulator/store/events";
import { formatNs, parseRfc3339Ns } from "../../emulator/time";
import {
  BIN_COLUMN,
  decompose,
  grainNs,
  patternReason,
  readsNow,
  Rebuilder,
  rewrite,
  type Decomposition,
  FineRows,
} from "./decompose";

/** A monitor to backtest, with the notifiers it names (by their keys in the stack or test file). */
export interface BacktestMonitor {
  /** Its resource name (the stack's or the test file's key). */
  key: string;
  monitor: RunnableMonitor;
  notifiers: string[];
  /**
   * Each of its notifiers' `disabledUntil` (ms since the epoch), for those that have one: a notification sent
   * before it is held, as the emulator holds it (emulator/alerting/notify), and the report lists it as held.
   */
  mutedUntil?: Record<string, number>;
}

/** The period: runs at `(fromMs, toMs]`. */
export interface Period {
  fromMs: number;
  toMs: number;
}

/**
 * The most rows one query answers: the query API's `limit` goes up to 50,000 (the API reference's legacy query
 * request, which the emulator's SERVER_PAGE_LIMIT follows). An answer that fills it may have been cut in its last
 * bin, so the next request starts at that bin (see fetchFine).
 */
export const RESULT_ROW_LIMIT = 50_000;
/** Rows per page of the event path's fetch. */
export const PAGE_ROWS = 10_000;
/** The default of `--max-events`. */
export const DEFAULT_MAX_EVENTS = 5_000_000;
/**
 * The default of `--max-runs`: every run is kept for the report (its values, what it decided), about 300 bytes
 * each (a month of 20 one-minute monitors, 864,000 runs, held 253 MiB after a collection: bench/backtest.mts's
 * service path), so two million stay well inside Node's default heap on each side of a diff.
 */
export const DEFAULT_MAX_RUNS = 2_000_000;

/** What one monitor's backtest did. */
export interface MonitorBacktest extends BacktestMonitor {
  path: "service" | "events";
  /** Why the monitor took the event path (the rewrite's reason), when it did. */
  why?: string;
  /** Requests sent to the service, and rows they answered. */
  requests: number;
  rows: number;
  runs: ReplayedRun[];
  /** A failure of the whole monitor (its dataset missing, no query rights, a query a backtest cannot run): no runs
   * then. */
  error?: string;
  /** The error is the service's: it was unreachable, refused the token, or answered otherwise than asked. The
   * command exits 1 for a head monitor so, where a monitor a backtest cannot run by design is only reported. */
  unanswered?: boolean;
  /** The monitor whose answer this one's runs were rebuilt from (the same query over the same span): its
   * requests and rows are counted there, and none here. */
  reused?: string;
}

/** A backtest that must not start (too many events): the message says how many and how to narrow it. */
export class BacktestRefused extends Error {
  override readonly name = "BacktestRefused";
}

/** Options of {@link backtest}. */
export interface BacktestOptions {
  maxEvents?: number;
  /** The most runs in all (default {@link DEFAULT_MAX_RUNS}); more, and nothing starts. */
  maxRuns?: number;
  /** The most rows one answer holds (default {@link RESULT_ROW_LIMIT}): lower for a service that answers fewer. */
  resultRowLimit?: number;
  /** Now, for the datasets' retention (default: the machine's). */
  nowMs?: number;
  /** `events` takes the event path for every monitor (the property test compares the two paths with it). */
  paths?: "auto" | "events";
  /** Answers to share with another backtest over the same period (a diff's base and head). */
  answers?: AnswerCache;
  /** Events fetched so far of `total` (the event path's progress). */
  onProgress?: (fetched: number, total: number) => void;
}

const NS_PER_MS = 1_000_000n;
const DAY_NS = 86_400_000n * NS_PER_MS;
const ns = (ms: number) => BigInt(ms) * NS_PER_MS;

/** The first and last run of a monitor in the period, or undefined when it has none. */
const periodRuns = (m: RunnableMonitor, period: Period) => runSpan(m, period.fromMs, period.toMs);

/** What the service said, as a line naming the monitor's dataset where it matters. */
function serviceError(err: unknown, dataset: string): string {
  if (err instanceof ForbiddenError) {
    // The service's own words tell a token it does not know, or a personal token without the org id, from a
    // token without rights: each needs a different fix.
    const said = err.serviceMessage ? `: ${err.serviceMessage}` : "";
    return err.status === 401
      ? `the service refused the token (401${said}): check OBSERVABILITY_TOKEN or --token-file`
      : `the token may not query dataset ${dataset} (403${said}): give it query rights on ${dataset}, or give --org-id with a personal access token`;
  }
  if (err instanceof NotFoundError) return `dataset ${dataset} does not exist on the service (404)`;
  if (err instanceof ApiError) return `the service answered ${err.status ?? "no response"}: ${err.message}`;
  // More events of one instant than a page, and no cursor in the answer to page past them by.
  if (err instanceof PaginationStalledError)
    return `the service gave no cursor to page past more events of one instant than a page holds (${err.message})`;
  throw err;
}

/** What the event path fetches for a monitor: per dataset its APL, over the window `[startNs, endNs)`. */
export interface EventFetch {
  sources: { dataset: string; apl: string }[];
  startNs: bigint;
  endNs: bigint;
}

/**
 * What the event path fetches for a monitor. A query of one dataset sends its leading `where`s to the service and
 * asks for the columns it names; a query that reads several (union, join, lookup, named each) fetches each of them
 * whole over the window. Undefined when the monitor makes no run in the period.
 */
export function eventFetch(m: RunnableMonitor, period: Period): EventFetch | { reason: string } | undefined {
  const span = periodRuns(m, period);
  if (!span) return undefined;
  let q;
  try {
    q = parseApl(m.aplQuery);
  } catch (err) {
    return { reason: `its query does not parse: ${(err as Error).message}` };
  }
  if (q.lets.length > 0) return { reason: "its query uses let, which a backtest does not fetch for" };
  const datasets = [...new Set(q.datasets)].filter((d) => d !== "");
  if (datasets.length === 0) return { reason: "its query reads no dataset" };
  const pattern = patternReason(datasets);
  if (pattern !== undefined) return { reason: pattern };
  const window = runQueriesSpan(m, span);
  if (datasets.length > 1) {
    return { sources: datasets.map((dataset) => ({ dataset, apl: `['${dataset}']` })), ...window };
  }
  // The leading `where`s go to the service; one that reads now() or ago() would be read at the fetch's time, not
  // at each run's, so pushing stops there.
  let cut = m.aplQuery.length;
  for (const op of q.ops) {
    if (op.op === "where" && !readsNow(op.expr)) continue;
    cut = m.aplQuery.lastIndexOf("|", op.pos);
    break;
  }
  // A match monitor's notification carries the whole event unless its query projects: fetch every column then.
  const carriesEvent = m.type === "MatchEvent" && !q.ops.some((o) => o.op === "project");
  const columns = carriesEvent ? undefined : columnsRead(q.ops);
  const projection = columns ? `\n| project ${["_time", ...columns].map((c) => `['${c}']`).join(", ")}` : "";
  return {
    sources: [{ dataset: q.dataset, apl: m.aplQuery.slice(0, cut).trimEnd() + projection }],
    ...window,
  };
}

/** Operators that read columns not named in the query (a pattern, the whole row). */
const READS_PATTERNS = new Set(["project-away", "project-keep", "project-reorder", "search", "getschema"]);
/** Functions that read the whole row or a column named by a value. */
const READS_ROW = new Set(["pack_all", "bag_pack_all", "column_ifexists", "hash"]);

/**
 * The top-level columns a query's operators read, so the fetch asks for those alone; undefined when that cannot
 * be told (a `*`, a column pattern, a function of the whole row), and the fetch then asks for every column.
 */
export function columnsRead(ops: readonly unknown[]): string[] | undefined {
  const names = new Set<string>();
  let whole = false;
  const walk = (node: unknown): void => {
    if (whole || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach(walk);
    const n = node as { kind?: string; op?: string; name?: string; path?: string[] };
    if (n.kind === "star" || (n.op !== undefined && READS_PATTERNS.has(n.op))) whole = true;
    else if (n.kind === "call" && n.name !== undefined && READS_ROW.has(n.name)) whole = true;
    else if (n.kind === "field" && n.path && n.path.length > 0) names.add(n.path[0]);
    for (const v of Object.values(node)) walk(v);
  };
  walk(ops);
  if (whole) return undefined;
  names.delete("_time");
  names.delete("_sysTime");
  // A name that a bracketed literal cannot carry plainly: every column, rather than a wrong one.
  if ([...names].some((c) => c.includes("'") || c.includes("\\"))) return undefined;
  return [...names].sort();
}

/** The span every run's queries read, `[startNs, endNs)`: the first window's start (an anomaly's baseline days
 * before it) to the last window's end. */
function runQueriesSpan(m: RunnableMonitor, span: { first: number; last: number }) {
  const delay = BigInt(m.secondDelay) * 1000n * NS_PER_MS;
  const minutes = m.type === "MatchEvent" ? m.intervalMinutes : m.rangeMinutes;
  const back = m.type === "AnomalyDetection" ? BigInt(Math.max(1, m.compareDays)) * DAY_NS : 0n;
  return {
    startNs: ns(span.first) - delay - BigInt(minutes) * 60_000n * NS_PER_MS - back,
    endNs: ns(span.last) - delay,
  };
}

/** The first number of a tabular answer (a `count`'s). */
function firstNumber(result: { tables?: { columns?: unknown[][] }[] }): number {
  const v = result.tables?.[0]?.columns?.[0]?.[0];
  return typeof v === "number" ? v : 0;
}

/** A monitor on the service-side path: its decomposition and the one query its runs are rebuilt from. */
interface ServicePlan {
  b: BacktestMonitor;
  d: Decomposition;
  grain: bigint;
  /** The rewritten query, and the span `[startNs, endNs)` it is asked over. */
  apl: string;
  startNs: bigint;
  endNs: bigint;
  dataset: string;
}

/** The rewritten query's answer over the plan's span: its fine rows in time order, or why it failed. */
interface FineAnswer {
  fine: FineRows;
  requests: number;
  rows: number;
  error?: string;
  /** The error is the service's (see {@link MonitorBacktest.unanswered}). */
  unanswered?: boolean;
}

/** Answers already asked for (or being asked), by their query and span: one request serves equal monitors. */
export type AnswerCache = Map<string, { by: string; answer: Promise<FineAnswer> }>;

/** The service-side plan of a monitor, the reason it takes the event path, or its empty result when the period
 * holds none of its runs. */
function planService(
  b: BacktestMonitor,
  period: Period,
  limit: number,
): ServicePlan | MonitorBacktest | { path?: undefined; why: string } {
  const m = b.monitor;
  if (m.type !== "Threshold") return { why: `a ${m.type} monitor is judged on its events` };
  const d = decompose(m.aplQuery);
  if ("reason" in d) return { why: d.reason };
  const span = periodRuns(m, period);
  if (!span) return { ...b, path: "service", requests: 0, rows: 0, runs: [] };
  const grain = grainNs(m, d);
  const { startNs, endNs } = runQueriesSpan(m, span);
  const dataset = parseApl(m.aplQuery).dataset;
  return { b, d, grain, apl: rewrite(d, grain, limit), startNs, endNs, dataset };
}

/** The first request of a service path asks for this share of an answer's grains (see fetchFine). */
const PROBE_SHARE = 8n;

/**
 * Sends a plan's rewritten query over its span, in as few requests as the result limit allows. The first asks for
 * an eighth of the grains one answer holds with one group: a probe, so that a query of many groups does not make
 * the service summarize the whole period to answer its first bins. Each next one is sized from the rows a grain
 * held so far, to fill four fifths of an answer. The answer is sorted by bin, so one that comes back full (it may
 * have been cut in its last bin) keeps every bin before its last, and the next request starts at that bin:
 * nothing is asked twice but the one cut bin.
 */
async function fetchFine(client: ObservabilityClient, plan: ServicePlan, limit: number): Promise<FineAnswer> {
  const { grain, apl, endNs } = plan;
  const out: FineAnswer = { fine: new FineRows(plan.startNs, grain), requests: 0, rows: 0 };
  const most = BigInt(limit);
  let chunk = grain * (most >= PROBE_SHARE ? most / PROBE_SHARE : 1n);
  let at = plan.startNs;
  while (at < endNs) {
    const to = at + chunk < endNs ? at + chunk : endNs;
    let result;
    try {
      out.requests++;
      result = await client.query(apl, {
        startTime: formatNs(at),
        endTime: formatNs(to - 1n),
        format: "tabular",
      });
    } catch (err) {
      return { ...out, error: serviceError(err, plan.dataset), unanswered: true };
    }
    const table = result.tables?.[0];
    const names = (table?.fields ?? []).map((f) => f.name);
    const columns = table?.columns ?? [];
    const binTexts = columns[names.indexOf(BIN_COLUMN)] ?? [];
    const length = columns.reduce((n, c) => Math.max(n, c?.length ?? 0), 0);
    out.rows += length;
    // Each row's grain, its bin read once for the groups that follow it (a bin's groups come one after another).
    let grains: number[] = [];
    let text: unknown;
    let grainOf: number | undefined;
    for (let i = 0; i < length; i++) {
      if (binTexts[i] !== text || i === 0) {
        const binNs = parseRfc3339Ns(String((text = binTexts[i]) ?? ""));
        const off = binNs === undefined ? -1n : binNs - plan.startNs;
        grainOf = off < 0n || off % grain !== 0n ? undefined : Number(off / grain);
        if (grainOf === undefined) {
          return {
            ...out,
            error:
              `the service answered ${BIN_COLUMN} ${JSON.stringify(text)}, which is not a bin of the query's ` +
              `${grain} ns grain from ${formatNs(plan.startNs)} on`,
            unanswered: true,
          };
        }
      }
      grains.push(grainOf!);
    }
    // The query sorts by bin; a service that answered otherwise is read in order here (a stable sort of the rows).
    let order: number[] | undefined;
    if (grains.some((k, i) => i > 0 && grains[i - 1] > k)) {
      const unsorted = grains;
      order = unsorted.map((_, i) => i).sort((x, y) => unsorted[x] - unsorted[y] || x - y);
      grains = order.map((i) => unsorted[i]);
    }
    // An answer that filled the limit may be cut in its last bin: that bin is asked for again.
    let keep = length;
    let reached = to;
    if (length >= limit) {
      const cut = grains[length - 1];
      if (plan.startNs + BigInt(cut) * grain <= at) {
        return {
          ...out,
          error:
            `one ${Number(grain / NS_PER_MS).toLocaleString("en-US")} ms bin of its query holds ` +
            `${limit.toLocaleString("en-US")} groups or more, the most one answer holds: group it by fewer ` +
            "columns, or filter it",
        };
      }
      while (keep > 0 && grains[keep - 1] >= cut) keep--;
      reached = plan.startNs + BigInt(cut) * grain;
    }
    const byName = new Map<string, readonly unknown[]>();
    names.forEach((name, j) => {
      if (name !== undefined && name !== BIN_COLUMN) byName.set(name, columns[j] ?? []);
    });
    if (keep < length) grains.length = keep;
    out.fine.add(grains, byName, order?.slice(0, keep));
    const perGrain = Math.max(out.fine.length / Number((reached - plan.startNs) / grain), 1);
    const nextGrains = BigInt(Math.max(1, Math.floor((0.8 * limit) / perGrain)));
    chunk = grain * (nextGrains < most ? nextGrains : most);
    at = reached;
  }
  return out;
}

/** The key of a plan's answer in an {@link AnswerCache}. */
const answerKey = (plan: ServicePlan) => `${plan.startNs}\n${plan.endNs}\n${plan.apl}`;

/**
 * The plan's answer: asked for now, or the one an equal plan (the same rewritten query over the same span, as a
 * diff's unchanged monitor and a threshold-only change are) already asked for. The monitor that asked counts the
 * requests and rows; the others name it in `reused`.
 */
function answerOf(client: ObservabilityClient, plan: ServicePlan, limit: number, cache: AnswerCache) {
  const key = answerKey(plan);
  const known = cache.get(key);
  if (known) return { answer: known.answer, reused: known.by };
  const answer = fetchFine(client, plan, limit);
  // Asked ahead of its turn: a failure is read when its turn comes, not reported unhandled before it.
  answer.catch(() => undefined);
  cache.set(key, { by: plan.b.key, answer });
  return { answer, reused: undefined };
}

/** How many monitors' answers the service is asked for ahead of the one being judged. */
const ANSWERS_AHEAD = 2;

/**
 * Asks for `count` answers one after another, each once the one before is in, and at most ANSWERS_AHEAD ahead
 * of the last one taken: `take(i)` hands over the i-th ask (in order) and lets the asking go on.
 */
export function askInTurn<A extends { answer: Promise<unknown> }>(count: number, ask: (i: number) => A) {
  const asks: Promise<A>[] = [];
  const started: ((a: A) => void)[] = [];
  for (let i = 0; i < count; i++) asks.push(new Promise<A>((resolve) => started.push(resolve)));
  let taken = 0;
  let wake: (() => void) | undefined;
  void (async () => {
    for (let i = 0; i < count; i++) {
      while (i >= taken + ANSWERS_AHEAD) await new Promise<void>((resolve) => (wake = resolve));
      const a = ask(i);
      started[i](a);
      // A failed answer is read when its turn comes; the next is asked for all the same.
      await a.answer.catch(() => undefined);
    }
  })();
  return {
    take: (i: number): Promise<A> => {
      taken = i + 1;
      wake?.();
      wake = undefined;
      return asks[i];
    },
  };
}

/** Runs judged between two turns of the event loop. */
const YIELD_EVERY_RUNS = 1024;

/** Every run of a plan's monitor, each window rebuilt from the fine rows. */
async function replayFine(plan: ServicePlan, answer: FineAnswer, period: Period, reused?: string) {
  const out: MonitorBacktest = {
    ...plan.b,
    path: "service",
    requests: reused ? 0 : answer.requests,
    rows: reused ? 0 : answer.rows,
    runs: [],
    ...(reused ? { reused } : {}),
  };
  if (answer.error)
    return { ...out, error: answer.error, ...(answer.unanswered ? { unanswered: true as const } : {}) };
  const rebuilder = new Rebuilder(plan.d, answer.fine, plan.b.monitor.columnName);
  let made = 0;
  const { runs } = await replay(plan.b.monitor, period.fromMs, period.toMs, (w) => {
    const outcome: QueryOutcome = { ok: true, table: rebuilder.window(w.startNs, w.endNs) };
    // Runs answered here never wait on the network: without a turn of the event loop now and then, the next
    // monitor's request would not even be written until this month of runs was judged.
    if (++made % YIELD_EVERY_RUNS !== 0) return outcome;
    return new Promise((resolve) => setImmediate(() => resolve(outcome)));
  });
  out.runs = runs;
  return out;
}

/** How many events a monitor's event path would fetch (one `count` request a dataset), or its failure. */
async function countEvents(
  client: ObservabilityClient,
  fetch: EventFetch,
): Promise<number | { error: string; unanswered: true }> {
  let total = 0;
  for (const source of fetch.sources) {
    try {
      const result = await client.query(`${source.apl}\n| count`, {
        startTime: formatNs(fetch.startNs),
        endTime: formatNs(fetch.endNs - 1n),
        format: "tabular",
      });
      total += firstNumber(result);
    } catch (err) {
      return { error: serviceError(err, source.dataset), unanswered: true };
    }
  }
  return total;
}

/**
 * The event path of one monitor: its events, fetched page by page in time order, go into a local store that
 * drops what no later run reads (an anomaly monitor's baselines keep the days before), and each run's queries run
 * there.
 */
async function eventPath(
  client: ObservabilityClient,
  b: BacktestMonitor,
  period: Period,
  fetch: EventFetch,
  progress: (n: number) => void,
): Promise<MonitorBacktest> {
  const m = b.monitor;
  const out: MonitorBacktest = { ...b, path: "events", requests: 0, rows: 0, runs: [] };
  const store = new EventStore();
  const catalog = storeCatalog(store, { datasets: fetch.sources.map((f) => f.dataset) });
  /** Each dataset's walk, in time order, and the first row it gave that the store does not hold yet. */
  const walks = fetch.sources.map((source) => ({
    source,
    rows: client
      .paginate(source.apl, {
        startTime: formatNs(fetch.startNs),
        endTime: formatNs(fetch.endNs - 1n),
        order: "asc",
        pageSize: PAGE_ROWS,
        // More events of one instant than a page holds (a burst, a batch stamped at once) would stall paging
        // by time; the walk goes on by cursor instead, as no event may be missed.
        onStall: "cursor",
        onPage: () => out.requests++,
      })
      [Symbol.asyncIterator](),
    pending: undefined as { timeNs: bigint; data: Record<string, unknown> } | undefined,
    done: false,
  }));
  let failing = fetch.sources[0].dataset;
  /** Fetches until every event before `untilNs` is in the store. */
  const fill = async (untilNs: bigint) => {
    for (const walk of walks) {
      failing = walk.source.dataset;
      const batch: { timeNs: bigint; data: Record<string, unknown> }[] = [];
      while (!walk.done) {
        if (!walk.pending) {
          const next = await walk.rows.next();
          if (next.done) {
            walk.done = true;
            break;
          }
          const match = next.value;
          walk.pending = { timeNs: parseRfc3339Ns(String(match._time ?? "")) ?? 0n, data: match.data ?? {} };
          out.rows++;
        }
        if (walk.pending.timeNs >= untilNs) break;
        batch.push(walk.pending);
        walk.pending = undefined;
      }
      if (batch.length > 0) store.append(walk.source.dataset, batch, 0n);
    }
    progress(out.rows);
  };
  const keepsHistory = m.type === "AnomalyDetection";
  try {
    const { runs } = await replay(
      m,
      period.fromMs,
      period.toMs,
      async (w: QueryWindow): Promise<QueryOutcome> => {
        await fill(w.endNs);
        const r = await queryTable(store, { apl: m.aplQuery, ...w, limit: RESULT_ROW_LIMIT }, catalog);
        // What no later window reads goes: windows only move forward (a baseline's are days back, so it keeps all).
        if (!keepsHistory && w.startNs > fetch.startNs)
          for (const f of fetch.sources) store.trim(f.dataset, w.startNs);
        return r.ok ? r : { ok: false, error: `${r.error.status}: ${r.error.message}` };
      },
    );
    out.runs = runs;
  } catch (err) {
    return { ...out, error: serviceError(err, failing), unanswered: true };
  }
  return out;
}

/**
 * Refuses a period that reaches back past a monitor's dataset's retention: its first runs would see no events and
 * say nothing true. A dataset the token may not read (a query-only token) or that does not exist is not checked
 * here; its queries say what is wrong.
 */
async function checkRetention(
  client: ObservabilityClient,
  monitors: readonly BacktestMonitor[],
  period: Period,
  nowMs: number,
): Promise<void> {
  const kept = new Map<string, number | undefined>();
  for (const b of monitors) {
    const span = periodRuns(b.monitor, period);
    if (!span) continue;
    let dataset: string;
    try {
      dataset = parseApl(b.monitor.aplQuery).dataset;
    } catch {
      continue;
    }
    if (dataset === "") continue;
    if (!kept.has(dataset)) {
      let days: number | undefined;
      try {
        const d = (await client.datasets.get(dataset)) as {
          retentionDays?: unknown;
          useRetentionPeriod?: unknown;
        };
        if (d.useRetentionPeriod === true && typeof d.retentionDays === "number" && d.retentionDays > 0)
          days = d.retentionDays;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
      }
      kept.set(dataset, days);
    }
    const days = kept.get(dataset);
    if (days === undefined) continue;
    const oldest = nowMs - days * 86_400_000;
    const reads = Number(runQueriesSpan(b.monitor, span).startNs / NS_PER_MS);
    if (reads < oldest) {
      // A start whose first run reads nothing older: later by what is missing and an hour to spare (the oldest
      // event kept moves on while the command is run again), on the run grid.
      const later = Math.ceil((oldest - reads + 3_600_000) / span.interval) * span.interval;
      throw new BacktestRefused(
        `monitor ${b.key} reads dataset ${dataset} from ${formatNs(ns(reads))}, but ${dataset} keeps ${days} ` +
          `day${days === 1 ? "" : "s"} of events (since ${formatNs(ns(oldest))}): its first runs would read ` +
          `events already gone; start the period at ${formatNs(ns(period.fromMs + later))} or later (--from)`,
      );
    }
  }
}

/** How many runs a monitor makes in the period: none while it is disabled (replay skips those, as the scheduler
 * does). */
function runsMade(m: RunnableMonitor, period: Period): number {
  const span = periodRuns(m, period);
  if (!span || m.disabled) return 0;
  const until = m.disabledUntil === null ? NaN : Date.parse(m.disabledUntil);
  const first = Number.isFinite(until)
    ? Math.max(span.first, Math.ceil(until / span.interval) * span.interval)
    : span.first;
  return first > span.last ? 0 : (span.last - first) / span.interval + 1;
}

/** Refuses a backtest of more than `maxRuns` runs in all, before anything is asked of the service: each run is
 * kept, and a long period at a short interval is more than memory holds. */
export function checkRuns(monitors: readonly BacktestMonitor[], period: Period, maxRuns: number): void {
  const each = monitors.map((b) => ({ key: b.key, runs: runsMade(b.monitor, period) }));
  const total = each.reduce((n, e) => n + e.runs, 0);
  if (total <= maxRuns) return;
  const most = [...each]
    .sort((a, b) => b.runs - a.runs)
    .slice(0, 5)
    .map((e) => `${e.key}: ${e.runs.toLocaleString("en-US")}`)
    .join(", ");
  throw new BacktestRefused(
    `the backtest would make ${total.toLocaleString("en-US")} monitor runs (${most}${each.length > 5 ? ", …" : ""}), ` +
      `more than --max-runs ${maxRuns.toLocaleString("en-US")}; narrow it with a shorter period (--since, ` +
      "--from/--to), fewer monitors (--monitor NAME), or raise --max-runs",
  );
}

/**
 * Backtests `monitors` over `period` against the service `client` talks to. The event path's events are counted
 * first (one request per monitor); over `maxEvents` in all, nothing is fetched and {@link BacktestRefused} says
 * how many and how to narrow it.
 */
export async function backtest(
  client: ObservabilityClient,
  monitors: readonly BacktestMonitor[],
  period: Period,
  options: BacktestOptions = {},
): Promise<MonitorBacktest[]> {
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  checkRuns(monitors, period, options.maxRuns ?? DEFAULT_MAX_RUNS);
  await checkRetention(client, monitors, period, options.nowMs ?? Date.now());
  const limit = options.resultRowLimit ?? RESULT_ROW_LIMIT;
  const cache = options.answers ?? new Map();
  const results: (MonitorBacktest | undefined)[] = [];
  const planned: { index: number; plan: ServicePlan }[] = [];
  const pending: {
    index: number;
    b: BacktestMonitor;
    why: string;
    fetch: EventFetch;
    count: number;
  }[] = [];
  for (const b of monitors) {
    const service =
      options.paths === "events"
        ? { why: "--paths events" as string, path: undefined }
        : planService(b, period, limit);
    if ("d" in service) {
      results.push(undefined);
      planned.push({ index: results.length - 1, plan: service });
      continue;
    }
    if (service.path !== undefined) {
      results.push(service);
      continue;
    }
    const why = service.why;
    results.push(undefined);
    const fetch = eventFetch(b.monitor, period);
    const index = results.length - 1;
    if (fetch === undefined) {
      results[index] = { ...b, path: "events", why: why, requests: 0, rows: 0, runs: [] };
    } else if ("reason" in fetch) {
      results[index] = {
        ...b,
        path: "events",
        why: why,
        requests: 0,
        rows: 0,
        runs: [],
        error: fetch.reason,
      };
    } else {
      const count = await countEvents(client, fetch);
      if (typeof count !== "number") {
        results[index] = {
          ...b,
          path: "events",
          why: why,
          requests: 1,
          rows: 0,
          runs: [],
          error: count.error,
          unanswered: true,
        };
      } else pending.push({ index, b, why: why, fetch, count });
    }
  }
  const total = pending.reduce((n, p) => n + p.count, 0);
  if (total > maxEvents) {
    const each = pending
      .filter((p) => p.count > 0)
      .sort((x, y) => y.count - x.count)
      .map((p) => `${p.b.key}: ${p.count.toLocaleString("en-US")}`)
      .join(", ");
    throw new BacktestRefused(
      `the backtest would fetch ${total.toLocaleString("en-US")} events (${each}), more than --max-events ` +
        `${maxEvents.toLocaleString("en-US")}; narrow it with a shorter period (--since, --from/--to), fewer ` +
        "monitors (--monitor NAME), or raise --max-events",
    );
  }
  // The service works out the next monitors' answers while this one's runs are rebuilt and judged here. It is
  // asked for one answer at a time, in the monitors' order (its engine answers one query after another, so two
  // at once would only delay the one needed first), and up to ANSWERS_AHEAD answers ahead of the judging: one
  // monitor may cost the service more than its judging, the next less. So up to three monitors' fine rows are
  // held at once (a month of them each); an answer no later monitor of this backtest reads is let go, unless the
  // caller keeps the answers for another one.
  const uses = new Map<string, number>();
  for (const { plan } of planned) uses.set(answerKey(plan), (uses.get(answerKey(plan)) ?? 0) + 1);
  const asking = askInTurn(planned.length, (i) => answerOf(client, planned[i].plan, limit, cache));
  for (const [i, { index, plan }] of planned.entries()) {
    const asked = await asking.take(i);
    const answer = await asked.answer;
    results[index] = await replayFine(plan, answer, period, asked.reused);
    const key = answerKey(plan);
    const left = uses.get(key)! - 1;
    uses.set(key, left);
    if (left === 0 && options.answers === undefined) cache.delete(key);
  }
  let before = 0;
  for (const p of pending) {
    const fetch = p.fetch;
    const r = await eventPath(client, p.b, period, fetch, (n) => options.onProgress?.(before + n, total));
    before += r.rows;
    // Besides its pages, a monitor's event path sent one count a dataset.
    results[p.index] = { ...r, why: p.why, requests: r.requests + p.fetch.sources.length };
  }
  return results as MonitorBacktest[];
}

/** A fresh alert state, for callers that judge from nothing. */
export const noAlerts = () => readAlerts(undefined);
