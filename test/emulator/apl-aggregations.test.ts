/**
 * The aggregation registry's accumulators, driven directly over small datasets shaped like the reference's
 * sample-http-logs and otel-demo-traces (axiomhq/docs apl/aggregation-function/*.mdx, commit
 * fbd61330c8357f2c24ea5d7b04b018e41392332d). Each page's example queries are run here with their arguments; the
 * expected cells are worked out by hand from the rows below (the pages' own output tables are illustrations of
 * other data).
 */
import {
  AGGREGATIONS,
  AggregationArgumentError,
  DEFAULT_MAKE_SET_CAP,
  UNSUPPORTED_AGGREGATIONS,
  type AggregationContext,
} from "../../emulator/apl/aggregations";
import { singleColumn } from "../../emulator/apl/aggregations/naming";
import { TDigest } from "../../emulator/apl/aggregations/tdigest";
import { DateTime, Timespan } from "../../emulator/apl/values";

type Row = Record<string, unknown>;
/** An argument: its source text and how a row evaluates it, or a constant. */
type Arg = [text: string, get: (row: Row) => unknown] | [text: string, constant: { value: unknown }];

const MS = 1_000_000n;

/** sample-http-logs, eight requests. */
const HTTP: Row[] = [
  {
    id: "u1",
    method: "GET",
    status: "200",
    req_duration_ms: 100,
    uri: "/home",
    "geo.city": "New York",
    "geo.country": "US",
    resp_body_size_bytes: 1000,
  },
  {
    id: "u1",
    method: "GET",
    status: "200",
    req_duration_ms: 300,
    uri: "/cart",
    "geo.city": "New York",
    "geo.country": "US",
    resp_body_size_bytes: 2000,
  },
  {
    id: "u2",
    method: "POST",
    status: "500",
    req_duration_ms: 1200,
    uri: "/api/login",
    "geo.city": "Berlin",
    "geo.country": "DE",
    resp_body_size_bytes: 500,
  },
  {
    id: "u2",
    method: "GET",
    status: "404",
    req_duration_ms: 50,
    uri: "/missing",
    "geo.city": "Berlin",
    "geo.country": "DE",
    resp_body_size_bytes: 100,
  },
  {
    id: "u3",
    method: "POST",
    status: "200",
    req_duration_ms: 700,
    uri: "/api/products",
    "geo.city": "London",
    "geo.country": "UK",
    resp_body_size_bytes: 3000,
  },
  {
    id: "u3",
    method: "GET",
    status: "403",
    req_duration_ms: 20,
    uri: "/admin",
    "geo.city": "London",
    "geo.country": "UK",
    resp_body_size_bytes: 0,
  },
  {
    id: "u1",
    method: "GET",
    status: "200",
    req_duration_ms: 200,
    uri: "/home",
    "geo.city": "New York",
    "geo.country": "US",
    resp_body_size_bytes: 1500,
  },
  {
    id: "u4",
    method: "PUT",
    status: "500",
    req_duration_ms: 900,
    uri: "/api/cart",
    "geo.city": "Tokyo",
    "geo.country": "JP",
    resp_body_size_bytes: null,
  },
];

const t0 = 1_700_000_000_000_000_000n;
/** otel-demo-traces, six spans: durations are timespans, _time datetimes. */
const SPANS: Row[] = [
  {
    _time: new DateTime(t0),
    trace_id: "t1",
    span_id: "s1",
    "service.name": "frontend",
    kind: "server",
    duration: new Timespan(2n * MS),
    status_code: "200",
    events: [1, 2, 3],
  },
  {
    _time: new DateTime(t0 + 5n),
    trace_id: "t1",
    span_id: "s2",
    "service.name": "cartservice",
    kind: "client",
    duration: new Timespan(1000n * MS),
    status_code: "200",
    events: [],
  },
  {
    _time: new DateTime(t0 + 9n),
    trace_id: "t1",
    span_id: "s3",
    "service.name": "frontend",
    kind: "client",
    duration: new Timespan(5n * MS),
    status_code: "500",
    events: [1],
  },
  {
    _time: new DateTime(t0 + 2n),
    trace_id: "t2",
    span_id: "s4",
    "service.name": "checkoutservice",
    kind: "server",
    duration: new Timespan(300n * MS),
    status_code: "200",
    events: [1, 2],
  },
  {
    _time: new DateTime(t0 + 7n),
    trace_id: "t2",
    span_id: "s5",
    "service.name": "frontend",
    kind: "server",
    duration: new Timespan(7n * MS),
    status_code: "200",
    events: [1, 2, 3, 4],
  },
  {
    _time: new DateTime(t0 + 1n),
    trace_id: "t3",
    span_id: "s6",
    "service.name": "cartservice",
    kind: "server",
    duration: new Timespan(1500n * MS),
    status_code: "200",
    events: [1],
  },
];

const f = (name: string): Arg => [name.includes(".") ? `['${name}']` : name, (r) => r[name]];
const k = (value: unknown): Arg => [JSON.stringify(value), { value }];
const pred = (text: string, get: (row: Row) => boolean): Arg => [text, get];

/** Runs one aggregation as a summarize over rows would: its names, then its cells. */
function aggregate(fn: string, args: Arg[], rows: Row[], given?: string, context?: AggregationContext) {
  const def = AGGREGATIONS.get(fn);
  if (!def) throw new Error(`no aggregation ${fn}`);
  const constants = args.map((a) => (typeof a[1] === "function" ? undefined : a[1].value));
  const names = def.outputNames(
    given,
    args.map((a) => a[0]),
    constants,
  );
  const acc = def.create(constants, { ...context, argTexts: args.map((a) => a[0]) });
  for (const row of rows) acc.add(args.map((a) => (typeof a[1] === "function" ? a[1](row) : a[1].value)));
  return { names, cells: acc.result() };
}

/** Runs over the plain argument rows (no names), for the property-style checks. */
function run(
  fn: string,
  rows: unknown[][],
  constants: unknown[] = [],
  context?: AggregationContext,
): unknown[] {
  const acc = AGGREGATIONS.get(fn)!.create(constants, context);
  for (const r of rows) acc.add(r);
  return acc.result();
}

const where = (rows: Row[], test: (r: Row) => boolean) => rows.filter(test);

interface Example {
  page: string;
  query: string;
  fn: string;
  args: Arg[];
  rows: Row[];
  given?: string;
  context?: AggregationContext;
  names: string[];
  cells: unknown[];
}

