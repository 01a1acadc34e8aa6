/**
 * The query endpoints: `POST /v1/datasets/_apl?format=legacy|tabular` and the legacy
 * `POST /v1/datasets/{name}/query`. Both validate with the shared zod schemas, lower the request to one
 * plan, run it over the event store and shape the result as the service does.
 *
 * Time bounds are inclusive at both ends (`startTime <= _time <= endTime`), which is what the
 * paging advice of the service's API reference (axiom.co/docs/restapi) implies: not adjusting the bound risks overlap.
 */
import { AplError, compileQuery, fieldGetter, parseApl, type Column, type Plan, type PlanOp } from "../apl";
import { globTest } from "../apl/operators";
import { formatFailures, validate } from "../../provider/schemas/common";
import { AplRequestSchema, LegacyQueryRequestSchema, QueryFormatSchema } from "../../provider/schemas/query";
import { INVALID_FIELD_STATUS, errorReply, type Reply } from "../http";
import type { EventStoreApi } from "../store/events";
import { nowNs, parseQueryTimeNs } from "../time";
import { QueryBudget, QueryInterrupted, type QueryBudgetOptions } from "./budget";
import { execute, UnknownDatasetError, type ExecResult } from "./engine";
import { buildStatus, legacyBody, tabularBody } from "./format";
import {
  compileFieldExpression,
  compileLegacyFilter,
  isZeroFilter,
  legacyProjection,
  LegacyRequestError,
  legacySummarize,
  legacyVirtualFields,
} from "./legacy";

export { cursorDescending, execute, type ExecOptions, type ExecResult } from "./engine";
export {
  DEFAULT_QUERY_TIMEOUT_MS,
  QueryBudget,
  QueryInterrupted,
  SLICE_WORK,
  type QueryBudgetOptions,
} from "./budget";
export { compileLegacyFilter, LEGACY_FILTER_OPS, legacyProjection, LegacyRequestError } from "./legacy";

/** Page size when neither the query nor the request sets a limit (the API reference's default). */
export const DEFAULT_PAGE_LIMIT = 1000;
/** The server's own cap on a page, applied on top of the query's and the request's limits. */
export const SERVER_PAGE_LIMIT = 50_000;

function badRequest(message: string, detail?: unknown): Reply {
  return errorReply(400, message, detail);
}

/** A body field missing or invalid, answered with the status every route's body gives it. */
function invalidField(message: string): Reply {
  return errorReply(INVALID_FIELD_STATUS, message);
}

/** A dataset's virtual fields (`/v2/vfields`): the columns an APL query of it sees besides its events' fields. */
export type DatasetVirtualFields = (dataset: string) => readonly { name: string; expression: string }[];

/**
 * Whether a dataset exists. The server asks the datasets collection (a dataset created and still empty exists);
 * without one, a dataset exists once it holds events.
 */
export type DatasetExists = (name: string) => boolean;

/** A query the APL front end refused: 400 with `detail: {line, column, errorType, message}`. */
function aplErrorReply(err: AplError): Reply {
  const detail = { line: err.line, column: err.column, errorType: err.errorType, message: err.message };
  return badRequest(`apl: ${err.message} (line ${err.line}, column ${err.column})`, detail);
}

function notFound(dataset: string): Reply {
  return errorReply(404, `dataset "${dataset}" not found`);
}

/**
 * What a query that had to stop answers. Over its budget: 504, a gateway's "the work behind me took too long".
 * The service's published OpenAPI document (axiomhq/docs, content/docs/(api-reference)/restapi/versions/
 * v1-edge-query.json) gives `/query/_apl` only a `default` "User or system error", and no official client treats a
 * query timeout apart (axiomhq/axiom-go axiom/client.go special-cases only 429 and 430; @axiomhq/js
 * dist/esm/fetchClient.js retries 500, 502, 503 and 504 alike), so the status is the one Kusto's query service,
 * APL's model, documents for a query past its timeout (Azure Monitor Logs API, "Timeouts": 504 Gateway Timeout).
 * Shutting down: 503, the server is going away. Past its own memory budget: 400, as a query the engine refuses
 * (the query as written cannot run here; no official client retries a 400, which would only repeat the work).
 * Past the memory the running queries share: 503, the server is busy, and a retry later may pass.
 */
