/**
 * String, conditional, type and conversion functions (emulator/apl/functions), called as the compiler calls them:
 * SCALAR_FUNCTIONS.get(name)!.call(evaluatedArgs, ctx). Rows named "<page>: <call>" come from that page of the
 * APL reference (axiomhq/docs at fbd6133, content/docs/(query-reference)/apl/scalar-functions/...); the other
 * rows pin behaviour the pages state in words (null handling, defaults, limits).
 */
import { SCALAR_FUNCTIONS } from "../../emulator/apl/functions";
import { DateTime, Timespan } from "../../emulator/apl/values";

const ctx = { now: 1_736_935_200_000_000_000n };

/** Calls a registered function with already-evaluated arguments. */
function call(name: string, ...args: unknown[]): unknown {
  const f = SCALAR_FUNCTIONS.get(name);
  if (f === undefined) throw new Error(`${name} is not registered`);
  expect(args.length).toBeGreaterThanOrEqual(f.minArgs);
  expect(args.length).toBeLessThanOrEqual(f.maxArgs);
  return f.call(args, ctx);
}

const dt = (iso: string) => new DateTime(BigInt(Date.parse(iso)) * 1_000_000n);
const ms = (n: number) => new Timespan(BigInt(n) * 1_000_000n);

type Row = [label: string, name: string, args: unknown[], expected: unknown];

