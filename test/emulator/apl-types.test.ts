/**
 * APL's data types and scalar operators as the reference documents them (axiomhq/docs, content/docs/
 * (query-reference)/apl/data-types/*.mdx and scalar-operators/*.mdx): literals of every type, datetime and
 * timespan arithmetic, null rules, dynamic access, and the string, in, between and regex operators. Each row is
 * evaluated with `print`, so the answer is the expression's value as the tabular format gives it.
 */
import { runAplQuery } from "../../emulator/query";
import { EventStore } from "../../emulator/store/events";

const T0 = 1_704_067_200_000_000_000n; // 2024-01-01T00:00:00Z
const NOW = T0 + 3_600_000_000_000n; // 2024-01-01T01:00:00Z

/** The value of `expr`, printed. */
async function value(expr: string): Promise<unknown> {
  const res = await runAplQuery(new EventStore(), { apl: `print v = ${expr}` }, "tabular", NOW);
  if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (res.body as any).tables[0].columns[0][0];
}

const SECOND = 1e9;

describe("literals (data-types/scalar-data-types.mdx, null-values.mdx)", () => {
  it.each([
    ["bool true", "true", true],
    ["bool(false)", "bool(false)", false],
    ["int", "42", 42],
    ["long(-7)", "long(-7)", -7],
    ["real", "2.5", 2.5],
    ["real with an exponent", "1e3", 1000],
    ["double(1.5)", "double(1.5)", 1.5],
    ["decimal(0.1)", "decimal(0.1)", 0.1],
    ["a single-quoted string", "'it''s'".replace("''", "\\'"), "it's"],
    ["a double-quoted string with escapes", '"a\\tb\\n"', "a\tb\n"],
    ["a verbatim string keeps backslashes", "@'C:\\temp'", "C:\\temp"],
    ["an obfuscated string is its value", "h'secret'", "secret"],
    ["a multi-line string", "```line1\nline2```", "line1\nline2"],
    ["datetime of a date", "datetime(2015-12-31)", "2015-12-31T00:00:00Z"],
    ["datetime with a space and a fraction", "datetime(2019-11-30 23:59:59.9)", "2019-11-30T23:59:59.9Z"],
    ["datetime RFC 3339", "datetime('2024-01-01T12:00:00Z')", "2024-01-01T12:00:00Z"],
    ["timespan 2d", "2d", 2 * 86_400 * SECOND],
    ["timespan 1.5h", "1.5h", 1.5 * 3600 * SECOND],
    ["timespan 30m", "30m", 1800 * SECOND],
    ["timespan 100ms", "100ms", 0.1 * SECOND],
    ["timespan 1microsecond", "1microsecond", 1000],
    ["timespan 1tick", "1tick", 100],
    ["timespan(15s)", "timespan(15s)", 15 * SECOND],
    ["timespan(1.02:03:04)", "timespan(1.02:03:04)", (86_400 + 2 * 3600 + 3 * 60 + 4) * SECOND],
    ["dynamic array", "dynamic([1, 'a', null])", [1, "a", null]],
    ["dynamic property bag", 'dynamic({"a": {"b": [1, 2]}})', { a: { b: [1, 2] } }],
    ["dynamic(null)", "dynamic(null)", null],
    ["int(null)", "int(null)", null],
    ["datetime(null)", "datetime(null)", null],
    ["time(null)", "time(null)", null],
    ["null", "null", null],
  ])("%s: %s", async (_rule, expr, want) => {
    expect(await value(expr)).toEqual(want);
  });
});

