/**
 * The tabular operators and statements of the APL reference (axiomhq/docs, content/docs/(query-reference)/apl/
 * tabular-operators/*.mdx and query-statement/*.mdx), one row per documented rule, each naming its page. Queries
 * run through runAplQuery (the `POST /v1/datasets/_apl` handler) in the tabular format; rows are read back as
 * objects of the output columns.
 */
import { AplError, compileQuery, parseApl } from "../../emulator/apl";
import { execute, QueryInterrupted, runAplQuery } from "../../emulator/query";
import { QueryBudget } from "../../emulator/query/budget";
import { EventStore } from "../../emulator/store/events";

const T0 = 1_704_067_200_000_000_000n; // 2024-01-01T00:00:00Z
const MIN = 60_000_000_000n;
const NOW = T0 + 24n * 60n * MIN;

/** Five requests a minute apart, plus a small table of data centres and a second log dataset for union/join. */
const LOGS: Record<string, unknown>[] = [
  {
    id: "a",
    status: "200",
    method: "GET",
    uri: "/api/users",
    dc: "eu",
    ms: 10,
    tags: ["x", "y"],
    kv: "k1=v1;k2=7",
  },
  { id: "b", status: "404", method: "GET", uri: "/api/missing", dc: "us", ms: 30, tags: [], kv: "k1=v2" },
  { id: "c", status: "500", method: "POST", uri: "/api/orders", dc: "eu", ms: 250, tags: ["z"], kv: "" },
  { id: "d", status: "200", method: "POST", uri: "/login", dc: "ap", ms: 5, tags: ["x"], kv: "k2=1" },
  { id: "e", status: "200", method: "GET", uri: "/api/users", dc: null, ms: 15, bag: { a: 1, b: 2 } },
];
const DCS: Record<string, unknown>[] = [
  { dc: "eu", region: "Europe" },
  { dc: "us", region: "Americas" },
  { dc: "sa", region: "South America" },
];
const AUDIT: Record<string, unknown>[] = [
  { id: "a", actor: "alice" },
  { id: "c", actor: "carol" },
];

function store(): EventStore {
  const s = new EventStore();
  s.append(
    "logs",
    LOGS.map((data, i) => ({ timeNs: T0 + BigInt(i) * MIN, data })),
    T0,
  );
  s.append(
    "dcs",
    DCS.map((data) => ({ timeNs: T0, data })),
    T0,
  );
  s.append(
    "audit-logs",
    AUDIT.map((data, i) => ({ timeNs: T0 + BigInt(i) * MIN, data })),
    T0,
  );
  return s;
}

interface Answer {
  fields: string[];
  rows: Record<string, unknown>[];
}

/** The query's tabular answer as row objects; throws with the body when it is not a 200. */
async function run(apl: string): Promise<Answer> {
  const res = await runAplQuery(store(), { apl }, "tabular", NOW);
  if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const table = (res.body as any).tables[0] as { fields: { name: string }[]; columns: unknown[][] };
  const fields = table.fields.map((f) => f.name);
  const n = table.columns[0]?.length ?? 0;
  const rows = Array.from({ length: n }, (_, i) =>
    Object.fromEntries(fields.map((f, j) => [f, table.columns[j][i]])),
  );
  return { fields, rows };
}

/** One column of the answer. */
async function column(apl: string, name: string): Promise<unknown[]> {
  return (await run(apl)).rows.map((r) => r[name]);
}