function interrupted(err: QueryInterrupted): Reply {
  const status = err.reason === "timeout" ? 504 : err.reason === "memory" ? 400 : 503;
  return errorReply(status, err.message);
}

/**
 * `execute` within `opts.budget`, with a stopped query answered as {@link interrupted} says. The budget is checked
 * first too: parsing and compiling are linear in the query's bounded size, but they count against it.
 */
async function executeWithin(
  events: Parameters<typeof execute>[0],
  plan: Plan,
  opts: Parameters<typeof execute>[2] & { budget: QueryBudget },
): Promise<ExecResult | Reply> {
  try {
    opts.budget.check();
    return await execute(events, plan, opts);
  } catch (err) {
    if (err instanceof QueryInterrupted) return interrupted(err);
    if (err instanceof UnknownDatasetError) return notFound(err.dataset);
    // An operator that finds its input unusable while running (project-rename of a missing column, a join key
    // neither side has) answers as a query error, like one found while compiling.
    if (err instanceof AplError) return aplErrorReply(err);
    throw err;
  }
}

/** Parses start/end times (inclusive); an error response when one is bad or they are reversed. */
function timeRange(
  body: { startTime?: string; endTime?: string },
  now: bigint,
): { startNs?: bigint; endNs?: bigint } | Reply {
  const out: { startNs?: bigint; endNs?: bigint } = {};
  for (const key of ["startTime", "endTime"] as const) {
    const text = body[key];
    if (text === undefined) continue;
    const ns = parseQueryTimeNs(text, now);
    if (ns === undefined)
      return invalidField(`${key}: must be an RFC 3339 time or a relative time such as now-1h`);
    out[key === "startTime" ? "startNs" : "endNs"] = ns;
  }
  if (out.startNs !== undefined && out.endNs !== undefined && out.startNs > out.endNs) {
    return invalidField("startTime: must not be after endTime");
  }
  return out;
}

/** The status's `elapsedTime`, in microseconds, at least 1: a query that ran took some time, and axiomhq/axiom-go
 * axiom/datasets_integration_test.go asserts the live service's is not zero; a fast emulator would round to 0. */
export function elapsedUs(startedAt: bigint, now: bigint = process.hrtime.bigint()): number {
  return Math.max(1, Number((now - startedAt) / 1000n));
}

/**
 * The page limit for an APL plan: the lowest of its `limit`/`take`, the request's `limit` and the server's own;
 * 1,000 when neither the query nor the request gives one.
 */
export function aplPageLimit(ops: readonly PlanOp[], requestLimit?: number): number {
  // A limit bounds the page only when no later operator can make more rows than it kept (mv-expand, join, union,
  // getschema...): those are table operators, so only the limits after the last of them count.
  let from = 0;
  ops.forEach((o, i) => {
    if (o.op === "table") from = i + 1;
  });
  const limits = ops.slice(from).flatMap((o) => (o.op === "limit" ? [o.n] : []));
  if (requestLimit !== undefined) limits.push(requestLimit);
  return limits.length === 0 ? DEFAULT_PAGE_LIMIT : Math.min(...limits, SERVER_PAGE_LIMIT);
}

/**
 * Runs `POST /v1/datasets/_apl?format=...`: 200 with a legacy or tabular body, 400 for a bad body, format or
 * query (with `detail: {line, column, errorType, message}` for the query), 404 for an unknown dataset.
 */