const status200 = pred(`status == "200"`, (r) => r.status === "200");
const EXAMPLES: Example[] = [
  // arg-max.mdx
  {
    page: "arg-max",
    query: "summarize arg_max(req_duration_ms, uri) by method",
    fn: "arg_max",
    args: [f("req_duration_ms"), f("uri")],
    rows: HTTP,
    names: ["req_duration_ms", "uri"],
    cells: [1200, "/api/login"],
  },
  {
    page: "arg-max",
    query: "summarize arg_max(duration, span_id, trace_id) by ['service.name'] (frontend)",
    fn: "arg_max",
    args: [f("duration"), f("span_id"), f("trace_id")],
    rows: where(SPANS, (r) => r["service.name"] === "frontend"),
    names: ["duration", "span_id", "trace_id"],
    cells: [new Timespan(7n * MS), "s5", "t2"],
  },
  {
    page: "arg-max",
    query: "summarize arg_max(toint(status), uri) by ['geo.country'] (DE)",
    fn: "arg_max",
    args: [["toint(status)", (r) => Number(r.status)], f("uri")],
    rows: where(HTTP, (r) => r["geo.country"] === "DE"),
    names: ["status", "uri"],
    cells: [500, "/api/login"],
  },
  {
    page: "arg-max",
    query: "summarize arg_max(numEvents=array_length(events), spanWithMostEvents=span_id)",
    fn: "arg_max",
    args: [
      ["numEvents=array_length(events)", (r) => (r.events as unknown[]).length],
      ["spanWithMostEvents=span_id", (r) => r.span_id],
    ],
    rows: SPANS,
    names: ["numEvents", "spanWithMostEvents"],
    cells: [4, "s5"],
  },
  // arg-min.mdx
  {
    page: "arg-min",
    query: "summarize arg_min(req_duration_ms, uri) by method (GET)",
    fn: "arg_min",
    args: [f("req_duration_ms"), f("uri")],
    rows: where(HTTP, (r) => r.method === "GET"),
    names: ["req_duration_ms", "uri"],
    cells: [20, "/admin"],
  },
  {
    page: "arg-min",
    query: "summarize arg_min(duration, trace_id, span_id, kind) by ['service.name'] (cartservice)",
    fn: "arg_min",
    args: [f("duration"), f("trace_id"), f("span_id"), f("kind")],
    rows: where(SPANS, (r) => r["service.name"] === "cartservice"),
    names: ["duration", "trace_id", "span_id", "kind"],
    cells: [new Timespan(1000n * MS), "t1", "s2", "client"],
  },
  {
    page: "arg-min",
    query: "summarize arg_min(duration, longestSpan=span_id)",
    fn: "arg_min",
    args: [f("duration"), ["longestSpan=span_id", (r) => r.span_id]],
    rows: SPANS,
    names: ["duration", "longestSpan"],
    cells: [new Timespan(2n * MS), "s1"],
  },
  // avg.mdx
  {
    page: "avg",
    query: "summarize avg(req_duration_ms) by status (200)",
    fn: "avg",
    args: [f("req_duration_ms")],
    rows: where(HTTP, (r) => r.status === "200"),
    names: ["avg_req_duration_ms"],
    cells: [325],
  },
  {
    page: "avg",
    query: "summarize avg(duration) by ['service.name'] (cartservice)",
    fn: "avg",
    args: [f("duration")],
    rows: where(SPANS, (r) => r["service.name"] === "cartservice"),
    names: ["avg_duration"],
    cells: [new Timespan(1250n * MS)],
  },
  {
    page: "avg",
    query: "summarize avg(req_duration_ms) by ['geo.country'] (DE)",
    fn: "avg",
    args: [f("req_duration_ms")],
    rows: where(HTTP, (r) => r["geo.country"] === "DE"),
    names: ["avg_req_duration_ms"],
    cells: [625],
  },
  // avgif.mdx
  {
    page: "avgif",
    query: `summarize avgif(req_duration_ms, status == "200") by ['geo.city'] (New York)`,
    fn: "avgif",
    args: [f("req_duration_ms"), status200],
    rows: where(HTTP, (r) => r["geo.city"] === "New York"),
    names: ["avgif_req_duration_ms"],
    cells: [200],
  },
  {
    page: "avgif",
    query: `summarize avgif(duration, status == "500") by ['service.name'] (frontend)`,
    fn: "avgif",
    args: [f("duration"), pred(`status_code == "500"`, (r) => r.status_code === "500")],
    rows: where(SPANS, (r) => r["service.name"] === "frontend"),
    names: ["avgif_duration"],
    cells: [new Timespan(5n * MS)],
  },
  {
    page: "avgif",
    query: "summarize avgif(req_duration_ms, toint(status) >= 400) by ['geo.country'] (UK)",
    fn: "avgif",
    args: [f("req_duration_ms"), pred("toint(status) >= 400", (r) => Number(r.status) >= 400)],
    rows: where(HTTP, (r) => r["geo.country"] === "UK"),
    names: ["avgif_req_duration_ms"],
    cells: [20],
  },
  // count.mdx
  {
    page: "count",
    query: "summarize count() by status (200)",
    fn: "count",
    args: [],
    rows: where(HTTP, (r) => r.status === "200"),
    names: ["count_"],
    cells: [4],
  },
  {
    page: "count",
    query: "summarize count() by ['service.name'] (frontend)",
    fn: "count",
    args: [],
    rows: where(SPANS, (r) => r["service.name"] === "frontend"),
    names: ["count_"],
    cells: [3],
  },
  {
    page: "count",
    query: "summarize count() by ['geo.country'] (US)",
    fn: "count",
    args: [],
    rows: where(HTTP, (r) => r["geo.country"] === "US"),
    names: ["count_"],
    cells: [3],
  },
  // countif.mdx
  {
    page: "countif",
    query: "summarize countif(status == '500')",
    fn: "countif",
    args: [pred("status == '500'", (r) => r.status === "500")],
    rows: HTTP,
    names: ["countif_"],
    cells: [2],
  },
  {
    page: "countif",
    query: "summarize countif(kind == 'client')",
    fn: "countif",
    args: [pred("kind == 'client'", (r) => r.kind === "client")],
    rows: SPANS,
    names: ["countif_"],
    cells: [2],
  },
  {
    page: "countif",
    query: "summarize countif(['geo.city'] == 'New York')",
    fn: "countif",
    args: [pred("['geo.city'] == 'New York'", (r) => r["geo.city"] === "New York")],
    rows: HTTP,
    names: ["countif_"],
    cells: [3],
  },
  // dcount.mdx
  {
    page: "dcount",
    query: "summarize dcount(id)",
    fn: "dcount",
    args: [f("id")],
    rows: HTTP,
    names: ["dcount_id"],
    cells: [4],
  },
  {
    page: "dcount",
    query: "summarize dcount(trace_id)",
    fn: "dcount",
    args: [f("trace_id")],
    rows: SPANS,
    names: ["dcount_trace_id"],
    cells: [3],
  },
  {
    page: "dcount",
    query: "summarize dcount(['geo.city'])",
    fn: "dcount",
    args: [f("geo.city")],
    rows: HTTP,
    names: ["dcount_geo_city"],
    cells: [4],
  },
  // dcountif.mdx
  {
    page: "dcountif",
    query: "summarize dcountif(id, status == '200')",
    fn: "dcountif",
    args: [f("id"), status200],
    rows: HTTP,
    names: ["dcountif_id"],
    cells: [2],
  },
  {
    page: "dcountif",
    query: "summarize dcountif(trace_id, ['service.name'] == 'frontend')",
    fn: "dcountif",
    args: [f("trace_id"), pred("['service.name'] == 'frontend'", (r) => r["service.name"] === "frontend")],
    rows: SPANS,
    names: ["dcountif_trace_id"],
    cells: [2],
  },
  {
    page: "dcountif",
    query: "summarize dcountif(['geo.city'], status == '403')",
    fn: "dcountif",
    args: [f("geo.city"), pred("status == '403'", (r) => r.status === "403")],
    rows: HTTP,
    names: ["dcountif_geo_city"],
    cells: [1],
  },
  // histogram.mdx: 4 equal bins over [20, 1200], each 295 wide.
  {
    page: "histogram",
    query: "summarize histogram(req_duration_ms, 4)",
    fn: "histogram",
    args: [f("req_duration_ms"), k(4)],
    rows: HTTP,
    names: ["histogram_req_duration_ms"],
    cells: [
      [
        { bin: 20, count: 5 },
        { bin: 610, count: 2 },
        { bin: 905, count: 1 },
      ],
    ],
  },
  {
    page: "histogram",
    query: "summarize histogram(duration, 2) (frontend)",
    fn: "histogram",
    args: [f("duration"), k(2)],
    rows: where(SPANS, (r) => r["service.name"] === "frontend"),
    names: ["histogram_duration"],
    cells: [
      [
        { bin: 2_000_000, count: 1 },
        { bin: 4_500_000, count: 2 },
      ],
    ],
  },
  // histogramif.mdx
  {
    page: "histogramif",
    query: "summarize histogramif(req_duration_ms, 2, status == '200')",
    fn: "histogramif",
    args: [f("req_duration_ms"), k(2), status200],
    rows: HTTP,
    names: ["histogramif_req_duration_ms"],
    cells: [
      [
        { bin: 100, count: 3 },
        { bin: 400, count: 1 },
      ],
    ],
  },
  // make-list.mdx
  {
    page: "make-list",
    query: "summarize uris=make_list(uri) by id (u1)",
    fn: "make_list",
    args: [f("uri")],
    rows: where(HTTP, (r) => r.id === "u1"),
    given: "uris",
    names: ["uris"],
    cells: [["/home", "/cart", "/home"]],
  },
  {
    page: "make-list",
    query: "summarize services=make_list(['service.name']) by trace_id (t1)",
    fn: "make_list",
    args: [f("service.name")],
    rows: where(SPANS, (r) => r.trace_id === "t1"),
    given: "services",
    names: ["services"],
    cells: [["frontend", "cartservice", "frontend"]],
  },
  {
    page: "make-list",
    query: "summarize make_list(['geo.city']) by id (u2)",
    fn: "make_list",
    args: [f("geo.city")],
    rows: where(HTTP, (r) => r.id === "u2"),
    names: ["make_list_geo_city"],
    cells: [["Berlin", "Berlin"]],
  },
  // make-list-if.mdx
  {
    page: "make-list-if",
    query: "summarize make_list_if(req_duration_ms, status == '200') by id (u1)",
    fn: "make_list_if",
    args: [f("req_duration_ms"), status200],
    rows: where(HTTP, (r) => r.id === "u1"),
    names: ["make_list_if_req_duration_ms"],
    cells: [[100, 300, 200]],
  },
  {
    page: "make-list-if",
    query:
      "summarize make_list_if(duration, status_code == '200' and ['service.name'] == 'cartservice') by trace_id (t1)",
    fn: "make_list_if",
    args: [
      f("duration"),
      pred(
        "status_code == '200' and ...",
        (r) => r.status_code === "200" && r["service.name"] === "cartservice",
      ),
    ],
    rows: where(SPANS, (r) => r.trace_id === "t1"),
    names: ["make_list_if_duration"],
    cells: [[new Timespan(1000n * MS)]],
  },
  {
    page: "make-list-if",
    query: "summarize make_list_if(uri, status == '403') by ['geo.country'] (UK)",
    fn: "make_list_if",
    args: [f("uri"), pred("status == '403'", (r) => r.status === "403")],
    rows: where(HTTP, (r) => r["geo.country"] === "UK"),
    names: ["make_list_if_uri"],
    cells: [["/admin"]],
  },
  // make-set.mdx
  {
    page: "make-set",
    query: "summarize make_set(method) by id (u3)",
    fn: "make_set",
    args: [f("method")],
    rows: where(HTTP, (r) => r.id === "u3"),
    names: ["make_set_method"],
    cells: [["POST", "GET"]],
  },
  {
    page: "make-set",
    query: "summarize make_set(['service.name']) by trace_id (t1)",
    fn: "make_set",
    args: [f("service.name")],
    rows: where(SPANS, (r) => r.trace_id === "t1"),
    names: ["make_set_service_name"],
    cells: [["frontend", "cartservice"]],
  },
  {
    page: "make-set",
    query: "summarize make_set(status) by ['geo.country'] (US)",
    fn: "make_set",
    args: [f("status")],
    rows: where(HTTP, (r) => r["geo.country"] === "US"),
    names: ["make_set_status"],
    cells: [["200"]],
  },
  // make-set-if.mdx
  {
    page: "make-set-if",
    query: "summarize make_set_if(['geo.city'], req_duration_ms > 500) by ['method'] (POST)",
    fn: "make_set_if",
    args: [f("geo.city"), pred("req_duration_ms > 500", (r) => (r.req_duration_ms as number) > 500)],
    rows: where(HTTP, (r) => r.method === "POST"),
    names: ["make_set_if_geo_city"],
    cells: [["Berlin", "London"]],
  },
  {
    page: "make-set-if",
    query: "summarize make_set_if(['service.name'], duration > 1s) by ['trace_id'] (t3)",
    fn: "make_set_if",
    args: [f("service.name"), pred("duration > 1s", (r) => (r.duration as Timespan).ns > 1000n * MS)],
    rows: where(SPANS, (r) => r.trace_id === "t3"),
    names: ["make_set_if_service_name"],
    cells: [["cartservice"]],
  },
  {
    page: "make-set-if",
    query: "summarize make_set_if(status, method == 'POST') by ['geo.city'] (Berlin)",
    fn: "make_set_if",
    args: [f("status"), pred("method == 'POST'", (r) => r.method === "POST")],
    rows: where(HTTP, (r) => r["geo.city"] === "Berlin"),
    names: ["make_set_if_status"],
    cells: [["500"]],
  },
  // max.mdx, maxif.mdx, min.mdx, minif.mdx
  {
    page: "max",
    query: "summarize max(req_duration_ms)",
    fn: "max",
    args: [f("req_duration_ms")],
    rows: HTTP,
    names: ["max_req_duration_ms"],
    cells: [1200],
  },
  {
    page: "max",
    query: "summarize max(duration)",
    fn: "max",
    args: [f("duration")],
    rows: SPANS,
    names: ["max_duration"],
    cells: [new Timespan(1500n * MS)],
  },
  {
    page: "max",
    query: "summarize max(_time)",
    fn: "max",
    args: [f("_time")],
    rows: SPANS,
    names: ["max__time"],
    cells: [new DateTime(t0 + 9n)],
  },
  {
    page: "maxif",
    query: `summarize maxif(req_duration_ms, status == "200")`,
    fn: "maxif",
    args: [f("req_duration_ms"), status200],
    rows: HTTP,
    names: ["maxif_req_duration_ms"],
    cells: [700],
  },
  {
    page: "maxif",
    query: `summarize maxif(duration, ['service.name'] == "checkoutservice" and kind == "server")`,
    fn: "maxif",
    args: [f("duration"), pred("...", (r) => r["service.name"] === "checkoutservice" && r.kind === "server")],
    rows: SPANS,
    names: ["maxif_duration"],
    cells: [new Timespan(300n * MS)],
  },
  {
    page: "maxif",
    query: `summarize maxif(req_duration_ms, ['geo.country'] == "United States")`,
    fn: "maxif",
    args: [f("req_duration_ms"), pred("...", (r) => r["geo.country"] === "United States")],
    rows: HTTP,
    names: ["maxif_req_duration_ms"],
    cells: [null],
  },
  {
    page: "min",
    query: "summarize min(req_duration_ms) by id (u1)",
    fn: "min",
    args: [f("req_duration_ms")],
    rows: where(HTTP, (r) => r.id === "u1"),
    names: ["min_req_duration_ms"],
    cells: [100],
  },
  {
    page: "min",
    query: "summarize min(duration) by ['service.name'] (frontend)",
    fn: "min",
    args: [f("duration")],
    rows: where(SPANS, (r) => r["service.name"] === "frontend"),
    names: ["min_duration"],
    cells: [new Timespan(2n * MS)],
  },
  {
    page: "min",
    query: "summarize min(req_duration_ms) by status (500)",
    fn: "min",
    args: [f("req_duration_ms")],
    rows: where(HTTP, (r) => r.status === "500"),
    names: ["min_req_duration_ms"],
    cells: [900],
  },
  {
    page: "minif",
    query: "summarize minif(req_duration_ms, status == '200') by ['geo.city'] (London)",
    fn: "minif",
    args: [f("req_duration_ms"), status200],
    rows: where(HTTP, (r) => r["geo.city"] === "London"),
    names: ["minif_req_duration_ms"],
    cells: [700],
  },
  {
    page: "minif",
    query: "summarize minif(duration, ['service.name'] == 'frontend') by trace_id (t1)",
    fn: "minif",
    args: [f("duration"), pred("...", (r) => r["service.name"] === "frontend")],
    rows: where(SPANS, (r) => r.trace_id === "t1"),
    names: ["minif_duration"],
    cells: [new Timespan(2n * MS)],
  },
  {
    page: "minif",
    query: "summarize minif(req_duration_ms, ['geo.country'] == 'US') by status (200)",
    fn: "minif",
    args: [f("req_duration_ms"), pred("...", (r) => r["geo.country"] === "US")],
    rows: where(HTTP, (r) => r.status === "200"),
    names: ["minif_req_duration_ms"],
    cells: [100],
  },
  // percentile.mdx: nearest rank over [20, 50, 100, 200, 300, 700, 900, 1200].
  {
    page: "percentile",
    query: "summarize percentile(req_duration_ms, 95)",
    fn: "percentile",
    args: [f("req_duration_ms"), k(95)],
    rows: HTTP,
    names: ["percentile_req_duration_ms_95"],
    cells: [1200],
  },
  {
    page: "percentile",
    query: "where ['service.name'] == 'checkoutservice' | summarize percentile(duration, 90)",
    fn: "percentile",
    args: [f("duration"), k(90)],
    rows: where(SPANS, (r) => r["service.name"] === "checkoutservice"),
    names: ["percentile_duration_90"],
    cells: [new Timespan(300n * MS)],
  },
  {
    page: "percentile",
    query: "summarize percentile(req_duration_ms, 50)",
    fn: "percentile",
    args: [f("req_duration_ms"), k(50)],
    rows: HTTP,
    names: ["percentile_req_duration_ms_50"],
    cells: [200],
  },
  // percentileif.mdx
  {
    page: "percentileif",
    query: `summarize post_p90 = percentileif(req_duration_ms, 90, method == "POST")`,
    fn: "percentileif",
    args: [f("req_duration_ms"), k(90), pred(`method == "POST"`, (r) => r.method === "POST")],
    rows: HTTP,
    given: "post_p90",
    names: ["post_p90"],
    cells: [1200],
  },
  {
    page: "percentileif",
    query: `summarize get_p90 = percentileif(req_duration_ms, 90, method == "GET")`,
    fn: "percentileif",
    args: [f("req_duration_ms"), k(90), pred(`method == "GET"`, (r) => r.method === "GET")],
    rows: HTTP,
    given: "get_p90",
    names: ["get_p90"],
    cells: [300],
  },
  {
    page: "percentileif",
    query: "summarize percentileif(req_duration_ms, 75, status == '404')",
    fn: "percentileif",
    args: [f("req_duration_ms"), k(75), pred("status == '404'", (r) => r.status === "404")],
    rows: HTTP,
    names: ["percentileif_req_duration_ms_75"],
    cells: [50],
  },
  // percentiles-array.mdx, percentiles-arrayif.mdx
  {
    page: "percentiles-array",
    query: "summarize percentiles_array(req_duration_ms, 25, 50, 95)",
    fn: "percentiles_array",
    args: [f("req_duration_ms"), k(25), k(50), k(95)],
    rows: HTTP,
    names: ["percentiles_req_duration_ms"],
    cells: [[50, 200, 1200]],
  },
  {
    page: "percentiles-array",
    query: "summarize percentiles_array(duration, 50, 90, 99) by ['service.name'] (frontend)",
    fn: "percentiles_array",
    args: [f("duration"), k(50), k(90), k(99)],
    rows: where(SPANS, (r) => r["service.name"] === "frontend"),
    names: ["percentiles_duration"],
    cells: [[new Timespan(5n * MS), new Timespan(7n * MS), new Timespan(7n * MS)]],
  },
  {
    page: "percentiles-arrayif",
    query: "summarize percentiles_arrayif(req_duration_ms, dynamic([50, 90, 95, 99]), status == '200')",
    fn: "percentiles_arrayif",
    args: [f("req_duration_ms"), k([50, 90, 95, 99]), status200],
    rows: HTTP,
    names: ["percentiles_req_duration_ms"],
    cells: [[200, 700, 700, 700]],
  },
  {
    page: "percentiles-arrayif",
    query: "summarize percentiles_arrayif(req_duration_ms, dynamic([50, 90]), status startswith '5')",
    fn: "percentiles_arrayif",
    args: [
      f("req_duration_ms"),
      k([50, 90]),
      pred("status startswith '5'", (r) => String(r.status).startsWith("5")),
    ],
    rows: HTTP,
    names: ["percentiles_req_duration_ms"],
    cells: [[900, 1200]],
  },
  // rate.mdx: resp_body_size_bytes sums to 8100 (one null) over a 10 s window.
  {
    page: "rate",
    query: "summarize rate(resp_body_size_bytes) by bin(_time, 10s)",
    fn: "rate",
    args: [f("resp_body_size_bytes")],
    rows: HTTP,
    context: { windowNs: 10_000_000_000n },
    names: ["rate_resp_body_size_bytes"],
    cells: [810],
  },
  {
    page: "rate",
    query: "summarize rate(req_duration_ms) by bin(_time, 1s)",
    fn: "rate",
    args: [f("req_duration_ms")],
    rows: HTTP,
    context: { windowNs: 1_000_000_000n },
    names: ["rate_req_duration_ms"],
    cells: [3470],
  },
  // stdev.mdx, stdevif.mdx, variance.mdx, varianceif.mdx: sample statistics (n − 1).
  {
    page: "stdev",
    query: "summarize req_duration_std = stdev(req_duration_ms)",
    fn: "stdev",
    args: [f("req_duration_ms")],
    rows: HTTP,
    given: "req_duration_std",
    names: ["req_duration_std"],
    cells: [443.6516490607081],
  },
  {
    page: "stdev",
    query: "summarize span_duration_std = stdev(duration) (frontend)",
    fn: "stdev",
    args: [f("duration")],
    rows: where(SPANS, (r) => r["service.name"] === "frontend"),
    given: "span_duration_std",
    names: ["span_duration_std"],
    cells: [new Timespan(2_516_611n)],
  },
  {
    page: "stdevif",
    query: "summarize stdevif(req_duration_ms, status == '200') by ['geo.country'] (US)",
    fn: "stdevif",
    args: [f("req_duration_ms"), status200],
    rows: where(HTTP, (r) => r["geo.country"] === "US"),
    names: ["stdevif_req_duration_ms"],
    cells: [100],
  },
  {
    page: "variance",
    query: "summarize variance(req_duration_ms)",
    fn: "variance",
    args: [f("req_duration_ms")],
    rows: HTTP,
    names: ["variance_req_duration_ms"],
    cells: [196826.7857142857],
  },
  {
    page: "variance",
    query: "summarize variance(req_duration_ms) by status (200)",
    fn: "variance",
    args: [f("req_duration_ms")],
    rows: where(HTTP, (r) => r.status === "200"),
    names: ["variance_req_duration_ms"],
    cells: [69166.66666666667],
  },
  {
    page: "varianceif",
    query: "summarize varianceif(req_duration_ms, status == '200')",
    fn: "varianceif",
    args: [f("req_duration_ms"), status200],
    rows: HTTP,
    names: ["varianceif_req_duration_ms"],
    cells: [69166.66666666667],
  },
  {
    page: "varianceif",
    query: "summarize varianceif(req_duration_ms, ['geo.country'] == 'United States')",
    fn: "varianceif",
    args: [f("req_duration_ms"), pred("...", (r) => r["geo.country"] === "United States")],
    rows: HTTP,
    names: ["varianceif_req_duration_ms"],
    cells: [null],
  },
  // sum.mdx, sumif.mdx
  {
    page: "sum",
    query: "summarize total_duration = sum(req_duration_ms)",
    fn: "sum",
    args: [f("req_duration_ms")],
    rows: HTTP,
    given: "total_duration",
    names: ["total_duration"],
    cells: [3470],
  },
  {
    page: "sum",
    query: "summarize total_duration = sum(duration)",
    fn: "sum",
    args: [f("duration")],
    rows: SPANS,
    given: "total_duration",
    names: ["total_duration"],
    cells: [new Timespan(2814n * MS)],
  },
  {
    page: "sum",
    query: "where status == '200' | summarize request_count = sum(1)",
    fn: "sum",
    args: [["1", () => 1]],
    rows: where(HTTP, (r) => r.status === "200"),
    given: "request_count",
    names: ["request_count"],
    cells: [4],
  },
  {
    page: "sumif",
    query: "summarize total_req_duration = sumif(req_duration_ms, status == '200')",
    fn: "sumif",
    args: [f("req_duration_ms"), status200],
    rows: HTTP,
    given: "total_req_duration",
    names: ["total_req_duration"],
    cells: [1300],
  },
  {
    page: "sumif",
    query: "summarize total_duration = sumif(duration, ['service.name'] == 'frontend')",
    fn: "sumif",
    args: [f("duration"), pred("...", (r) => r["service.name"] === "frontend")],
    rows: SPANS,
    given: "total_duration",
    names: ["total_duration"],
    cells: [new Timespan(14n * MS)],
  },
  {
    page: "sumif",
    query: "summarize sumif(req_duration_ms, status != '200')",
    fn: "sumif",
    args: [f("req_duration_ms"), pred("status != '200'", (r) => r.status !== "200")],
    rows: HTTP,
    names: ["sumif_req_duration_ms"],
    cells: [2170],
  },
  // topk.mdx, topkif.mdx: the shape the service gives (axiom-go's integration test), counted exactly.
  {
    page: "topk",
    query: "summarize topk(status, 2)",
    fn: "topk",
    args: [f("status"), k(2)],
    rows: HTTP,
    names: ["topk_status"],
    cells: [
      [
        { key: "200", count: 4, error: 0 },
        { key: "500", count: 2, error: 0 },
      ],
    ],
  },
  {
    page: "topk",
    query: "summarize topk(['geo.city'], 1)",
    fn: "topk",
    args: [f("geo.city"), k(1)],
    rows: HTTP,
    names: ["topk_geo_city"],
    cells: [[{ key: "New York", count: 3, error: 0 }]],
  },
  {
    page: "topkif",
    query: "summarize topkif(status, 5, method == 'GET')",
    fn: "topkif",
    args: [f("status"), k(5), pred("method == 'GET'", (r) => r.method === "GET")],
    rows: HTTP,
    names: ["topkif_status"],
    cells: [
      [
        { key: "200", count: 3, error: 0 },
        { key: "403", count: 1, error: 0 },
        { key: "404", count: 1, error: 0 },
      ],
    ],
  },
  {
    page: "topkif",
    query: "summarize topkif(['service.name'], 5, kind == 'server')",
    fn: "topkif",
    args: [f("service.name"), k(5), pred("kind == 'server'", (r) => r.kind === "server")],
    rows: SPANS,
    names: ["topkif_service_name"],
    cells: [
      [
        { key: "frontend", count: 2, error: 0 },
        { key: "cartservice", count: 1, error: 0 },
        { key: "checkoutservice", count: 1, error: 0 },
      ],
    ],
  },
  // The "APL equivalent" blocks of the pages' "Other query languages" sections.
  {
    page: "arg-max",
    query: "summarize arg_max(req_duration_ms, id, uri)",
    fn: "arg_max",
    args: [f("req_duration_ms"), f("id"), f("uri")],
    rows: HTTP,
    names: ["req_duration_ms", "id", "uri"],
    cells: [1200, "u2", "/api/login"],
  },
  {
    page: "arg-min",
    query: "summarize arg_min(req_duration_ms, id, uri)",
    fn: "arg_min",
    args: [f("req_duration_ms"), f("id"), f("uri")],
    rows: HTTP,
    names: ["req_duration_ms", "id", "uri"],
    cells: [20, "u3", "/admin"],
  },
  {
    page: "avgif",
    query: `summarize avgif(req_duration_ms, status == "200") by id (u3)`,
    fn: "avgif",
    args: [f("req_duration_ms"), status200],
    rows: where(HTTP, (r) => r.id === "u3"),
    names: ["avgif_req_duration_ms"],
    cells: [700],
  },
  {
    page: "minif",
    query: `summarize minif(req_duration_ms, status == "200") by id (u1)`,
    fn: "minif",
    args: [f("req_duration_ms"), status200],
    rows: where(HTTP, (r) => r.id === "u1"),
    names: ["minif_req_duration_ms"],
    cells: [100],
  },
  {
    page: "percentileif",
    query: "summarize percentileif(req_duration_ms, 95, geo.country == 'US')",
    fn: "percentileif",
    args: [f("req_duration_ms"), k(95), pred("geo.country == 'US'", (r) => r["geo.country"] === "US")],
    rows: HTTP,
    names: ["percentileif_req_duration_ms_95"],
    cells: [300],
  },
  {
    page: "percentiles-arrayif",
    query: "summarize Dist=percentiles_arrayif(req_duration_ms, dynamic([90, 99]), status == '200')",
    fn: "percentiles_arrayif",
    args: [f("req_duration_ms"), k([90, 99]), status200],
    rows: HTTP,
    given: "Dist",
    names: ["Dist"],
    cells: [[700, 700]],
  },
  {
    page: "histogramif",
    query: "summarize histogramif(req_duration_ms, 10, status == '200')",
    fn: "histogramif",
    args: [f("req_duration_ms"), k(10), status200],
    rows: HTTP,
    names: ["histogramif_req_duration_ms"],
    cells: [
      [
        { bin: 100, count: 1 },
        { bin: 160, count: 1 },
        { bin: 280, count: 1 },
        { bin: 640, count: 1 },
      ],
    ],
  },
  {
    page: "topk",
    query: "summarize topk(status, 5) by method (GET)",
    fn: "topk",
    args: [f("status"), k(5)],
    rows: where(HTTP, (r) => r.method === "GET"),
    names: ["topk_status"],
    cells: [
      [
        { key: "200", count: 3, error: 0 },
        { key: "403", count: 1, error: 0 },
        { key: "404", count: 1, error: 0 },
      ],
    ],
  },
  {
    page: "phrases",
    query: "summarize phrases(uri, 10)",
    fn: "phrases",
    args: [f("uri"), k(10)],
    rows: HTTP,
    names: ["phrases_uri"],
    cells: [[]],
  },
];