describe("tabular operators, as their pages document them", () => {
  it.each([
    [
      "where-operator.mdx: where keeps the rows whose condition is true",
      "logs | where ms > 12 | sort by id asc",
      "id",
      ["b", "c", "e"],
    ],
    [
      "where-operator.mdx: filter is where's other name",
      "logs | filter method == 'POST' | sort by id asc",
      "id",
      ["c", "d"],
    ],
    ["where-operator.mdx: * has searches every column", "logs | where * has 'orders'", "id", ["c"]],
    [
      "extend-operator.mdx: extend adds a computed column",
      "logs | extend twice = ms * 2 | sort by id asc | take 2",
      "twice",
      [20, 60],
    ],
    [
      "extend-valid-operator.mdx: a null result leaves the value as it was",
      "logs | extend-valid dc = iff(ms > 100, 'big', dc) | sort by id asc",
      "dc",
      ["eu", "us", "big", "ap", null],
    ],
    [
      "project-operator.mdx: project computes and renames",
      "logs | project id, slow = ms > 20 | sort by id asc | take 3",
      "slow",
      [false, true, true],
    ],
    ["sort-operator.mdx: sort by ... asc", "logs | sort by ms asc | take 3", "id", ["d", "a", "e"]],
    [
      "order-operator.mdx: order is sort's other name, descending by default",
      "logs | order by ms | take 2",
      "id",
      ["c", "b"],
    ],
    [
      "sort-operator.mdx: nulls first",
      "logs | sort by dc asc nulls last",
      "dc",
      ["ap", "eu", "eu", "us", null],
    ],
    ["top-operator.mdx: top n by a column", "logs | top 2 by ms", "id", ["c", "b"]],
    ["top-operator.mdx: top n by an expression, ascending", "logs | top 1 by ms * -1 asc", "id", ["c"]],
    ["limit-operator.mdx: limit returns n rows", "logs | sort by id asc | limit 2", "id", ["a", "b"]],
    ["take-operator.mdx: take is limit's other name", "logs | sort by id asc | take 1", "id", ["a"]],
    [
      "count-operator.mdx: count returns one row, Count",
      "logs | where method == 'GET' | count",
      "Count",
      [3],
    ],
    [
      "distinct-operator.mdx: distinct over one column",
      "logs | distinct method | sort by method asc",
      "method",
      ["GET", "POST"],
    ],
    [
      "distinct-operator.mdx: distinct over several",
      "logs | distinct method, status | sort by method asc, status asc",
      "status",
      ["200", "404", "200", "500"],
    ],
    [
      "summarize-operator.mdx: summarize count() by",
      "logs | summarize count() by method | sort by method asc",
      "count_",
      [3, 2],
    ],
    [
      "summarize-operator.mdx: by bin(_time, 2m)",
      "logs | summarize n = count() by bin(_time, 2m) | sort by _time asc",
      "n",
      [2, 2, 1],
    ],
    [
      "histogram.mdx: by histogram(x, 10) groups x in bins of 10",
      "logs | summarize n = count() by histogram(ms, 10) | sort by ms asc",
      "ms",
      [0, 10, 30, 250],
    ],
    [
      "summarize-operator.mdx: an expression over aggregations",
      "logs | summarize r = round(100.0 * countif(status == '200') / count(), 1)",
      "r",
      [60],
    ],
    [
      "project-away-operator.mdx: project-away removes columns",
      "logs | project-away tags, kv, bag | take 1 | getschema | where ColumnName == 'tags' | count",
      "Count",
      [0],
    ],
    [
      "project-keep-operator.mdx: project-keep with a wildcard",
      "logs | project-keep i*, m* | take 1 | getschema | sort by ColumnName asc",
      "ColumnName",
      ["id", "method", "ms"],
    ],
    [
      "project-rename.mdx: project-rename new = old",
      "logs | project-rename path = uri | sort by id asc | take 1",
      "path",
      ["/api/users"],
    ],
    [
      "project-reorder-operator.mdx: the named columns first, the rest after",
      "logs | project id, ms, uri | project-reorder uri | getschema",
      "ColumnName",
      ["uri", "id", "ms"],
    ],
    [
      "project-reorder-operator.mdx: a wildcard in asc order",
      "logs | project uri, method, ms | project-reorder m* asc",
      "",
      ["method", "ms", "uri"],
    ],
    [
      "parse-operator.mdx: parse with a simple pattern",
      "logs | parse uri with '/api/' rest | sort by id asc",
      "rest",
      ["users", "missing", "orders", null, "users"],
    ],
    [
      "parse-operator.mdx: typed columns, kind=regex",
      "logs | parse kind=regex kv with @'k2=' n:long | where isnotnull(n) | sort by id asc",
      "n",
      [7, 1],
    ],
    [
      "parse-where.mdx: parse-where drops the rows that do not match",
      "logs | parse-where uri with '/api/' rest | count",
      "Count",
      [4],
    ],
    [
      "parse-kv.mdx: parse-kv with delimiters",
      "logs | parse-kv kv as (k1, k2) with (pair_delimiter=';', kv_delimiter='=') | sort by id asc",
      "k1",
      ["v1", "v2", null, null, null],
    ],
    [
      "mv-expand.mdx: one row per element",
      "logs | mv-expand tags | where isnotnull(tags) | sort by id asc, tags asc",
      "tags",
      ["x", "y", "z", "x"],
    ],
    [
      "mv-expand.mdx: a property bag expands to one bag per key",
      "logs | where id == 'e' | mv-expand bag",
      "bag",
      [{ a: 1 }, { b: 2 }],
    ],
    [
      "mv-expand.mdx: limit caps the rows per input row",
      "logs | where id == 'a' | mv-expand tags limit 1",
      "tags",
      ["x"],
    ],
    ["search-operator.mdx: a term in any column", "logs | search 'login'", "id", ["d"]],
    ["search-operator.mdx: field:term", "logs | search method:'post' | sort by id asc", "id", ["c", "d"]],
    ["search-operator.mdx: a wildcard term is a prefix", "logs | search 'miss*'", "id", ["b"]],
    [
      "search-operator.mdx: search in (datasets) at the start",
      "search in (*logs) 'carol' | project id",
      "id",
      ["c"],
    ],
    [
      "search-operator.mdx: search at the start reads every dataset",
      "search 'Americas' | project dc",
      "dc",
      ["us"],
    ],
    ["sample-operator.mdx: sample n returns n rows", "logs | sample 3 | count", "Count", [3]],
    [
      "getschema-operator.mdx: names, ordinals and types",
      "datatable(a: long, b: string) [1, 'x'] | getschema",
      "DataType",
      ["long", "string"],
    ],
    [
      "redact-operator.mdx: a one-character token per character",
      "logs | where id == 'a' | redact replaceToken='x' @'users' on uri",
      "uri",
      ["/api/xxxxx"],
    ],
    [
      "redact-operator.mdx: a longer token replaces the whole match",
      "logs | where id == 'a' | redact replaceToken='<R>' @'[a-z]+$' on uri",
      "uri",
      ["/api/<R>"],
    ],
  ])("%s", async (_rule, apl, col, want) => {
    if (col === "") expect((await run(apl)).fields).toEqual(want);
    else expect(await column(apl, col)).toEqual(want);
  });

  it("make-series.mdx: one array per group over the bins, empty bins holding the default", async () => {
    const { rows } = await run(
      "logs | make-series n = count() default = 0 on _time from datetime(2024-01-01) to datetime(2024-01-01T00:06:00Z) step 2m by method | sort by method asc",
    );
    expect(rows.map((r) => [r.method, r.n])).toEqual([
      ["GET", [2, 0, 1]],
      ["POST", [0, 2, 0]],
    ]);
    expect(rows[0]._time).toEqual(["2024-01-01T00:00:00Z", "2024-01-01T00:02:00Z", "2024-01-01T00:04:00Z"]);
  });

  it("sample-distinct: at most n distinct values of a column", async () => {
    const values = await column("logs | sample-distinct 2 of method", "method");
    expect(values).toHaveLength(2);
    expect(new Set(values)).toEqual(new Set(["GET", "POST"]));
  });
});