export async function runAplQuery(
  store: EventStoreApi,
  body: unknown,
  format: string | undefined,
  now: bigint = nowNs(),
  exists: DatasetExists = (name) => store.events(name) !== undefined,
  limits: QueryBudgetOptions = {},
  virtualFields: DatasetVirtualFields = () => [],
): Promise<Reply> {
  const startedAt = process.hrtime.bigint();
  const fmt = validate(QueryFormatSchema, format ?? "legacy");
  if (!fmt.ok) return badRequest(`format: ${fmt.failures[0].reason}`);
  const req = validate(AplRequestSchema, body);
  if (!req.ok) return invalidField(formatFailures(req.failures));
  const range = timeRange(req.value, now);
  if ("status" in range) return range;
  const ran = await executeApl(
    store,
    {
      apl: req.value.apl,
      ...range,
      nowNs: now,
      cursor: req.value.cursor,
      includeCursor: req.value.includeCursor,
      limit: req.value.limit,
    },
    { exists, virtualFields },
    limits,
  );
  if (!ran.ok) return errorReply(ran.error.status, ran.error.message, ran.error.detail);
  const { res, plan, read } = ran;
  const status = buildStatus(res, req.value.cursor, elapsedUs(startedAt));
  const shown = plan.dataset !== "" ? plan.dataset : (read[0] ?? "");
  const out =
    fmt.value === "tabular"
      ? tabularBody(res, status, shown, read)
      : legacyBody(res, status, { dataset: shown, datasets: read });
  return { status: 200, body: out };
}

/** An APL query run in process: its text, its inclusive bounds (as the endpoint's), its now and its page. */
export interface AplRun {
  apl: string;
  /** Inclusive bounds in nanoseconds, as the endpoint's `startTime` and `endTime` read. */
  startNs?: bigint;
  endNs?: bigint;
  /** What `now()` and `ago()` read. */
  nowNs: bigint;
  cursor?: string;
  includeCursor?: boolean;
  /** The request's row limit; the query's own and the server's apply too. */
  limit?: number;
}

/** What a query needs to know of the datasets besides their events (emulator/catalog answers it). */
export interface AplCatalog {
  exists: DatasetExists;
  virtualFields: DatasetVirtualFields;
}

/** Why a query has no result: the status and message the endpoint answers with (APL errors carry `detail`). */
export interface QueryError {
  status: number;
  message: string;
  detail?: unknown;
}

/** A query's execution, or why there is none. */
export type AplExecution =
  { ok: true; res: ExecResult; plan: Plan; read: string[] } | { ok: false; error: QueryError };

/** A reply of {@link executeWithin}'s refusals, as a {@link QueryError}. */
function errorOf(reply: Reply): QueryError {
  const body = reply.body as { message: string; detail?: unknown };
  return { status: reply.status, message: body.message, detail: body.detail };
}

/**
 * The typed entry to the APL engine: parses, checks the datasets against `catalog`, adds their virtual fields and
 * runs the query over `store` within `limits`. No HTTP body goes in or out: `POST /v1/datasets/_apl` formats what
 * this answers, and monitor runs read it as a table (./table.ts).
 */
export async function executeApl(
  store: EventStoreApi,
  run: AplRun,
  catalog: AplCatalog,
  limits: QueryBudgetOptions = {},
): Promise<AplExecution> {
  const { exists, virtualFields } = catalog;
  const now = run.nowNs;
  const range = { startNs: run.startNs, endNs: run.endNs };
  if (range.startNs !== undefined && range.endNs !== undefined && range.startNs > range.endNs) {
    return { ok: false, error: errorOf(invalidField("startTime: must not be after endTime")) };
  }
  const budget = new QueryBudget(limits);
  let plan: Plan;
  const stats = { nodes: 0 };
  try {
    plan = compileQuery(parseApl(run.apl), { now, ...range, stats });
  } catch (err) {
    if (!(err instanceof AplError)) throw err;
    return { ok: false, error: errorOf(aplErrorReply(err)) };
  }
  // Every dataset the query names must exist (a union's wildcard may match none).
  for (const name of plan.datasets ?? [plan.dataset]) {
    if (name !== "" && !name.includes("*") && !exists(name))
      return { ok: false, error: errorOf(notFound(name)) };
  }
  // The dataset's virtual fields are its columns too, computed from each event before the first operator.
  if (plan.dataset !== "") {
    const columns: Column[] = [];
    for (const vf of virtualFields(plan.dataset)) {
      try {
        columns.push({ name: vf.name, get: compileFieldExpression(vf.expression, now) });
      } catch (err) {
        if (!(err instanceof AplError)) throw err;
        return {
          ok: false,
          error: errorOf(badRequest(`virtual field ${vf.name} of dataset ${plan.dataset}: ${err.message}`)),
        };
      }
    }
    if (columns.length > 0) plan = { ...plan, ops: [{ op: "extend", columns }, ...plan.ops] };
  }
  const events = plan.dataset === "" ? [] : (store.events(plan.dataset) ?? []);
  budget.sizeSlices(stats.nodes);
  const res = await executeWithin(events, plan, {
    ...range,
    cursor: run.cursor,
    includeCursor: run.includeCursor,
    pageLimit: aplPageLimit(plan.ops, run.limit),
    budget,
    datasetEvents: (name) => (exists(name) ? (store.events(name) ?? []) : undefined),
    datasetNames: () => store.names().filter(exists),
  });
  if ("status" in res) return { ok: false, error: errorOf(res) };
  // Every dataset the query read; a wildcard stands for the ones that exist and match it.
  const read = [
    ...new Set(
      (plan.datasets ?? [plan.dataset]).flatMap((d) =>
        d === ""
          ? []
          : d.includes("*")
            ? store
                .names()
                .filter((n) => exists(n) && globTest(d)(n))
                .sort()
            : [d],
      ),
    ),
  ];
  return { ok: true, res, plan, read };
}