describe("datetime and timespan arithmetic (scalar-operators/numerical-operators.mdx)", () => {
  it.each([
    ["datetime - datetime is a timespan", "datetime(2024-01-02) - datetime(2024-01-01)", 86_400 * SECOND],
    ["datetime + timespan", "datetime(2024-01-01) + 1h", "2024-01-01T01:00:00Z"],
    ["timespan + datetime", "1d + datetime(2024-01-01)", "2024-01-02T00:00:00Z"],
    ["datetime - timespan", "datetime(2024-01-01) - 1d", "2023-12-31T00:00:00Z"],
    ["timespan / timespan is a real", "10m / 1s", 600],
    ["timespan * n", "1s * 5", 5 * SECOND],
    ["n * timespan", "5 * 1s", 5 * SECOND],
    ["timespan / n", "1h / 4", 900 * SECOND],
    ["ago(10m) + 10m is now()", "ago(10m) + 10m == now()", true],
    ["now(-1h) is ago(1h)", "now(-1h) == ago(1h)", true],
    ["timespans compare", "10m > 1s", true],
    ["datetimes compare", "now() > ago(1d)", true],
    ["int / int is an int", "7 / 2", 3],
    ["real / int is a real", "7.0 / 2", 3.5],
    ["modulo", "10 % 3", 1],
    ["integer division by zero is null", "1 / 0", null],
    ["a null operand makes null", "1 + int(null)", null],
    ["bin of a datetime", "bin(datetime(2024-01-01T00:07:30Z), 5m)", "2024-01-01T00:05:00Z"],
  ])("%s: %s", async (_rule, expr, want) => {
    expect(await value(expr)).toEqual(want);
  });
});

describe("comparison, logical and null rules (logical-operators.mdx, null-values.mdx)", () => {
  it.each([
    ["null == null is null", "int(null) == int(null)", null],
    ["null == value is false", "int(null) == 1", false],
    ["null != value is true", "int(null) != 1", true],
    ["null != null is null", "int(null) != int(null)", null],
    ["<> is inequality", "1 <> 2", true],
    ["and", "true and false", false],
    ["or", "false or true", true],
    ["not()", "not(true)", false],
    ["isnull of a missing value", "isnull(dynamic({}).a)", true],
    ["isempty of an empty string", "isempty('')", true],
  ])("%s: %s", async (_rule, expr, want) => {
    expect(await value(expr)).toEqual(want);
  });
});

describe("string operators (scalar-operators/string-operators.mdx, its table's examples)", () => {
  it.each([
    ['"aBc" == "aBc"', true],
    ['"abc" != "ABC"', true],
    ['"abc" =~ "ABC"', true],
    ['"aBc" !~ "xyz"', true],
    ['"parentSpanId" contains "Span"', true],
    ['"parentSpanId" !contains "abc"', true],
    ['"parentSpanId" contains_cs "Id"', true],
    ['"parentSpanId" contains_cs "id"', false],
    ['"parentSpanId" !contains_cs "Id"', false],
    ['"parentSpanId" startswith "parent"', true],
    ['"parentSpanId" !startswith "Id"', true],
    ['"parentSpanId" startswith_cs "parent"', true],
    ['"parentSpanId" !startswith_cs "parent"', false],
    ['"parentSpanId" endswith "Id"', true],
    ['"parentSpanId" !endswith "Span"', true],
    ['"parentSpanId" endswith_cs "Id"', true],
    ['"parentSpanId" !endswith_cs "Span"', true],
    ['"parentSpanId" matches regex "g.*r"', false],
    ['"parentSpanId" matches regex "p.*S"', true],
    ['"parentSpanId" !matches regex "g.*r"', true],
    ['"North America" has "america"', true],
    ['"North America" has "meric"', false],
    ['"North America" !has "america"', false],
    ['"North America" has_cs "America"', true],
    ['"North America" has_cs "america"', false],
    ['"North America" !has_cs "America"', false],
    ['"North America" has_any ("America", "Asia")', true],
    ['"North America" has_any_cs ("america", "Asia")', false],
    ['"North America" has_all ("north", "america")', true],
    ['"North America" has_all ("north", "asia")', false],
    ['"Admin_User" hasprefix "Admin"', true],
    ['"Admin_User" !hasprefix "Ad"', false],
    ['"DOCS_file" hasprefix_cs "DOCS"', true],
    ['"DOCS_file" !hasprefix_cs "docs"', true],
    ['"documentation.docx" hassuffix ".docx"', true],
    ['"documentation.docx" !hassuffix ".docx"', false],
    ['"Document.HTML" hassuffix_cs ".HTML"', true],
    ['"Document.HTML" !hassuffix_cs ".html"', true],
    // A timespan compares as tostring writes it (Go's duration text, tostring.mdx).
    ['90s == 90s and 90s contains "1m30s"', true],
    // A null left side: false for the positive form, true for the negated one.
    ["int(null) contains 'a'", false],
    ["int(null) !contains 'a'", true],
  ])("%s", async (expr, want) => {
    expect(await value(expr)).toBe(want);
  });

  it("matches regex runs on RE2: (a+)+$ over a long subject answers at once", async () => {
    const started = process.hrtime.bigint();
    expect(await value(`strcat(strrep('a', 5000), '!') matches regex '(a+)+$'`)).toBe(false);
    // Backtracking would take longer than the age of the universe; RE2 takes milliseconds.
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(10);
  });
});