describe("union, join and lookup (union-operator.mdx, join-operator.mdx, lookup-operator.mdx)", () => {
  it.each([
    ["union appends another dataset's rows", "logs | union ['audit-logs'] | count", "Count", [7]],
    [
      "union withsource names each row's dataset",
      "logs | union withsource=ds ['audit-logs'] | summarize count() by ds | sort by ds asc",
      "ds",
      ["audit-logs", "logs"],
    ],
    [
      "union of a wildcard reads every matching dataset",
      "union withsource=ds *logs | summarize count() by ds | sort by ds asc",
      "count_",
      [2, 5],
    ],
    ["union at the start of a query", "union logs, dcs | count", "Count", [8]],
    [
      "union kind=inner keeps only the columns every table has",
      "union kind=inner logs, dcs | getschema | where ColumnName !startswith '_'",
      "ColumnName",
      ["dc"],
    ],
    [
      "join kind=inner keeps each matching pair",
      "logs | join kind=inner (dcs) on dc | sort by id asc",
      "region",
      ["Europe", "Americas", "Europe"],
    ],
    [
      "join's default kind is inner: every matching pair",
      "logs | join (dcs | union (dcs | where dc == 'eu')) on dc | count",
      "Count",
      [5],
    ],
    [
      "join kind=innerunique: each left row with its first right match only",
      "logs | join kind=innerunique (dcs | union (dcs | where dc == 'eu')) on dc | count",
      "Count",
      [3],
    ],
    [
      "join on left_expr == right_expr, each side read from its own dataset",
      "logs | join kind=inner (['audit-logs'] | project who = actor, rid = toupper(id)) on toupper(id) == rid | sort by id asc",
      "who",
      ["alice", "carol"],
    ],
    [
      "join kind=leftouter keeps unmatched left rows with nulls",
      "logs | join kind=leftouter (dcs) on dc | sort by id asc",
      "region",
      ["Europe", "Americas", "Europe", null, null],
    ],
    [
      "join kind=rightouter keeps unmatched right rows",
      "logs | join kind=rightouter (dcs) on dc | where isnull(id)",
      "dc",
      ["sa"],
    ],
    [
      "join kind=fullouter keeps both sides' unmatched rows",
      "logs | join kind=fullouter (dcs) on dc | count",
      "Count",
      [6],
    ],
    [
      "join kind=leftanti: left rows with no match",
      "logs | join kind=leftanti (dcs) on dc | sort by id asc",
      "id",
      ["d", "e"],
    ],
    ["join kind=rightanti: right rows with no match", "logs | join kind=rightanti (dcs) on dc", "dc", ["sa"]],
    [
      "join kind=leftsemi: left rows with a match, left columns only",
      "logs | join kind=leftsemi (dcs) on dc | sort by id asc",
      "id",
      ["a", "b", "c"],
    ],
    [
      "join kind=rightsemi: right rows with a match",
      "logs | join kind=rightsemi (dcs) on dc | sort by dc asc",
      "region",
      ["Europe", "Americas"],
    ],
    [
      "join on $left.a == $right.b",
      "logs | join kind=inner (['audit-logs'] | project who = actor, rid = id) on $left.id == $right.rid | sort by id asc",
      "who",
      ["alice", "carol"],
    ],
    [
      "lookup adds the right side's columns, leftouter by default",
      "logs | lookup (dcs) on dc | sort by id asc",
      "region",
      ["Europe", "Americas", "Europe", null, null],
    ],
    ["lookup kind=inner drops unmatched rows", "logs | lookup kind=inner (dcs) on dc | count", "Count", [3]],
  ])("%s", async (_rule, apl, col, want) => {
    expect(await column(apl, col)).toEqual(want);
  });

  it("the table's sources and datasetNames list every dataset read, a wildcard's matches included", async () => {
    const res = await runAplQuery(store(), { apl: "logs | union *logs | join (dcs) on dc" }, "tabular", NOW);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const body = res.body as any;
    expect(body.datasetNames).toEqual(["logs", "audit-logs", "dcs"]);
    expect(body.tables[0].sources).toEqual([{ name: "logs" }, { name: "audit-logs" }, { name: "dcs" }]);
    const printed = await runAplQuery(store(), { apl: "print 1" }, "tabular", NOW);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect((printed.body as any).datasetNames).toEqual([]);
  });

  it("the status's rowsExamined counts the rows a union's members examined", async () => {
    const res = await runAplQuery(store(), { apl: "logs | union ['audit-logs'] | count" }, "tabular", NOW);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect((res.body as any).status.rowsExamined).toBe(LOGS.length + AUDIT.length);
  });

  it("join with a right column of the left's name suffixes it with 1", async () => {
    const { fields } = await run("logs | join kind=inner (dcs) on dc");
    expect(fields).toContain("dc1");
    expect(fields).toContain("region");
  });

  it("a dataset a union names that does not exist is a 404 naming it", async () => {
    const res = await runAplQuery(store(), { apl: "logs | union nope" }, "tabular", NOW);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).toContain("nope");
  });

  it("join counts its work against the budget: a join over many rows passes checkpoints", async () => {
    const s = new EventStore();
    s.append(
      "big",
      Array.from({ length: 5000 }, (_, i) => ({ timeNs: T0 + BigInt(i), data: { k: i % 10 } })),
      T0,
    );
    const budget = { clock: () => 0 };
    const checkpoints: number[] = [];
    const res = await runAplQuery(
      s,
      { apl: "big | join kind=inner (big | where k == 1) on k | count" },
      "tabular",
      NOW,
      undefined,
      { ...budget, onSlice: () => void checkpoints.push(1) },
    );
    expect(res.status).toBe(200);
    // 5,000 × 500 = 2,500,000 output rows, far more than one slice.
    expect(checkpoints.length).toBeGreaterThan(2);
    expect(new QueryBudget().rowsPerSlice).toBeGreaterThan(0);
  });
});