describe("string functions, the pages' examples", () => {
  it.each<Row>([
    [
      "string-functions/extract: extract('/users/([0-9]+)', 1, uri)",
      "extract",
      ["/users/([0-9]+)", 1, "/api/users/123"],
      "123",
    ],
    [
      "string-functions/extract: version from a name",
      "extract",
      ["v([0-9]+[.][0-9]+)", 1, "checkout-v1.2"],
      "1.2",
    ],
    [
      "string-functions/extract-all: ['123', '456']",
      "extract_all",
      ["([0-9]+)", [1], "/api/users/123/posts/456"],
      ["123", "456"],
    ],
    ["string-functions/countof: countof('/', uri)", "countof", ["/", "/api/v1/users"], 3],
    [
      "string-functions/countof-regex: countof_regex('[0-9]+', uri)",
      "countof_regex",
      ["[0-9]+", "/a/12/b/345"],
      2,
    ],
    [
      "string-functions/indexof-regex: /api/user-12345/settings → 5",
      "indexof_regex",
      ["/api/user-12345/settings", "user-[0-9]+"],
      5,
    ],
    [
      "string-functions/indexof-regex: /v2/user-6789/dashboard → 4",
      "indexof_regex",
      ["/v2/user-6789/dashboard", "user-[0-9]+"],
      4,
    ],
    [
      "string-functions/indexof: 'select' in a decoded URI",
      "indexof",
      ["/api?id=1 union select", "select"],
      16,
    ],
    ["string-functions/trim: trim('/', '/api/login/')", "trim", ["/", "/api/login/"], "api/login"],
    [
      "string-functions/trim-regex: trim_regex('[/]+', uri)",
      "trim_regex",
      ["[/]+", "//api/users/"],
      "api/users",
    ],
    [
      "string-functions/trim-regex: environment prefix and version suffix",
      "trim_regex",
      ["(^(dev|prod|staging)-)|(-v[0-9.]+$)", "prod-frontend-v1.2"],
      "frontend",
    ],
    [
      "string-functions/translate: masking ids",
      "translate",
      ["0123456789abcdefghijklmnopqrstuvwxyz", "##########*", "bd6d8f17-2b8d-4b71-af20-f23dc8d20202"],
      "**#*#*##-#*#*-#*##-**##-*##**#*#####",
    ],
    [
      "string-functions/translate: an empty replacement deletes",
      "translate",
      ["aeiou", "", "frontend"],
      "frntnd",
    ],
    ["string-functions/totitle: totitle(tolower('GET'))", "totitle", ["get"], "Get"],
    ["string-functions/totitle: a service name", "totitle", ["frontend"], "Frontend"],
    [
      "string-functions/strcat-delim: a CSV record",
      "strcat_delim",
      [",", "GET", "200", "/api/users", 145, "United States"],
      "GET,200,/api/users,145,United States",
    ],
    ["string-functions/format-bytes: 8765432, 2 → 8.36 MB", "format_bytes", [8765432, 2], "8.36 MB"],
    ["string-functions/format-bytes: 456789, 2 → 446.08 KB", "format_bytes", [456789, 2], "446.08 KB"],
    ["string-functions/format-bytes: 1234567, 2 → 1.18 MB", "format_bytes", [1234567, 2], "1.18 MB"],
    ["string-functions/parse-bytes: parse_bytes('512 KB')", "parse_bytes", ["512 KB"], 524288],
    ["string-functions/parse-bytes: parse_bytes('256 KB', 2)", "parse_bytes", ["256 KB", 2], 262144],
    [
      "string-functions/parse-csv: parse_csv('200,201,204,304')",
      "parse_csv",
      ["200,201,204,304"],
      ["200", "201", "204", "304"],
    ],
    [
      "string-functions/parse-csv: parse_csv('frontend,checkout,cart')",
      "parse_csv",
      ["frontend,checkout,cart"],
      ["frontend", "checkout", "cart"],
    ],
    ["string-functions/quote: quote('/api/login')", "quote", ["/api/login"], '"/api/login"'],
    [
      "string-functions/url-decode: hello%20world",
      "url_decode",
      ["/search?q=hello%20world"],
      "/search?q=hello world",
    ],
    [
      "string-functions/url-encode: the page's search term",
      "url_encode",
      ["hello world & special chars"],
      "hello%20world%20%26%20special%20chars",
    ],
    [
      "string-functions/base64-decode-toarray: 'aGVsbG8gd29ybGQ='",
      "base64_decode_toarray",
      ["aGVsbG8gd29ybGQ="],
      [104, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100],
    ],
    [
      "string-functions/base64-decode-toarray: 'dHJhY2UtaWQtZGVtbw=='",
      "base64_decode_toarray",
      ["dHJhY2UtaWQtZGVtbw=="],
      [116, 114, 97, 99, 101, 45, 105, 100, 45, 100, 101, 109, 111],
    ],
    [
      "string-functions/base64-decode-tostring: a test message",
      "base64_decode_tostring",
      ["VGhpcyBpcyBhIHRlc3QgbWVzc2FnZQ=="],
      "This is a test message",
    ],
    [
      "string-functions/base64-decode-tostring: 'Y2hlY2tvdXQ='",
      "base64_decode_tostring",
      ["Y2hlY2tvdXQ="],
      "checkout",
    ],
    [
      "string-functions/unicode-codepoints-to-string: [72, 84, 84, 80]",
      "unicode_codepoints_to_string",
      [[72, 84, 84, 80]],
      "HTTP",
    ],
    [
      "string-functions/unicode-codepoints-to-string: [67, 72, 69, 67, 75]",
      "unicode_codepoints_to_string",
      [[67, 72, 69, 67, 75]],
      "CHECK",
    ],
    [
      "string-functions/unicode-codepoints-from-string: 'abc'",
      "unicode_codepoints_from_string",
      ["abc"],
      [97, 98, 99],
    ],
    [
      "string-functions/replace-regex: SUCCESS-$1",
      "replace_regex",
      ["^(2[0-9]{2})$", "SUCCESS-$1", "200"],
      "SUCCESS-200",
    ],
    [
      "string-functions/replace-regex: $1 milliseconds",
      "replace_regex",
      ["([0-9]+)ms", "$1 milliseconds", "12ms"],
      "12 milliseconds",
    ],
    [
      "string-functions/replace: an alias of replace_regex",
      "replace",
      ["([0-9]+)ms", "$1 ms", "12ms"],
      "12 ms",
    ],
    [
      "string-functions/regex-quote: '/api/v1/users[1]'",
      "regex_quote",
      ["/api/v1/users[1]"],
      "/api/v1/users\\[1\\]",
    ],
    [
      "string-functions/split: split('GET,POST,PUT', ',')",
      "split",
      ["GET,POST,PUT", ","],
      ["GET", "POST", "PUT"],
    ],
    ["string-functions/strrep: strrep('text', 3)", "strrep", ["text", 3], "texttexttext"],
    ["string-functions/strrep: strrep('=', 50)", "strrep", ["=", 50], "=".repeat(50)],
    ["string-functions/reverse: a trace id", "reverse", ["abc123"], "321cba"],
    ["string-functions/gettype: status is a string", "gettype", ["200"], "string"],
    ["string-functions/gettype: req_duration_ms is a long", "gettype", [145], "long"],
    ["string-functions/gettype: _time is a datetime", "gettype", [dt("2024-11-06T10:00:00Z")], "datetime"],
    ["string-functions/gettype: duration is a timespan", "gettype", [ms(5)], "timespan"],
    [
      "string-functions/coalesce: the city, else the country",
      "coalesce",
      [null, "United States", "Unknown"],
      "United States",
    ],
    ["string-functions/coalesce: an empty string is skipped", "coalesce", ["", "Unknown"], "Unknown"],
    ["string-functions/isempty: a missing city", "isempty", [undefined], true],
    ["string-functions/isnotnull: an empty string is not null", "isnotnull", [""], true],
    ["string-functions/isnull: an empty string is not null", "isnull", [""], false],
    [
      "string-functions/base64-decode-tostring: 'YWRtaW46cGFzc3dvcmQ='",
      "base64_decode_tostring",
      ["YWRtaW46cGFzc3dvcmQ="],
      "admin:password",
    ],
    [
      "string-functions/parse-csv: three addresses",
      "parse_csv",
      ["192.168.1.100,10.0.0.25,172.16.0.50"],
      ["192.168.1.100", "10.0.0.25", "172.16.0.50"],
    ],
    [
      "string-functions/split: split('apple,banana,cherry', ',')",
      "split",
      ["apple,banana,cherry", ","],
      ["apple", "banana", "cherry"],
    ],
    [
      "string-functions/unicode-codepoints-to-string: Hello",
      "unicode_codepoints_to_string",
      [[72, 101, 108, 108, 111]],
      "Hello",
    ],
    ["conversion-functions/tostring: tostring('hello.*world')", "tostring", ["hello.*world"], "hello.*world"],
  ])("%s", (_label, name, args, expected) => {
    expect(call(name, ...args)).toEqual(expected);
  });
});