/**
 * Runs the legacy `POST /v1/datasets/{name}/query`: `order` (default `_time` descending), `limit` (default
 * 1,000, at most 50,000), `filter`, `project`, `cursor`/`includeCursor`, required `startTime`/`endTime`.
 */
export async function runLegacyQuery(
  store: EventStoreApi,
  dataset: string,
  body: unknown,
  now: bigint = nowNs(),
  exists: DatasetExists = (name) => store.events(name) !== undefined,
  limits: QueryBudgetOptions = {},
): Promise<Reply> {
  const startedAt = process.hrtime.bigint();
  const budget = new QueryBudget(limits);
  const req = validate(LegacyQueryRequestSchema, body);
  if (!req.ok) return invalidField(formatFailures(req.failures));
  const range = timeRange(req.value, now);
  if ("status" in range) return range;
  const pageLimit = Math.min(req.value.limit ?? DEFAULT_PAGE_LIMIT, SERVER_PAGE_LIMIT);
  const ops: PlanOp[] = [];
  const raw = body as Record<string, unknown>;
  try {
    // Virtual fields first: the filter, the groups and the aggregations may all name them.
    const virtual = legacyVirtualFields(raw, now);
    if (virtual.length > 0) ops.push({ op: "extend", columns: virtual });
    if (req.value.filter !== undefined && !isZeroFilter(req.value.filter)) {
      ops.push({ op: "where", pred: compileLegacyFilter(req.value.filter) });
    }
    const summarize = legacySummarize(raw);
    const order =
      req.value.order && req.value.order.length > 0 ? req.value.order : [{ field: "_time", desc: true }];
    const sort: PlanOp = {
      op: "sort",
      keys: order.map((o) => ({
        name: o.field,
        get: fieldGetter(o.field, o.field.split(".")),
        desc: o.desc,
      })),
    };
    if (summarize) {
      // Aggregates land in buckets.totals, one per group, in the order asked for (by the group fields).
      ops.push(summarize);
      if (req.value.order && req.value.order.length > 0) ops.push(sort);
    } else {
      ops.push(sort);
      // Limiting before projecting keeps the projection to one page of rows.
      ops.push({ op: "limit", n: pageLimit });
      if (req.value.project && req.value.project.length > 0) {
        ops.push({ op: "project", columns: legacyProjection(req.value.project) });
      }
    }
  } catch (err) {
    if (err instanceof LegacyRequestError) return invalidField(err.message);
    throw err;
  }
  if (!exists(dataset)) return notFound(dataset);
  const events = store.events(dataset) ?? [];
  const res = await executeWithin(
    events,
    { dataset, ops },
    {
      ...range,
      cursor: req.value.cursor,
      includeCursor: req.value.includeCursor,
      pageLimit,
      budget,
    },
  );
  if ("status" in res) return res;
  return { status: 200, body: legacyBody(res, buildStatus(res, req.value.cursor, elapsedUs(startedAt))) };
}
