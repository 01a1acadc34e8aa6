/** APL subset: every operator and expression form parsed and evaluated, every error located, never a crash. */
import fc from "fast-check";
import { AplError, parseApl, tokenize } from "../../emulator/apl";
import { runAplQuery } from "../../emulator/query";
import { EventStore } from "../../emulator/store/events";

const T0 = 1_704_067_200_000_000_000n; // 2024-01-01T00:00:00Z
const MIN = 60_000_000_000n;
const NOW = T0 + 24n * 60n * MIN;

/** Six events a minute apart, with the shapes the operators need: nulls, nesting, odd field names. */
const EVENTS: Record<string, unknown>[] = [
  {
    id: 1,
    status: 200,
    service: "api",
    msg: "GET /users ok",
    duration: 1.5,
    req: { path: "/users" },
    "field name": "x",
  },
  {
    id: 2,
    status: 404,
    service: "web",
    msg: "GET /missing not found",
    duration: 0.25,
    req: { path: "/missing" },
  },
  { id: 3, status: 500, service: "api", msg: "POST /orders failed", duration: 12, req: { path: "/orders" } },
  { id: 4, status: 503, service: "API-gw", msg: "upstream unavailable", duration: 30.5, tags: ["a"] },
  { id: 5, status: 200, service: "web", msg: "", duration: 2 },
  { id: 6, status: "n/a", service: "api", msg: "Health check", duration: null },
];