describe("string functions, stated behaviour", () => {
  it("substring: zero-based start, optional length, empty beyond the end (the substring page)", () => {
    expect(call("substring", "axiomdata", 2, 3)).toBe("iom");
    expect(call("substring", "axiomdata", 5)).toBe("data");
    expect(call("substring", "axiomdata", 20, 2)).toBe("");
    expect(call("substring", "axiomdata", -2, 4)).toBe("ax");
    expect(call("substring", null, 1, 2)).toBeNull();
  });

  it("counts characters, not UTF-16 units or bytes", () => {
    expect(call("strlen", "héllo😀")).toBe(6);
    expect(call("string_size", "héllo😀")).toBe(10);
    expect(call("substring", "a😀b", 1, 1)).toBe("😀");
    expect(call("reverse", "a😀b")).toBe("b😀a");
    expect(call("len", "a😀b")).toBe(3);
  });

  it("strcat and strcat_delim treat null as empty; strcat converts other types as tostring does", () => {
    expect(call("strcat", "a", null, 1, true)).toBe("a1true");
    // The replace-regex page's example: strcat(tostring(duration), ...) and strcat_delim's trace summary show
    // a duration as "125ms".
    expect(call("strcat", ms(125), "|", dt("2024-11-06T10:00:00Z"), "|", { a: [1] })).toBe(
      '125ms|2024-11-06T10:00:00Z|{"a":[1]}',
    );
    expect(call("strlen", ms(80_000))).toBe(5);
    expect(call("strcat_delim", "-", "a", undefined, "b")).toBe("a--b");
  });

  it("strrep caps the count at 1024 and takes a delimiter", () => {
    expect(call("strrep", "ab", 3, ",")).toBe("ab,ab,ab");
    expect((call("strrep", "x", 5000) as string).length).toBe(1024);
    // The emulator's own bound on the result's size (16 Mi units), so one long field cannot exhaust memory.
    expect(call("strrep", "y".repeat(20_000), 1000)).toBeNull();
  });

  it("extract: null without a match or for a group that does not exist; group 0 is the whole match", () => {
    expect(call("extract", "x(\\d)", 1, "abc")).toBeNull();
    expect(call("extract", "x(\\d)", 0, "ax5")).toBe("x5");
    expect(call("extract", "x(\\d)", 2, "ax5")).toBeNull();
    expect(call("extract", "From: (.*?) To: (.*)", 1, "From: ann To: bob")).toBe("ann");
  });

  it("extract_all: two groups give pairs; without the group list every group; no match is null", () => {
    expect(call("extract_all", "(\\w)=(\\d)", [1, 2], "a=1 b=2")).toEqual([
      ["a", "1"],
      ["b", "2"],
    ]);
    expect(call("extract_all", "(\\d)", "1 2 3")).toEqual(["1", "2", "3"]);
    expect(call("extract_all", "(\\d)", [1], "none")).toBeNull();
  });

  it("a bad regex is an error that names it, not a silent null", () => {
    expect(() => call("extract", "(a", 1, "a")).toThrow(/invalid regex "\(a": missing closing \)/);
    expect(() => call("replace_regex", "(a)\\1", "", "aa")).toThrow(/backreferences/);
  });

  it("countof: the plain kind counts non-overlapping occurrences; kind='regex' counts matches", () => {
    expect(call("countof", "aa", "aaaa")).toBe(2);
    expect(call("countof", "a.", "a.ab", "regex")).toBe(2);
    expect(call("countof", "", "abc")).toBe(0);
  });

  it("indexof: start, length and occurrence (the indexof page's parameters)", () => {
    expect(call("indexof", "abcabc", "c")).toBe(2);
    expect(call("indexof", "abcabc", "c", 3)).toBe(5);
    expect(call("indexof", "abcabc", "c", 0, 2)).toBe(-1);
    expect(call("indexof", "abcabc", "c", 0, -1, 2)).toBe(5);
    expect(call("indexof", "abcabc", "z")).toBe(-1);
    expect(call("indexof", "abc", "c", 0, -1, 0)).toBeNull();
  });

  it("indexof_regex: null for a negative start, an occurrence below 1, a length below -1 (its page)", () => {
    expect(call("indexof_regex", "abc", "c", -1)).toBeNull();
    expect(call("indexof_regex", "abc", "c", 0, 0)).toBeNull();
    expect(call("indexof_regex", "abc", "c", 0, 1, -2)).toBeNull();
    expect(call("indexof_regex", "a1b2c3", "[0-9]", 0, 2)).toBe(3);
    expect(call("indexof_regex", "a1b2c3", "[0-9]", 2)).toBe(3);
    // The match's own position, not the first place its text occurs.
    expect(call("indexof_regex", "concat cat", "\\bcat")).toBe(7);
    expect(call("indexof_regex", "x😀ab", "ab")).toBe(2);
  });

  it("trim family: a cutset of characters at either end; the regex forms remove repeated matches", () => {
    expect(call("trim_start", "-_", "_-x-_")).toBe("x-_");
    expect(call("trim_end", "-_", "_-x-_")).toBe("_-x");
    expect(call("trim_space", "  a b \n")).toBe("a b");
    expect(call("trim_start_regex", "\\d", "123abc4")).toBe("abc4");
    expect(call("trim_end_regex", "\\d", "123abc45")).toBe("123abc");
  });

  it("split: an index picks one part; an empty delimiter splits characters", () => {
    expect(call("split", "a/b/c", "/", 1)).toEqual(["b"]);
    expect(call("split", "a/b/c", "/", 7)).toEqual([]);
    expect(call("split", "abc", "")).toEqual(["a", "b", "c"]);
  });

  it("strcmp orders strings", () => {
    expect(call("strcmp", "a", "b")).toBe(-1);
    expect(call("strcmp", "GET", "GET")).toBe(0);
    expect(call("strcmp", "b", "a")).toBe(1);
    // By code point (UTF-8 byte order, as the Go service compares), not by UTF-16 unit: U+FFFD < U+1F600.
    expect(call("strcmp", "\uFFFD", "😀")).toBe(-1);
    expect(call("strcmp", "a😀", "a😀b")).toBe(-1);
  });

  it("parse_csv: quoted fields and doubled quotes", () => {
    expect(call("parse_csv", 'a,"b,c","say ""hi"""')).toEqual(["a", "b,c", 'say "hi"']);
    expect(call("parse_csv", "")).toEqual([""]);
  });

  it("format_bytes and parse_bytes: units, bases and what they refuse", () => {
    expect(call("format_bytes", 564)).toBe("564 Bytes");
    expect(call("format_bytes", 10332, 1)).toBe("10.1 KB");
    expect(call("format_bytes", 20000000, 0, "MB", 10)).toBe("20 MB");
    expect(call("format_bytes", 1500, 1, "", 10)).toBe("1.5 kB");
    expect(call("format_bytes", "x")).toBeNull();
    expect(call("parse_bytes", "1 KiB", 10)).toBe(1024);
    expect(call("parse_bytes", "1 KB", 10)).toBe(1000);
    expect(call("parse_bytes", "lots")).toBe(0);
  });

  it("strip_ansi_escapes removes colour and cursor sequences", () => {
    expect(call("strip_ansi_escapes", "\u001b[31mred\u001b[0m \u001b[2Kdone")).toBe("red done");
  });

  it("base64 round trips, and bad input as the pages say", () => {
    expect(call("base64_encode_tostring", "axiom")).toBe("YXhpb20=");
    expect(call("base64_encode_fromarray", [104, 105])).toBe("aGk=");
    expect(call("base64_encode_fromarray", [300])).toBe("");
    expect(call("base64_decode_toarray", "***")).toEqual([]);
    expect(call("base64_decode_tostring", "***")).toBeNull();
    // Bytes that are not UTF-8 (0xff) make no string; an encoded U+FFFD is a character like any other.
    expect(call("base64_decode_tostring", "/w==")).toBeNull();
    expect(call("base64_decode_tostring", call("base64_encode_tostring", "\uFFFD"))).toBe("\uFFFD");
  });

  it("url_encode encodes a lone surrogate as U+FFFD rather than failing", () => {
    expect(call("url_encode", "a\uD800b")).toBe("a%EF%BF%BDb");
  });

  it("null in, null out for the one-string functions", () => {
    for (const name of ["strlen", "tolower", "toupper", "reverse", "trim_space", "url_encode", "parse_csv"]) {
      expect(call(name, null)).toBeNull();
    }
  });
});