describe("statements and sources (query-statement/*.mdx, the data types page's datatable and print examples)", () => {
  it.each([
    ["let binds a scalar", "let limit_ms = 20; logs | where ms > limit_ms | count", "Count", [2]],
    [
      "let binds a dynamic array for in",
      "let slow = dynamic(['c', 'b']); logs | where id in (slow) | sort by id asc",
      "id",
      ["b", "c"],
    ],
    ["let binds a table", "let gets = logs | where method == 'GET'; gets | count", "Count", [3]],
    ["let binds a dataset by its bare name", "let l = logs; l | count", "Count", [5]],
    [
      "let binds a scalar from another scalar",
      "let a = 20; let b = a; logs | where ms > b | count",
      "Count",
      [2],
    ],
    [
      "a let-bound table in a join",
      "let regions = dcs | project dc, region; logs | join kind=inner (regions) on dc | count",
      "Count",
      [3],
    ],
    ["set statements are accepted and change nothing", "set stricttypes; logs | count", "Count", [5]],
    [
      "declare query_parameters binds each parameter's default",
      "declare query_parameters (m:string = 'POST'); logs | where method == m | count",
      "Count",
      [2],
    ],
    ["print computes one row", "print x = 1 + 2, y = strcat('a', 'b')", "y", ["ab"]],
    ["print names unnamed columns print_0, print_1", "print 1, 2", "print_1", [2]],
    [
      "datatable makes rows from a schema and values",
      "datatable(n: long, s: string) [1, 'a', 2, 'b'] | where n > 1",
      "s",
      ["b"],
    ],
    [
      "a comment runs to the end of its line",
      "logs // every request\n| where method == 'POST' // only posts\n| count",
      "Count",
      [2],
    ],
    ["a parenthesised subquery as a source", "(logs | where ms > 20) | count", "Count", [2]],
  ])("%s", async (_rule, apl, col, want) => {
    expect(await column(apl, col)).toEqual(want);
  });

  it("a query that reads several datasets names them all (for authorization)", () => {
    const q = parseApl("logs | union ['audit-logs'] | join (dcs) on dc");
    expect(q.datasets).toEqual(["logs", "audit-logs", "dcs"]);
    expect(q.dataset).toBe("logs");
  });
});