describe("the reference's examples (apl/aggregation-function/<page>.mdx)", () => {
  it.each(EXAMPLES.map((e) => [e.page, e.query, e] as const))("%s: %s", (_page, _query, e) => {
    const { names, cells } = aggregate(e.fn, e.args, e.rows, e.given, e.context);
    expect(names).toEqual(e.names);
    // Reals compare to 6 decimals (the sums run in another order than the hand computation).
    expect(cells).toStrictEqual(
      e.cells.map((c) => (typeof c === "number" && !Number.isInteger(c) ? expect.closeTo(c, 6) : c)),
    );
  });

  it("covers every aggregation the reference lists, each …if form included, or refuses it by name", () => {
    const pages = [
      "arg_max",
      "arg_min",
      "avg",
      "avgif",
      "count",
      "countif",
      "dcount",
      "dcountif",
      "histogram",
      "histogramif",
      "make_list",
      "make_list_if",
      "make_set",
      "make_set_if",
      "max",
      "maxif",
      "min",
      "minif",
      "percentile",
      "percentileif",
      "percentiles_array",
      "percentiles_arrayif",
      "phrases",
      "rate",
      "spotlight",
      "stdev",
      "stdevif",
      "sum",
      "sumif",
      "topk",
      "topkif",
      "variance",
      "varianceif",
    ];
    for (const name of pages)
      expect([name, AGGREGATIONS.has(name) || UNSUPPORTED_AGGREGATIONS.has(name)]).toEqual([name, true]);
    const tested = new Set(EXAMPLES.map((e) => e.fn));
    for (const name of AGGREGATIONS.keys())
      // percentiles, spotlight and phrases have describe blocks of their own below.
      if (!["percentiles", "spotlight", "phrases"].includes(name))
        expect([name, tested.has(name)]).toEqual([name, true]);
  });
});