describe("conditionals", () => {
  it("iff and its alias iif: a null predicate is not true (conditional-function/iff)", () => {
    expect(call("iff", true, "a", "b")).toBe("a");
    expect(call("iff", false, "a", "b")).toBe("b");
    expect(call("iff", null, "a", "b")).toBe("b");
    expect(call("iif", true, 1, 2)).toBe(1);
  });

  it("case: the first true condition's result, else the last argument (conditional-function/case)", () => {
    const severity = (status: string) =>
      call(
        "case",
        status === "200",
        "success",
        status === "404",
        "not found",
        status === "500",
        "server error",
        "other",
      );
    expect(severity("200")).toBe("success");
    expect(severity("404")).toBe("not found");
    expect(severity("500")).toBe("server error");
    expect(severity("302")).toBe("other");
  });

  it("coalesce: null when every value is null", () => {
    expect(call("coalesce", null, undefined)).toBeNull();
    expect(call("coalesce", null, 0)).toBe(0);
  });
});

describe("type functions", () => {
  it.each<Row>([
    ["type-functions/iscc: iscc('4111111111111111')", "iscc", ["4111111111111111"], true],
    ["type-functions/isimei: isimei('356938035643809')", "isimei", ["356938035643809"], true],
    ["type-functions/ismap: ismap(dynamic({'a':1, 'b':2}))", "ismap", [{ a: 1, b: 2 }], true],
    ["type-functions/isreal: isreal(123.11)", "isreal", [123.11], true],
    ["type-functions/isstring: isstring(status)", "isstring", ["404"], true],
    ["mathematical-functions/isint: isint(42)", "isint", [42], true],
    ["mathematical-functions/isint: isint(4.2)", "isint", [4.2], false],
    ["array-functions/isarray: an array", "isarray", [[1]], true],
    ["conversion-functions/isbool: a boolean", "isbool", [false], true],
  ])("%s", (_label, name, args, expected) => {
    expect(call(name, ...args)).toEqual(expected);
  });

  it("the checks say false for near misses", () => {
    expect(call("iscc", "4111111111111112")).toBe(false);
    expect(call("isimei", "35693803564380")).toBe(false);
    expect(call("ismap", [1])).toBe(false);
    expect(call("isreal", "1.5")).toBe(false);
    expect(call("isstring", 1)).toBe(false);
    expect(call("isascii", "héllo")).toBe(false);
    expect(call("isascii", "hello")).toBe(true);
    expect(call("isutf8", "ok")).toBe(true);
    expect(call("isutf8", "bad \uFFFD")).toBe(false);
    expect(call("isutf8", "lone \uD800")).toBe(false);
  });
});