describe("refusals name the construct and why (issue 45: 'not supported by the emulator: <construct> (<why>)')", () => {
  it.each([
    [
      "externaldata-operator.mdx: externaldata needs outside data",
      "externaldata (a: string) ['http://x/y.csv'] | take 1",
      "externaldata",
    ],
    ["let with a function body", "let f = (a: long) { a + 1 }; logs | take 1", "user-defined function"],
    ["a subquery used as a value", "logs | where ms > (logs | count)", "a subquery as a value"],
    ["an aggregation outside summarize", "logs | extend n = count()", "count outside summarize"],
    [
      "a scalar function that needs a GeoIP database",
      "logs | extend g = geo_info_from_ip_address('1.2.3.4')",
      "geo_info_from_ip_address",
    ],
  ])("%s", async (_rule, apl, construct) => {
    let err: unknown;
    try {
      parseApl(apl);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AplError);
    expect((err as AplError).message).toMatch(/^not supported by the emulator: .+ \(.+\)$/);
    expect((err as AplError).message).toContain(construct);
  });

  it.each([
    ["an unclosed datatable", "datatable(a: long) [1, 2", 1, 25, "',' or ']'"],
    ["a join without on", "logs | join (dcs)", 1, 18, "'on'"],
    ["an unknown join kind", "logs | join kind=sideways (dcs) on dc", 1, 18, "unknown join kind 'sideways'"],
    [
      "mv-expand's to typeof of no type",
      "logs | mv-expand tags to typeof(banana)",
      1,
      33,
      "unknown type 'banana'",
    ],
    ["a let without its ';' before the query", "let x = 1 logs | count", 1, 11, "';'"],
    ["parse without with", "logs | parse uri '/api/' rest", 1, 18, "'with'"],
    ["between without ..", "logs | where ms between (1, 2)", 1, 27, "'..'"],
    ["a single = in a condition", "logs | where ms = 2", 1, 17, "compare with =="],
  ])("syntax: %s names what was expected, at line:column", (_rule, apl, line, column, expected) => {
    let err: unknown;
    try {
      parseApl(apl);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AplError);
    expect(err).toMatchObject({ line, column });
    expect((err as AplError).message).toContain(expected);
  });
});