describe("nulls, types and bad constants", () => {
  it("count() counts rows; count(x) the rows where x is not null", () => {
    expect(run("count", [[], [], []])).toEqual([3]);
    expect(run("count", [[1], [null], [undefined], ["a"]])).toEqual([2]);
  });

  it("numeric aggregations skip nulls and values that are not numbers; avg and stdev of nothing are null, sum 0", () => {
    const rows = [[3], [null], ["7"], [1], [undefined], [{ a: 1 }], [8]];
    expect(run("sum", rows)).toEqual([12]);
    expect(run("avg", rows)).toEqual([4]);
    expect(run("min", [[3], [null], [1], [8]])).toEqual([1]);
    expect(run("max", [[3], [null], [1], [8]])).toEqual([8]);
    expect(run("avg", [[null]])).toEqual([null]);
    expect(run("stdev", [])).toEqual([null]);
    expect(run("variance", [[5]])).toEqual([0]);
    expect(run("sum", [])).toEqual([0]);
    expect(run("min", [])).toEqual([null]);
    expect(run("percentile", [[null]], [undefined, 50])).toEqual([null]);
    expect(run("percentiles_array", [], [undefined, 50, 90])).toEqual([[null, null]]);
    expect(run("arg_max", [[null, "x"]])).toEqual([]);
    expect(run("make_list", [[null], [1], [undefined]])).toEqual([[1]]);
  });

  it("keeps the input's type: ints sum to ints, avg is real, datetimes and timespans stay what they are", () => {
    expect(run("sum", [[1], [2]])).toStrictEqual([3]);
    expect(run("avg", [[1], [2]])).toStrictEqual([1.5]);
    expect(run("min", [[new DateTime(5n)], [new DateTime(2n)]])).toStrictEqual([new DateTime(2n)]);
    expect(run("sum", [[new Timespan(5n)], [new Timespan(2n)]])).toStrictEqual([new Timespan(7n)]);
    expect(run("avg", [[new Timespan(5n)], [new Timespan(2n)]])).toStrictEqual([new Timespan(4n)]);
    expect(run("max", [["b"], ["a"]])).toStrictEqual(["b"]);
    expect(run("make_set", [[[1, 2]], [[1, 2]], [{ a: 1 }]])).toStrictEqual([[[1, 2], { a: 1 }]]);
  });

  it("histogram keeps only its non-empty bins, so a huge bin count costs nothing", () => {
    expect(run("histogram", [[0], [10], [10]], [undefined, 1_000_000_000])).toEqual([
      [
        { bin: 0, count: 1 },
        // The last of a billion bins, each 10/1e9 wide, starts just below 10.
        { bin: expect.closeTo(10 - 10 / 1e9, 12), count: 2 },
      ],
    ]);
    expect(run("histogram", [[3], [3]], [undefined, 5])).toEqual([[{ bin: 3, count: 2 }]]);
  });

  it("keeps a text apart from the tagged key of another type that reads the same", () => {
    const lookalikes = [
      [new DateTime(5n)],
      ["\u0000d5"],
      ["\u0000\u0000d5"],
      [new Timespan(5n)],
      [5],
      ["5"],
      [0],
      [-0],
    ];
    expect(run("dcount", lookalikes)).toEqual([7]);
    expect(run("topk", lookalikes, [undefined, 10])).toEqual([
      expect.arrayContaining([{ key: 0, count: 2, error: 0 }]),
    ]);
  });

  it("dcount and make_set tell values apart by type: 1 and '1' are two values", () => {
    expect(run("dcount", [["a"], ["b"], ["a"], [null], [1], ["1"]])).toEqual([4]);
    expect(run("make_set", [[1], ["1"], [1]])).toEqual([[1, "1"]]);
  });

  it("the …if forms count a row only when the predicate is exactly true", () => {
    expect(run("countif", [[true], [false], [null], [1], ["true"], [true]])).toEqual([2]);
    expect(
      run("sumif", [
        [5, true],
        [7, null],
        [9, false],
      ]),
    ).toEqual([5]);
  });

  it("make_list and make_set stop at their max size, and make_set at 128 by default (make-set.mdx)", () => {
    const many = Array.from({ length: 300 }, (_x, i) => [i]);
    expect((run("make_list", many, [undefined, 10])[0] as unknown[]).length).toBe(10);
    expect(run("make_list", many, [undefined, 3])).toEqual([[0, 1, 2]]);
    expect((run("make_set", many)[0] as unknown[]).length).toBe(DEFAULT_MAKE_SET_CAP);
    expect(
      (
        run(
          "make_set_if",
          many.map((r) => [...r, true]),
        )[0] as unknown[]
      ).length,
    ).toBe(300);
    expect(
      run(
        "make_list_if",
        many.map((r) => [...r, r[0] % 100 === 0, 2]),
        [undefined, undefined, 2],
      ),
    ).toEqual([[0, 100]]);
  });

  it("rate needs a window longer than 0, and without one (a compile-time check) gives null", () => {
    expect(() => AGGREGATIONS.get("rate")!.create([], { windowNs: 0n })).toThrow(
      "rate() needs a time window longer than 0, got 0 ns",
    );
    expect(run("rate", [[5]])).toEqual([null]);
  });

  it.each([
    ["topk", [undefined, 0], "topk() takes k as a positive integer constant, got 0"],
    ["topk", [undefined, 2.5], "topk() takes k as a positive integer constant, got 2.5"],
    ["topkif", [undefined, "x", undefined], 'topkif() takes k as a positive integer constant, got "x"'],
    ["percentile", [undefined, 150], "percentile() takes percentiles between 0 and 100, got 150"],
    [
      "percentiles_array",
      [undefined, 50, -1],
      "percentiles_array() takes percentiles between 0 and 100, got -1",
    ],
    [
      "percentiles_arrayif",
      [undefined, [50, "a"], undefined],
      'percentiles_arrayif() takes percentiles between 0 and 100, got "a"',
    ],
    [
      "percentiles_arrayif",
      [undefined, [], undefined],
      "percentiles_arrayif() takes at least one percentile",
    ],
    [
      "histogram",
      [undefined, 0],
      "histogram() takes the number of bins as a positive integer constant, got 0",
    ],
    ["make_list", [undefined, -3], "make_list() takes a maximum size as a positive integer constant, got -3"],
    ["dcount", [undefined, 9], "dcount() takes an accuracy level 0 to 4, got 9"],
  ])("%s refuses the constants %j, naming the function", (fn, constants, message) => {
    const create = () => AGGREGATIONS.get(fn)!.create(constants);
    expect(create).toThrow(AggregationArgumentError);
    expect(create).toThrow(message);
  });

  it("refuses no aggregation of the reference", () => {
    expect([...UNSUPPORTED_AGGREGATIONS.keys()]).toEqual([]);
  });

  it("declares which arguments are constants, the …if forms shifted around their predicate", () => {
    const constants = (fn: string) => [
      AGGREGATIONS.get(fn)!.constantArgs,
      AGGREGATIONS.get(fn)!.constantArgsFrom,
    ];
    expect(constants("topkif")).toEqual([[1], undefined]);
    expect(constants("percentileif")).toEqual([[1], undefined]);
    expect(constants("make_set_if")).toEqual([[2], undefined]);
    expect(constants("percentiles_array")).toEqual([undefined, 1]);
    expect(constants("percentiles_arrayif")).toEqual([[1], undefined]);
    expect(AGGREGATIONS.get("percentiles_arrayif")).toMatchObject({ minArgs: 3, maxArgs: 3 });
    expect(AGGREGATIONS.get("countif")).toMatchObject({ minArgs: 1, maxArgs: 1 });
  });
});