function store(): EventStore {
  const s = new EventStore();
  s.append(
    "t",
    EVENTS.map((data, i) => ({ timeNs: T0 + BigInt(i) * MIN, data })),
    T0,
  );
  return s;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function query(apl: string, format?: string): Promise<any> {
  const res = await runAplQuery(store(), { apl }, format, NOW);
  if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function ids(apl: string): Promise<unknown[]> {
  return (await query(apl)).matches.map((m: { data: { id: unknown } }) => m.data.id);
}

describe("APL where expressions", () => {
  it.each([
    ["== on a number", "t | where status == 200", [5, 1]],
    ["== on a string is case-sensitive", "t | where service == 'API-gw'", [4]],
    ["!= excludes equal values and type mismatches", "t | where status != 200", [4, 3, 2]],
    ["< compares numbers", "t | where status < 404", [5, 1]],
    ["<= includes the bound", "t | where status <= 404", [5, 2, 1]],
    ["> compares numbers", "t | where status > 500", [4]],
    [">= includes the bound", "t | where status >= 500", [4, 3]],
    ["=~ is case-insensitive equality", "t | where service =~ 'api-GW'", [4]],
    ["and needs both sides", "t | where status >= 200 and service == 'api'", [3, 1]],
    ["or needs either side", "t | where status == 404 or service == 'API-gw'", [4, 2]],
    ["and binds tighter than or", "t | where id == 1 or id == 2 and status == 500", [1]],
    ["parentheses override precedence", "t | where (id == 1 or id == 3) and status == 500", [3]],
    ["not() negates", "t | where not(service == 'api')", [5, 4, 2]],
    ["contains is case-insensitive", "t | where msg contains 'get'", [2, 1]],
    ["contains_cs is case-sensitive", "t | where msg contains_cs 'get'", []],
    ["!contains negates contains", "t | where msg !contains 'o'", [6, 5, 4]],
    ["startswith is case-insensitive", "t | where msg startswith 'get /u'", [1]],
    ["!startswith negates", "t | where msg !startswith 'g'", [6, 5, 4, 3]],
    ["endswith matches the end", "t | where msg endswith 'FAILED'", [3]],
    ["has matches whole terms", "t | where msg has 'not'", [2]],
    ["in (...) matches any listed value", "t | where id in (1, 3, 99)", [3, 1]],
    ["!in (...) excludes listed values", "t | where id !in (1, 2, 3, 4)", [6, 5]],
    ["isnull() is true for missing and null", "t | where isnull(duration)", [6]],
    ["isnotnull() is the opposite", "t | where isnotnull(tags)", [4]],
    ["isempty() is true for empty strings", "t | where isempty(msg)", [5]],
    ["dotted names read nested objects", "t | where req.path == '/orders'", [3]],
    ["['field name'] reads odd names", "t | where ['field name'] == 'x'", [1]],
    ["_time compares with an RFC 3339 string", "t | where _time >= '2024-01-01T00:03:00Z'", [6, 5, 4]],
    ["_time compares with datetime()", "t | where _time < datetime(2024-01-01T00:02:00Z)", [2, 1]],
    ["_time compares with a time expression", "t | where _time > datetime(2024-01-01) + 4m", [6]],
    ["ago() is relative to the query time", "t | where _time >= ago(1d)", [6, 5, 4, 3, 2, 1]],
    ["arithmetic in conditions", "t | where status % 100 == 3 or id * 2 == 4", [4, 2]],
    ["float literals compare with floats", "t | where duration > 1.75 and duration < 12.5", [5, 3]],
    [
      "a type mismatch is false, not an error (only the string status compares)",
      "t | where status > 'a'",
      [6],
    ],
    ["true literal", "t | where true", [6, 5, 4, 3, 2, 1]],
    // apl/data-types/null-values.mdx: null == null is bool(null), which where drops; isnull() finds nulls.
    ["null == null is null, not true", "t | where duration == null", []],
    ["isnull finds the null", "t | where isnull(duration)", [6]],
    ["strcat() concatenates", "t | where strcat(service, '-', status) == 'web-404'", [2]],
    ["tolower()", "t | where tolower(service) == 'api-gw'", [4]],
    ["strlen()", "t | where strlen(msg) == 12", [6]],
    ["iff()", "t | where iff(status == 200, id, 0) == 5", [5]],
    ["comments and newlines are whitespace", "t // all\n| where id == 1 // one", [1]],
  ])("%s: %s", async (_rule, apl, expected) => {
    expect(await ids(apl)).toEqual(expected);
  });
});

describe("APL tabular operators", () => {
  it.each([
    ["no sort: _time descending", "t", [6, 5, 4, 3, 2, 1]],
    ["sort by _time without a direction is descending", "t | sort by _time", [6, 5, 4, 3, 2, 1]],
    ["sort by _time asc", "t | sort by _time asc", [1, 2, 3, 4, 5, 6]],
    [
      "sort by a field without a direction is descending",
      "t | where id < 5 | sort by duration",
      [4, 3, 1, 2],
    ],
    ["sort by a field asc", "t | where id < 5 | sort by duration asc", [2, 1, 3, 4]],
    ["order by is an alias of sort by", "t | where id < 5 | order by duration asc", [2, 1, 3, 4]],
    ["sort by two keys", "t | where id <= 5 | sort by service asc, id desc", [4, 3, 1, 5, 2]],
    ["sort puts nulls last when descending", "t | sort by duration desc | limit 6", [4, 3, 5, 1, 2, 6]],
    ["limit N keeps the first N", "t | limit 2", [6, 5]],
    ["take N is limit", "t | sort by _time asc | take 3", [1, 2, 3]],
    ["limit 0 returns nothing", "t | limit 0", []],
    ["where after limit filters the page", "t | limit 3 | where id > 4", [6, 5]],
  ])("%s: %s", async (_rule, apl, expected) => {
    expect(await ids(apl)).toEqual(expected);
  });

  it("project keeps only the named fields, renamed when asked", async () => {
    const body = await query("t | where id == 3 | project id, p = req.path, svc = toupper(service)");
    expect(body.matches).toHaveLength(1);
    expect(body.matches[0].data).toEqual({ id: 3, p: "/orders", svc: "API" });
  });

  it("extend adds computed fields and keeps the others", async () => {
    const body = await query(
      "t | where id == 2 | extend ms = duration * 1000, label = strcat(service, ':', status)",
    );
    expect(body.matches[0].data).toMatchObject({ id: 2, service: "web", ms: 250, label: "web:404" });
  });

  it("extend can compute with _time", async () => {
    const body = await query(
      "t | where id == 2 | extend age = _time - datetime(2024-01-01), t2 = _time + 1h",
      "tabular",
    );
    const table = body.tables[0];
    const col = (n: string) => table.columns[table.fields.findIndex((f: { name: string }) => f.name === n)];
    expect(col("age")).toEqual([60_000_000_000]);
    expect(col("t2")).toEqual(["2024-01-01T01:01:00Z"]);
    expect(table.fields).toEqual(
      expect.arrayContaining([
        { name: "t2", type: "datetime" },
        { name: "age", type: "timespan" },
      ]),
    );
  });

  it.each([
    [
      "summarize count()",
      "t | summarize count()",
      [{ group: {}, aggregations: [{ op: "count_", value: 6 }] }],
    ],
    [
      "summarize count() by field",
      "t | summarize count() by service",
      [
        { group: { service: "API-gw" }, aggregations: [{ op: "count_", value: 1 }] },
        { group: { service: "api" }, aggregations: [{ op: "count_", value: 3 }] },
        { group: { service: "web" }, aggregations: [{ op: "count_", value: 2 }] },
      ],
    ],
    [
      "summarize named aggregations by two fields",
      "t | where id <= 3 | summarize n = count(), total = sum(duration) by service, status",
      [
        {
          group: { service: "api", status: 200 },
          aggregations: [
            { op: "n", value: 1 },
            { op: "total", value: 1.5 },
          ],
        },
        {
          group: { service: "api", status: 500 },
          aggregations: [
            { op: "n", value: 1 },
            { op: "total", value: 12 },
          ],
        },
        {
          group: { service: "web", status: 404 },
          aggregations: [
            { op: "n", value: 1 },
            { op: "total", value: 0.25 },
          ],
        },
      ],
    ],
    [
      "summarize min/max/avg/dcount",
      "t | summarize min(duration), max(duration), avg(id), dcount(service)",
      [
        {
          group: {},
          aggregations: [
            { op: "min_duration", value: 0.25 },
            { op: "max_duration", value: 30.5 },
            { op: "avg_id", value: 3.5 },
            { op: "dcount_service", value: 3 },
          ],
        },
      ],
    ],
    [
      "summarize count() by bin(_time, 2m)",
      "t | summarize count() by bin(_time, 2m)",
      [
        { group: { _time: "2024-01-01T00:00:00Z" }, aggregations: [{ op: "count_", value: 2 }] },
        { group: { _time: "2024-01-01T00:02:00Z" }, aggregations: [{ op: "count_", value: 2 }] },
        { group: { _time: "2024-01-01T00:04:00Z" }, aggregations: [{ op: "count_", value: 2 }] },
      ],
    ],
    [
      "count operator",
      "t | where service == 'api' | count",
      [{ group: {}, aggregations: [{ op: "Count", value: 3 }] }],
    ],
  ])("%s: %s", async (_rule, apl, totals) => {
    const body = await query(apl);
    expect(body.matches).toEqual([]);
    // Each group's id is its place in the answer (see the legacy aggregations test of live-service.test.ts).
    expect(body.buckets.totals).toEqual(totals.map((t, id) => ({ id, ...t })));
  });

  it("summarize results are rows in the tabular format, and limit applies to them", async () => {
    const body = await query("t | summarize c = count() by service | sort by c desc | limit 2", "tabular");
    expect(body.tables[0].fields).toEqual([
      { name: "service", type: "string" },
      // An aggregation's column says which (axiomhq/axiom-go axiom/query/result.go Field.Aggregation, `agg`).
      { name: "c", type: "integer", agg: { name: "count", fields: [], args: [] } },
    ]);
    expect(body.tables[0].columns).toEqual([
      ["api", "web"],
      [3, 2],
    ]);
    expect(body.tables[0].groups).toEqual([{ name: "service" }]);
    expect(body.status.rowsMatched).toBe(6);
  });

  it.each([
    ["['dataset']", "['t'] | count"],
    ['["dataset"]', '["t"] | count'],
    ["bare name", "t | count"],
  ])("source as %s", async (_form, apl) => {
    expect((await query(apl)).buckets.totals[0].aggregations[0].value).toBe(6);
  });

  it.each([
    ["my-logs.v2", "my-logs.v2 | limit 1"],
    ["logs_2024-01", "logs_2024-01 | limit 1"],
  ])("bare dataset names may contain - . _ (%s)", (name, apl) => {
    expect(parseApl(apl).dataset).toBe(name);
  });
});

describe("APL errors point at the offending token", () => {
  it.each([
    ["unterminated string", 't | where a == "abc', 1, 16],
    ["unknown operator", "t | foo", 1, 5],
    ["operator missing after a pipe", "t | ", 1, 5],
    ["missing by after sort", "t | sort status", 1, 10],
    ["missing by after order", "t | order  asc", 1, 12],
    ["limit without a number", "t | limit abc", 1, 11],
    ["negative limit", "t | limit -1", 1, 11],
    ["fractional take", "t | take 1.5", 1, 10],
    ["trailing garbage", "t | where a == 1 b", 1, 18],
    ["garbage after the source", "t where", 1, 3],
    ["unclosed parenthesis", "t | where (a == 1", 1, 18],
    ["extra closing parenthesis", "t | where a == 1)", 1, 17],
    ["unknown function", "t | where foo(a)", 1, 11],
    ["aggregation outside summarize", "t | where count() > 1", 1, 11],
    ["wrong argument count", "t | where isnull()", 1, 17],
    ["unknown aggregation", "t | summarize median(x)", 1, 15],
    ["garbage after summarize", "t | summarize count() service", 1, 23],
    ["unexpected character", "t | where a # 1", 1, 13],
    ["bad escape", "t | where a == 'x\\q'", 1, 18],
    ["unknown timespan unit", "t | where a > 5parsecs", 1, 16],
    ["bad datetime", "t | where _time > datetime(yesterday)", 1, 28],
    ["missing expression", "t | where", 1, 10],
    ["missing dataset", "| where a", 1, 1],
    ["empty bracket dataset", "[''] | limit 1", 1, 2],
    ["sort by nothing", "t | sort by", 1, 12],
    ["project with a dangling comma", "t | project a,", 1, 15],
    ["! without an operator", "t | where a ! b", 1, 13],
    ["error on a later line", "t\n| where a ==\n  | limit 1", 3, 3],
    ["unknown operator on a later line", "t\n| where a == 1\n| frobnicate", 3, 3],
    ["an unknown hyphenated operator", "t | project-frobnicate a", 1, 5],
  ])("%s: %j", async (_rule, apl, line, column) => {
    let err: unknown;
    try {
      parseApl(apl);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AplError);
    expect(err).toMatchObject({ line, column });
    const res = await runAplQuery(store(), { apl }, undefined, NOW);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 400,
      detail: { line, column, message: (err as AplError).message },
    });
  });

  it.each([["project-frobnicate"], ["mv-apply"], ["make-graph"]])(
    "the unknown hyphenated operator %s is named whole",
    (name) => {
      expect(() => parseApl(`t | ${name} a`)).toThrow(`unknown or unsupported operator '${name}'`);
    },
  );

  it("errors carry an errorType", async () => {
    expect((await runAplQuery(store(), { apl: "t | foo" }, undefined, NOW)).body).toMatchObject({
      detail: { errorType: "semantic" },
    });
    expect((await runAplQuery(store(), { apl: "t | where (" }, undefined, NOW)).body).toMatchObject({
      detail: { errorType: "syntax" },
    });
  });

  it("deep nesting is a 400, not a stack overflow", async () => {
    const apl = `t | where ${"(".repeat(5000)}1${")".repeat(5000)}`;
    expect((await runAplQuery(store(), { apl }, undefined, NOW)).status).toBe(400);
    expect(
      (await runAplQuery(store(), { apl: `t | where ${"-".repeat(5000)}1 == 1` }, undefined, NOW)).status,
    ).toBe(400);
  });
});