describe("every operator that takes its input whole runs in the budget's slices (a long one can be stopped)", () => {
  const ROWS = 20_000;
  const SLICE = 1000;
  let big: EventStore;
  beforeAll(() => {
    big = new EventStore();
    big.append(
      "big",
      Array.from({ length: ROWS }, (_, i) => ({
        timeNs: T0 + BigInt(i),
        data: { k: i % 7, s: `id=${i} ok`, arr: [i, i + 1] },
      })),
      T0,
    );
  });

  /** Checkpoints a query passes with slices of {@link SLICE} rows (emulator/query/budget.ts). */
  async function checkpoints(apl: string): Promise<number> {
    const budget = new QueryBudget();
    budget.rowsPerSlice = SLICE;
    const plan = compileQuery(parseApl(apl), { now: NOW });
    await execute(big.events("big") ?? [], plan, {
      pageLimit: 10,
      budget,
      datasetEvents: (name) => big.events(name),
      datasetNames: () => big.names(),
    });
    return budget.checkpoints;
  }

  it.each([
    ["mv-expand", "big | mv-expand arr"],
    ["distinct", "big | distinct s"],
    ["union", "big | union big"],
    ["join", "big | join kind=inner (big | where k == 1 | take 3) on k"],
    ["lookup", "big | lookup (big | distinct k) on k"],
    ["project-keep", "big | project-keep k, s"],
    ["project-away of _time", "big | project-away _time"],
    ["project-rename", "big | project-rename t = s"],
    ["getschema", "big | getschema"],
    ["sample", "big | sample 10"],
    ["sample-distinct", "big | sample-distinct 3 of k"],
    ["make-series", "big | make-series count() on _time step 1ms"],
  ])("%s passes checkpoints of its own, besides the scan's", async (_op, apl) => {
    // The scan alone: ROWS / SLICE checkpoints, less the last.
    const scan = await checkpoints("big | where k >= 0");
    expect(scan).toBeGreaterThan(0);
    expect(await checkpoints(apl)).toBeGreaterThan(scan);
  });

  it.each([
    ["parse", "big | parse s with 'id=' n:long ' ' rest"],
    ["parse-where", "big | parse-where s with 'id=' n:long ' ' rest"],
    ["parse-kv", "big | parse-kv s as (id) with (pair_delimiter=' ', kv_delimiter='=')"],
    ["extend-valid", "big | extend-valid k = k + 1"],
    ["project-away", "big | project-away arr"],
    ["redact", "big | redact @'\\d' on s"],
  ])("%s works a row at a time inside the scan, and so within its checkpoints", async (_op, apl) => {
    const plan = compileQuery(parseApl(apl), { now: NOW });
    const op = plan.ops[0];
    expect(op.op === "table" && op.rowwise !== undefined).toBe(true);
    expect(await checkpoints(apl)).toBeGreaterThanOrEqual(await checkpoints("big | where k >= 0"));
  });

  it("past its budget, a query stops at an operator's checkpoint", async () => {
    // The clock stands still through the scan and moves one ms per reading once mv-expand runs; the budget
    // allows 2 ms, so mv-expand's own checkpoints stop the query.
    let ms = 0;
    let expanding = false;
    const budget = new QueryBudget({ timeoutMs: 2, clock: () => (expanding ? ms++ : 0) });
    budget.rowsPerSlice = SLICE;
    const plan = compileQuery(parseApl("big | mv-expand arr"), { now: NOW });
    const expand = plan.ops[0];
    if (expand.op !== "table") throw new Error("mv-expand is a table operator");
    const run = expand.run.bind(expand);
    expand.run = (input, env) => {
      expanding = true;
      return run(input, env);
    };
    await expect(execute(big.events("big") ?? [], plan, { pageLimit: 10, budget })).rejects.toBeInstanceOf(
      QueryInterrupted,
    );
    expect(expanding).toBe(true);
  });
});

describe("summarize's output names", () => {
  it("repeated names are made unique as the service does (x, x1)", async () => {
    const { fields } = await run("logs | summarize max(ms), max(ms)");
    expect(fields).toEqual(["max_ms", "max_ms1"]);
  });

  it("['a.b'] reaches a nested a.b when no flat key holds it (the service flattens nested objects)", async () => {
    expect(await column("logs | where id == 'e' | project v = ['bag.a']", "v")).toEqual([1]);
  });
});