describe("output names", () => {
  const names = (fn: string, argTexts: string[], constants: unknown[] = [], given?: string) =>
    AGGREGATIONS.get(fn)!.outputNames(given, argTexts, constants);

  it("follow the service: fn_ then the argument's column, dots and brackets underscored", () => {
    expect(names("count", [])).toEqual(["count_"]);
    expect(names("avg", ["req.duration"])).toEqual(["avg_req_duration"]);
    expect(names("avg", ["['geo.city']"])).toEqual(["avg_geo_city"]);
    expect(names("avg", ["x"], [], "n")).toEqual(["n"]);
    expect(names("sum", ["toint(status)"])).toEqual(["sum_status"]);
    expect(names("sum", ["a + b"])).toEqual(["sum_"]);
    expect(names("sum", ["1"])).toEqual(["sum_"]);
    expect(names("countif", ["status == '500'"])).toEqual(["countif_"]);
    expect(names("percentile", ["duration", "99.9"], [undefined, 99.9])).toEqual([
      "percentile_duration_99_9",
    ]);
    expect(names("percentiles", ["duration", "50", "95"], [undefined, 50, 95])).toEqual([
      "percentiles_duration_50",
      "percentiles_duration_95",
    ]);
  });

  it.each([
    ["duration > 500ms", "duration"],
    ["status in ('500', '502')", "status"],
    ["['geo.city'] == 'New York'", "geo.city"],
    ["req.headers['content-type']", "req.headers.content-type"],
    ["['attributes'].http.status", "attributes.http.status"],
    ["todouble(resp_body_size_bytes) / 1000", "resp_body_size_bytes"],
    ["iff(a > 1, \"x(\", 'y')", "a"],
    ["events[0]", "events"],
    ["not(isnull(x)) and x != 'a'", "x"],
    ["strcat(a, b)", undefined],
    ["datetime(2024-01-01) - 1h", undefined],
    ["now()", undefined],
  ])("reads the one column of %s", (text, column) => {
    expect(singleColumn(text)).toBe(column);
  });

  it("arg_max names its columns after the arguments, honours name=, keeps * for the core, and makes repeats unique", () => {
    expect(names("arg_max", ["duration", "longestSpan=span_id"])).toEqual(["duration", "longestSpan"]);
    expect(names("arg_max", ["duration", "*"])).toEqual(["duration", "*"]);
    expect(names("arg_max", ["duration", "duration"])).toEqual(["duration", "duration1"]);
    expect(names("arg_min", ["a + b", "x == 1"])).toEqual(["min_", "x"]);
    expect(names("arg_min", ["strlen(a) + strlen(b)", "a"])).toEqual(["min_", "a"]);
  });
});