describe("conversions (conversion-functions pages' 'Conversion behavior')", () => {
  it.each<Row>([
    ["conversion-functions/toint: toint('456')", "toint", ["456"], 456],
    ["conversion-functions/toint: floats truncate", "toint", [2.9], 2],
    ["conversion-functions/toint: booleans", "toint", [true], 1],
    ["conversion-functions/toint: strict strings only", "toint", ["1.5"], null],
    ["conversion-functions/toint: hex is not supported", "toint", ["0x10"], null],
    ["conversion-functions/toint: a timespan as nanoseconds", "toint", [ms(2)], 2_000_000],
    ["conversion-functions/todouble: todouble('1567.89')", "todouble", ["1567.89"], 1567.89],
    ["conversion-functions/todouble: '1e3' becomes 1000", "todouble", ["1e3"], 1000],
    ["conversion-functions/todouble: toreal(1s) in nanoseconds", "toreal", [ms(1000)], 1e9],
    ["conversion-functions/todouble: not a number", "todouble", ["abc"], null],
    ["conversion-functions/tobool: 'true'", "tobool", ["true"], true],
    ["conversion-functions/tobool: '1'", "tobool", ["1"], true],
    ["conversion-functions/tobool: 'F'", "tobool", ["F"], false],
    ["conversion-functions/tobool: other strings are null", "tobool", ["yes"], null],
    ["conversion-functions/tobool: numbers are true unless 0", "tobool", [0], false],
    ["conversion-functions/tostring: tostring(123)", "tostring", [123], "123"],
    ["conversion-functions/tostring: null is the empty string", "tostring", [null], ""],
    ["conversion-functions/tostring: a duration as Go writes it, 1m20s", "tostring", [ms(80_000)], "1m20s"],
    [
      "conversion-functions/tostring: a datetime as RFC3339Nano",
      "tostring",
      [dt("2024-06-24T09:28:10.5Z")],
      "2024-06-24T09:28:10.5Z",
    ],
    ["conversion-functions/tohex: tohex(546)", "tohex", [546], "222"],
    ["conversion-functions/tohex: tohex(12345, 8)", "tohex", [12345, 8], "00003039"],
    ["conversion-functions/tohex: negative numbers in two's complement", "tohex", [-546], "fffffffffffffdde"],
    ["conversion-functions/toarray: toarray('123')", "toarray", ["123"], ["123"]],
    ["conversion-functions/toarray: a bag's values", "toarray", [{ a: 1, b: 2 }], [1, 2]],
    [
      "conversion-functions/dynamic-to-json: keys sorted",
      "dynamic_to_json",
      [{ method: "GET", status: "200", duration: 150 }],
      '{"duration":150,"method":"GET","status":"200"}',
    ],
    ["conversion-functions/todynamic: invalid JSON is null", "todynamic", ["{nope"], null],
    ["string-functions/parse-json: invalid JSON is the original string", "parse_json", ["{nope"], "{nope"],
    [
      "string-functions/parse-json: an array",
      "parse_json",
      ['["frontend", "cartservice", "checkoutservice"]'],
      ["frontend", "cartservice", "checkoutservice"],
    ],
    [
      "string-functions/parse-json: an object",
      "parse_json",
      ['{"http.method": "GET", "http.status_code": 200, "user.id": "12345"}'],
      { "http.method": "GET", "http.status_code": 200, "user.id": "12345" },
    ],
  ])("%s", (_label, name, args, expected) => {
    expect(call(name, ...args)).toEqual(expected);
  });

  it("parse_json and todynamic refuse nesting deeper than an ingested event may have (100 levels)", () => {
    const deep = "[".repeat(200_000) + "]".repeat(200_000);
    expect(call("parse_json", deep)).toBe(deep);
    expect(call("todynamic", deep)).toBeNull();
    const ok = "[".repeat(100) + "]".repeat(100);
    expect(call("tostring", call("parse_json", ok))).toBe(ok);
    expect(call("parse_json", '{"a":"[[[[[["}')).toEqual({ a: "[[[[[[" });
    expect(call("parse_json", '["\\"", [1]]')).toEqual(['"', [1]]);
  });

  it("todatetime: the page's dates, numbers as nanoseconds, common layouts, null for the rest", () => {
    expect(call("todatetime", "2024-06-24")).toEqual(dt("2024-06-24T00:00:00Z"));
    expect(call("todatetime", "2022-11-13")).toEqual(dt("2022-11-13T00:00:00Z"));
    expect(call("todatetime", "2024-06-24 09:28:10")).toEqual(dt("2024-06-24T09:28:10Z"));
    expect(call("todatetime", "2024-06-24T11:28:10+02:00")).toEqual(dt("2024-06-24T09:28:10Z"));
    expect(call("todatetime", "Mon, 24 Jun 2024 09:28:10 GMT")).toEqual(dt("2024-06-24T09:28:10Z"));
    expect(call("todatetime", "Jun 24, 2024")).toEqual(dt("2024-06-24T00:00:00Z"));
    expect(call("todatetime", "1719221290")).toEqual(dt("2024-06-24T09:28:10Z"));
    expect(call("todatetime", "2024-06-24 09:28:10.5 +0000 UTC")).toEqual(dt("2024-06-24T09:28:10.500Z"));
    expect(call("todatetime", "06/24/2024 09:28")).toEqual(dt("2024-06-24T09:28:00Z"));
    expect(call("todatetime", "13/24/2024")).toBeNull();
    expect(call("todatetime", 1_000_000_000)).toEqual(new DateTime(1_000_000_000n));
    expect(call("todatetime", "2024-02-30")).toBeNull();
    expect(call("todatetime", "soon")).toBeNull();
  });

  it("totimespan: Go durations and d.hh:mm:ss, numbers as nanoseconds (the totimespan page)", () => {
    expect(call("totimespan", "100ms")).toEqual(ms(100));
    expect(call("totimespan", "24h")).toEqual(ms(86_400_000));
    expect(call("totimespan", "-1.5h")).toEqual(ms(-5_400_000));
    expect(call("totimespan", "2h45m")).toEqual(ms(9_900_000));
    expect(call("totimespan", "1.02:03:04.5")).toEqual(ms(93_784_500));
    expect(call("totimespan", 150_000_000)).toEqual(ms(150));
    expect(call("totimespan", "fast")).toBeNull();
  });

  it("tostring of durations follows Go's Duration.String", () => {
    expect(call("tostring", ms(0))).toBe("0s");
    expect(call("tostring", ms(1500))).toBe("1.5s");
    expect(call("tostring", ms(3_600_000))).toBe("1h0m0s");
    expect(call("tostring", new Timespan(1500n))).toBe("1.5µs");
    expect(call("tostring", new Timespan(-2_000_000n))).toBe("-2ms");
    expect(call("tostring", { a: [1, dt("2024-01-01T00:00:00Z")] })).toBe('{"a":[1,"2024-01-01T00:00:00Z"]}');
  });
});