describe("in, in~, !in, between (scalar-operators/in-operators/*.mdx)", () => {
  it.each([
    ["in a list", "'b' in ('a', 'b')", true],
    ["in is case-sensitive", "'B' in ('a', 'b')", false],
    ["in~ is not", "'B' in~ ('a', 'b')", true],
    ["!in", "'c' !in ('a', 'b')", true],
    ["!in~", "'B' !in~ ('a', 'b')", false],
    ["in a dynamic array", "2 in (dynamic([1, 2, 3]))", true],
    ["in of numbers", "3 in (1, 2)", false],
    ["between numbers, inclusive", "5 between (1 .. 5)", true],
    ["!between", "6 !between (1 .. 5)", true],
    [
      "between datetimes",
      "datetime(2024-01-01T12:00:00Z) between (datetime(2024-01-01) .. datetime(2024-01-02))",
      true,
    ],
    [
      "between a datetime and a timespan after it",
      "datetime(2024-01-01T12:00:00Z) between (datetime(2024-01-01) .. 1d)",
      true,
    ],
    ["a null is between nothing", "int(null) between (1 .. 5)", false],
  ])("%s: %s", async (_rule, expr, want) => {
    expect(await value(expr)).toBe(want);
  });
});

describe("dynamic access (data-types/scalar-data-types.mdx, 'The dynamic data type'; map-fields.mdx)", () => {
  it.each([
    ["dot access", 'dynamic({"a": {"b": 1}}).a.b', 1],
    ["bracket access", "dynamic({\"a b\": 2})['a b']", 2],
    ["array index", "dynamic([10, 20, 30])[1]", 20],
    ["negative index counts from the end", "dynamic([10, 20, 30])[-1]", 30],
    ["an index past the end is null", "dynamic([10])[5]", null],
    ["a missing key is null", 'dynamic({"a": 1}).b', null],
    ["access on a parsed value", "parse_json('{\"k\": [1, 2]}').k[0]", 1],
    ["a slice", "dynamic([1, 2, 3, 4])[1:3]", [2, 3]],
  ])("%s: %s", async (_rule, expr, want) => {
    expect(await value(expr)).toEqual(want);
  });

  it("fields with dots: a flat key first, then the nested path (map-fields.mdx)", async () => {
    const s = new EventStore();
    s.append(
      "t",
      [{ timeNs: T0, data: { "geo.city": "Berlin", req: { headers: { host: "x" } }, list: [{ k: 1 }] } }],
      T0,
    );
    const res = await runAplQuery(
      s,
      {
        apl: "t | project c = ['geo.city'], h = req.headers.host, h2 = req['headers']['host'], k = list[0].k",
      },
      "tabular",
      NOW,
    );
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect((res.body as any).tables[0].columns).toEqual([["Berlin"], ["x"], ["x"], [1]]);
  });
});