describe("APL robustness (property)", () => {
  const WORDS = [
    "t",
    "['t']",
    "|",
    "where",
    "sort",
    "by",
    "asc",
    "desc",
    "limit",
    "take",
    "project",
    "extend",
    "summarize",
    "count()",
    "count",
    "and",
    "or",
    "not(",
    "contains",
    "startswith",
    "in",
    "!in",
    "(",
    ")",
    ",",
    "=",
    "==",
    "!=",
    "<",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "1",
    "2.5",
    "1h",
    "'s'",
    '"x"',
    "status",
    "a.b",
    "['f']",
    "_time",
    "isnull(",
    "bin(",
    "datetime(2024-01-01)",
    "true",
    "null",
    "!",
    "[",
    "]",
    ".",
    "\n",
  ];

  it("random text only ever parses or throws AplError", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        try {
          parseApl(text);
        } catch (e) {
          if (!(e instanceof AplError)) throw e;
          expect(e.line).toBeGreaterThanOrEqual(1);
          expect(e.column).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("token soups through the endpoint only ever give 200, 400 (APL error), 404 or 422 (empty apl field)", async () => {
    const s = store();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...WORDS), { maxLength: 25 }), async (words) => {
        const apl = words.join(" ");
        const res = await runAplQuery(s, { apl }, undefined, NOW);
        expect([200, 400, 404, 422]).toContain(res.status);
        if (res.status === 422) expect(apl.trim()).toBe("");
        if (res.status >= 400)
          expect(res.body).toMatchObject({ code: res.status, message: expect.any(String) });
      }),
      { numRuns: 3000 },
    );
  });

  it("valid pipelines built from parts always succeed", async () => {
    const s = store();
    const op = fc.constantFrom(
      "where status >= 300",
      "where service contains 'a'",
      "sort by _time asc",
      "sort by duration",
      "limit 3",
      "take 10",
      "project id, status",
      "extend x = id * 2",
      "where isnotnull(msg)",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 6 }),
        fc.constantFrom("legacy", "tabular"),
        async (ops, fmt) => {
          const res = await runAplQuery(s, { apl: ["t", ...ops].join(" | ") }, fmt, NOW);
          expect(res.status).toBe(200);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("the lexer reports positions inside the source", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        try {
          for (const t of tokenize(text)) {
            expect(t.start).toBeGreaterThanOrEqual(0);
            expect(t.end).toBeLessThanOrEqual(text.length);
          }
        } catch (e) {
          if (!(e instanceof AplError)) throw e;
        }
      }),
    );
  });
});