describe("percentile's estimator (a merging t-digest, emulator/apl/aggregations/tdigest.ts)", () => {
  /** A seeded linear congruential generator, so the distributions are the same on every run. */
  function random(seed: number) {
    return () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
  }
  const r = random(42);
  const N = 200_000;
  const distributions: [string, number[]][] = [
    ["uniform", Array.from({ length: N }, () => r() * 100_000)],
    // exp(N(5, 1.5²)) by Box–Muller: a skewed, latency-like distribution with a long tail.
    [
      "lognormal",
      Array.from({ length: N }, () =>
        Math.exp(5 + 1.5 * Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r())),
      ),
    ],
    ["ascending", Array.from({ length: N }, (_x, i) => i)],
  ];

  it.each(distributions)(
    "stays within 0.2 percentage points of rank, and 2%% of value from p50 on, over %s",
    (_name, xs) => {
      const sorted = Float64Array.from(xs).sort();
      const ps = [1, 10, 50, 90, 95, 99, 99.9];
      const estimates = run(
        "percentiles",
        xs.map((x) => [x]),
        [undefined, ...ps],
      ) as number[];
      ps.forEach((p, i) => {
        const estimate = estimates[i];
        const exact = sorted[Math.ceil((p / 100) * N) - 1];
        let below = 0;
        while (below < N && sorted[below] < estimate) below++;
        expect(Math.abs((below / N) * 100 - p)).toBeLessThan(0.2);
        if (p >= 50) expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.02);
      });
    },
  );

  it.each(distributions)(
    "reads its cdf (spotlight's distance) within 0.2 percentage points over %s",
    (_name, xs) => {
      const digest = new TDigest();
      for (const x of xs) digest.add(x);
      const sorted = Float64Array.from(xs).sort();
      for (const p of [0.5, 10, 50, 90, 99.5]) {
        const x = sorted[Math.floor((p / 100) * N)];
        let atOrBelow = 0;
        while (atOrBelow < N && sorted[atOrBelow] <= x) atOrBelow++;
        expect(Math.abs(digest.cdf(x)! - atOrBelow / N) * 100).toBeLessThan(0.2);
      }
      expect([digest.cdf(-Infinity), digest.cdf(Infinity)]).toEqual([0, 1]);
    },
  );

  it("is exact (nearest rank, a value of the column) up to 1,000 values", () => {
    const xs = Array.from({ length: 1000 }, (_x, i) => (i * 7919) % 1000);
    expect(
      run(
        "percentiles",
        xs.map((x) => [x]),
        [undefined, 0, 0.1, 50, 99.9, 100],
      ),
    ).toEqual([0, 0, 499, 998, 999]);
  });
});