describe("text that would make a backtracking pattern stall answers at once", () => {
  // Each of these took seconds at 20,000 characters with the patterns the emulator first had (a digit run that
  // could be split between \d+ and \d*, a run of blanks between \s* and \s+): quadratic. At 200,000 they would
  // take minutes; linear patterns answer in milliseconds, well inside the test's timeout.
  const digits = "1".repeat(200_000) + "x";

  it.each<[string, unknown[], unknown]>([
    ["sqrt", [digits], null],
    ["todouble", [digits], null],
    ["toint", [digits], null],
    ["parse_bytes", [digits], 0],
    ["totimespan", [digits], null],
    ["totimespan", ["1".repeat(200_000) + "h1x"], null],
    ["todatetime", ["2024-01-01" + " ".repeat(200_000) + "x"], null],
    ["todatetime", ["02 Jan 2006" + " ".repeat(200_000) + "x"], null],
    ["array_extract", [[1], "$" + ".a".repeat(100_000)], []],
  ])("%s", (name, args, expected) => {
    expect(call(name, ...args)).toEqual(expected);
  });

  it("parse_url of a long run of colons", () => {
    const parsed = call("parse_url", "http://" + "a:".repeat(100_000) + "x") as { host: string };
    expect(parsed.host).toBe("a");
  });
});