describe("datetimes in percentiles and histograms", () => {
  it("gives a datetime of the column, to the nanosecond, and skips numbers in a group of datetimes", () => {
    const times = [t0 + 3n, t0 + 1n, t0 + 2n, t0 + 1_000_000_000_007n].map((ns) => [new DateTime(ns)]);
    expect(run("percentile", [...times, [5]], [undefined, 50])).toStrictEqual([new DateTime(t0 + 2n)]);
    expect(run("percentiles_array", times, [undefined, 100])).toStrictEqual([
      [new DateTime(t0 + 1_000_000_000_007n)],
    ]);
    expect(run("percentile", [[5], ...times], [undefined, 50])).toStrictEqual([5]);
    expect(run("histogram", times, [undefined, 2])).toStrictEqual([
      [
        { bin: "2023-11-14T22:13:20.000000001Z", count: 3 },
        { bin: "2023-11-14T22:21:40.000000004Z", count: 1 },
      ],
    ]);
    // Sums and averages of datetimes mean nothing: they are skipped.
    expect(run("sum", times)).toStrictEqual([0]);
  });
});

describe("spotlight (spotlight.mdx): the selected rows against the baseline, field by field", () => {
  const spotlight = (args: Arg[], rows: Row[]) => {
    const { names, cells } = aggregate("spotlight", args, rows);
    expect(names).toEqual(["spotlight_"]);
    return cells[0] as { field: string; kind: string; score: number; [k: string]: unknown }[];
  };

  it("spotlight.mdx: summarize spotlight(status startswith \"5\", ['geo.country'], ['geo.city'], method, uri, req_duration_ms)", () => {
    const entries = spotlight(
      [
        pred(`status startswith "5"`, (r) => String(r.status).startsWith("5")),
        f("geo.country"),
        f("geo.city"),
        f("method"),
        f("uri"),
        f("req_duration_ms"),
      ],
      HTTP,
    );
    // uri and req_duration_ms never share a value between the two cohorts: distance 1. The others: 5/6.
    expect(entries.map((e) => [e.field, e.kind, e.score])).toEqual([
      ["req_duration_ms", "categorical", 1],
      ["uri", "categorical", 1],
      ["geo.city", "categorical", expect.closeTo(5 / 6, 9)],
      ["geo.country", "categorical", expect.closeTo(5 / 6, 9)],
      ["method", "categorical", expect.closeTo(5 / 6, 9)],
    ]);
    const method = entries.find((e) => e.field === "method")!;
    expect(method).toMatchObject({
      selected_present: 2,
      baseline_present: 6,
      selected_present_proportion: 1,
      baseline_present_proportion: 1,
    });
    expect(method.values).toEqual([
      {
        value: "GET",
        selected_count: 0,
        baseline_count: 5,
        selected_proportion: 0,
        baseline_proportion: 5 / 6,
        lift: 0,
        difference: -5 / 6,
      },
      {
        value: "PUT",
        selected_count: 1,
        baseline_count: 0,
        selected_proportion: 0.5,
        baseline_proportion: 0,
        lift: null,
        difference: 0.5,
      },
      {
        value: "POST",
        selected_count: 1,
        baseline_count: 1,
        selected_proportion: 0.5,
        baseline_proportion: 1 / 6,
        lift: 3,
        difference: expect.closeTo(1 / 3, 9),
      },
    ]);
  });

  it("spotlight.mdx: summarize spotlight(duration > 500ms, ['service.name'], kind, status_code, duration)", () => {
    const entries = spotlight(
      [
        pred("duration > 500ms", (r) => (r.duration as Timespan).ns > 500n * MS),
        f("service.name"),
        f("kind"),
        f("status_code"),
        f("duration"),
      ],
      SPANS,
    );
    expect(entries.map((e) => [e.field, e.score])).toEqual([
      ["duration", 1],
      ["service.name", 1],
      ["kind", 0.25],
      ["status_code", 0.25],
    ]);
  });

  it("spotlight.mdx: summarize spotlight(status in ('500','502','503'), ['geo.country'], ['geo.city'], method, uri, status)", () => {
    const entries = spotlight(
      [
        pred("status in ('500','502','503')", (r) => ["500", "502", "503"].includes(r.status as string)),
        f("geo.country"),
        f("geo.city"),
        f("method"),
        f("uri"),
        f("status"),
      ],
      HTTP,
    );
    expect(entries.map((e) => [e.field, e.score])).toEqual([
      ["status", 1],
      ["uri", 1],
      ["geo.city", expect.closeTo(5 / 6, 9)],
      ["geo.country", expect.closeTo(5 / 6, 9)],
      ["method", expect.closeTo(5 / 6, 9)],
    ]);
  });

  it("compares many-valued numbers as boxplots, scored by the Kolmogorov–Smirnov distance", () => {
    const rows = Array.from({ length: 100 }, (_x, i) => ({ x: i, y: i % 2 }));
    const entries = spotlight([pred("x >= 50", (r) => (r.x as number) >= 50), f("x"), f("y")], rows);
    expect(entries[0]).toEqual({
      field: "x",
      kind: "numeric",
      score: 1,
      selected_present: 50,
      baseline_present: 50,
      selected_present_proportion: 1,
      baseline_present_proportion: 1,
      selected: { min: 50, p25: 62, p50: 74, p75: 87, max: 99 },
      baseline: { min: 0, p25: 12, p50: 24, p75: 37, max: 49 },
    });
    // y alternates 0/1 in both cohorts alike.
    expect(entries[1]).toMatchObject({ field: "y", kind: "categorical", score: 0 });
  });

  it("with * compares every top-level column of the row, counts a null predicate as baseline, and scores a field one cohort lacks by its presence", () => {
    const rows = [
      { a: "x", nested: { b: 1 } },
      { a: "y", nested: { b: 2 } },
      { a: "y", other: true },
    ];
    const entries = spotlight(
      [
        ["a == 'x'", (r) => (r.a === "x" ? true : r.other ? null : false)],
        ["*", (r) => r],
      ],
      rows,
    );
    expect(entries.map((e) => [e.field, e.score])).toEqual([
      ["a", 1],
      ["other", 0.5],
    ]);
    expect(entries[1]).toMatchObject({
      selected_present: 0,
      baseline_present: 1,
      baseline_present_proportion: 0.5,
    });
  });
});

describe("phrases (phrases.mdx): the most common 2-to-4-word phrases of a text column", () => {
  // Conversations shaped like the page's example, whose output lists "first query", "cover related future queries"
  // and "use title case", each in 3 rows.
  const conversations = [
    "Please use title case for the first query. Cover related future queries too.",
    "Use title case here | first query again | cover related future queries",
    "For the first query, use title case and cover related future queries.",
    null,
    42,
  ].map((text) => ({ conversation_text: text }));

  it("phrases.mdx: summarize common_phrases = phrases(conversation_text, 20)", () => {
    const { names, cells } = aggregate(
      "phrases",
      [f("conversation_text"), k(20)],
      conversations,
      "common_phrases",
    );
    expect(names).toEqual(["common_phrases"]);
    expect(cells).toEqual([
      [
        { phrase: "cover related future queries", count: 3 },
        { phrase: "use title case", count: 3 },
        { phrase: "first query", count: 3 },
      ],
    ]);
  });

  it("keeps at most max_phrases, and names the column after the text column", () => {
    const { names, cells } = aggregate("phrases", [f("conversation_text"), k(1)], conversations);
    expect(names).toEqual(["phrases_conversation_text"]);
    expect(cells).toEqual([[{ phrase: "cover related future queries", count: 3 }]]);
    expect(() => AGGREGATIONS.get("phrases")!.create([undefined, 0])).toThrow(
      "phrases() takes max_phrases as a positive integer constant, got 0",
    );
  });

  it("past 100,000 distinct phrases keeps the most frequent half, with their counts", () => {
    // Each row brings fresh phrases (alpha<i> beta<i> ...) and one shared phrase; 15,000 rows bring ~200,000.
    const rows = Array.from({ length: 15_000 }, (_x, i) => [
      `alpha${i} beta${i} gamma${i % 7} delta common words here`,
    ]);
    const [top] = run("phrases", rows, [undefined, 2]) as [{ phrase: string; count: number }[]];
    expect(top).toEqual([
      { phrase: "delta common words here", count: 15_000 },
      { phrase: "gamma0 delta common words", count: 2143 },
    ]);
  });

  it("counts a phrase once per row, needs two rows, and never joins words across punctuation", () => {
    const rows = [["disk full, disk full"], ["disk full"], ["disk. full"], ["only once here"]];
    expect(run("phrases", rows, [undefined, 10])).toEqual([[{ phrase: "disk full", count: 2 }]]);
  });
});

describe("topk's bound (Space-Saving past 20,000 distinct values in a group)", () => {
  it("keeps the frequent values with their exact counts, and gives later newcomers their possible overcount as error", () => {
    const rows: unknown[][] = [];
    // Two heavy hitters among 50,000 values seen once each.
    for (let i = 0; i < 50_000; i++) {
      rows.push([`rare${i}`]);
      if (i % 10 === 0) rows.push(["heavy"]);
      if (i % 25 === 0) rows.push(["medium"]);
    }
    const [top] = run("topk", rows, [undefined, 3]) as [{ key: unknown; count: number; error: number }[]];
    expect(top.slice(0, 2)).toEqual([
      { key: "heavy", count: 5000, error: 0 },
      { key: "medium", count: 2000, error: 0 },
    ]);
    // The third is a rare value counted after a pruning: its count is at most its error over the truth (1).
    expect(top[2].count - top[2].error).toBeLessThanOrEqual(1);
    expect(top[2].error).toBeGreaterThan(0);
  });
});
