/**
 * Array, bag, pair, hash, IP, URL, SQL, time-series and GenAI functions (emulator/apl/functions), and the
 * registry itself: every function page of the APL reference (axiomhq/docs at fbd6133, apl/scalar-functions/**)
 * is registered, refused with a reason, or left to the compiler by name. Rows named "<page>: <call>" come from
 * that page's examples.
 */
import { SCALAR_FUNCTIONS, UNSUPPORTED_FUNCTIONS } from "../../emulator/apl/functions";
import { xxHash64 } from "../../emulator/apl/functions/hash";
import { parseV6 } from "../../emulator/apl/functions/ip";
import { DateTime, Timespan } from "../../emulator/apl/values";

const ctx = { now: 1_736_935_200_000_000_000n };

function call(name: string, ...args: unknown[]): unknown {
  const f = SCALAR_FUNCTIONS.get(name);
  if (f === undefined) throw new Error(`${name} is not registered`);
  expect(args.length).toBeGreaterThanOrEqual(f.minArgs);
  expect(args.length).toBeLessThanOrEqual(f.maxArgs);
  return f.call(args, ctx);
}

type Row = [label: string, name: string, args: unknown[], expected: unknown];

describe("the registry", () => {
  /** Every function page under apl/scalar-functions at fbd6133 (file names with - as _), by folder. */
  const DOCUMENTED = [
    ...["array_concat", "array_extract", "array_iff", "array_index_of", "array_length", "array_reverse"],
    ...[
      "array_rotate_left",
      "array_rotate_right",
      "array_select_dict",
      "array_shift_left",
      "array_shift_right",
    ],
    ...[
      "array_slice",
      "array_sort_asc",
      "array_sort_desc",
      "array_split",
      "array_sum",
      "bag_has_key",
      "bag_keys",
    ],
    ...[
      "bag_pack",
      "bag_zip",
      "isarray",
      "len",
      "pack_array",
      "pack_dictionary",
      "strcat_array",
      "case",
      "iff",
    ],
    ...[
      "dynamic_to_json",
      "ensure_field",
      "isbool",
      "toarray",
      "tobool",
      "todatetime",
      "todouble",
      "todynamic",
    ],
    ...["tohex", "toint", "tostring", "totimespan", "ago", "datetime_add", "datetime_diff", "datetime_part"],
    ...[
      "dayofmonth",
      "dayofweek",
      "dayofyear",
      "endofday",
      "endofmonth",
      "endofweek",
      "endofyear",
      "getmonth",
    ],
    ...[
      "getyear",
      "hourofday",
      "monthofyear",
      "now",
      "startofday",
      "startofmonth",
      "startofweek",
      "startofyear",
    ],
    ...[
      "unixtime_microseconds_todatetime",
      "unixtime_milliseconds_todatetime",
      "unixtime_nanoseconds_todatetime",
    ],
    ...["unixtime_seconds_todatetime", "week_of_year", "genai_concat_contents", "genai_conversation_turns"],
    ...[
      "genai_cost",
      "genai_estimate_tokens",
      "genai_extract_assistant_response",
      "genai_extract_function_results",
    ],
    ...["genai_extract_system_prompt", "genai_extract_tool_calls", "genai_extract_user_prompt"],
    ...["genai_get_content_by_index", "genai_get_content_by_role", "genai_get_pricing", "genai_get_role"],
    ...[
      "genai_has_tool_calls",
      "genai_input_cost",
      "genai_is_truncated",
      "genai_message_roles",
      "genai_output_cost",
    ],
    ...["hash_md5", "hash_sha1", "hash_sha256", "hash_sha512", "hash", "format_ipv4_mask", "format_ipv4"],
    ...["geo_info_from_ip_address", "has_any_ipv4_prefix", "has_any_ipv4", "has_ipv4_prefix", "has_ipv4"],
    ...["ipv4_compare", "ipv4_is_in_any_range", "ipv4_is_in_range", "ipv4_is_match", "ipv4_is_private"],
    ...["ipv4_netmask_suffix", "ipv6_compare", "ipv6_is_in_any_range", "ipv6_is_in_range", "ipv6_is_match"],
    ...[
      "parse_ipv4_mask",
      "parse_ipv4",
      "abs",
      "acos",
      "asin",
      "atan",
      "atan2",
      "cos",
      "cot",
      "degrees",
      "exp",
    ],
    ...["exp10", "exp2", "gamma", "isfinite", "isinf", "isint", "isnan", "log", "log10", "log2", "loggamma"],
    ...["max_of", "min_of", "not", "pi", "pow", "radians", "rand", "range", "round", "set_difference"],
    ...["set_has_element", "set_intersect", "set_union", "sign", "sin", "sqrt", "tan", "column_ifexists"],
    ...["cursor_current", "ingestion_time", "find_pair", "pair", "parse_pair", "bin_auto", "bin", "ceiling"],
    ...["floor", "format_sql", "parse_sql", "base64_decode_toarray", "base64_decode_tostring"],
    ...[
      "base64_encode_fromarray",
      "base64_encode_tostring",
      "coalesce",
      "countof_regex",
      "countof",
      "extract_all",
    ],
    ...["extract", "format_bytes", "format_url", "gettype", "indexof_regex", "indexof", "isascii", "isempty"],
    ...[
      "isnotempty",
      "isnotnull",
      "isnull",
      "parse_bytes",
      "parse_csv",
      "parse_json",
      "parse_path",
      "parse_url",
    ],
    ...[
      "parse_urlquery",
      "quote",
      "regex_quote",
      "replace_regex",
      "replace_string",
      "replace",
      "reverse",
      "split",
    ],
    ...[
      "strcat_delim",
      "strcat",
      "strcmp",
      "string_size",
      "strip_ansi_escapes",
      "strlen",
      "strrep",
      "substring",
    ],
    ...[
      "tolower",
      "totitle",
      "toupper",
      "translate",
      "trim_end_regex",
      "trim_end",
      "trim_regex",
      "trim_space",
    ],
    ...[
      "trim_start_regex",
      "trim_start",
      "trim",
      "unicode_codepoints_from_string",
      "unicode_codepoints_to_string",
    ],
    ...["url_decode", "url_encode", "series_abs", "series_acos", "series_add", "series_asin", "series_atan"],
    ...["series_ceiling", "series_cos", "series_cosine_similarity", "series_divide", "series_dot_product"],
    ...["series_equals", "series_exp", "series_fft", "series_fill_backward", "series_fill_const"],
    ...["series_fill_forward", "series_fill_linear", "series_fir", "series_floor", "series_greater_equals"],
    ...["series_greater", "series_ifft", "series_iir", "series_less_equals", "series_less", "series_log"],
    ...["series_magnitude", "series_max", "series_min", "series_multiply", "series_not_equals"],
    ...["series_pearson_correlation", "series_pow", "series_sign", "series_sin", "series_stats_dynamic"],
    ...["series_stats", "series_subtract", "series_sum", "series_tan", "iscc", "isimei", "ismap", "isreal"],
    ...["isstring", "isutf8"],
  ];
  /** Functions whose arguments are not plain values: the compiler handles them (functions/index.ts says why). */
  const COMPILER_HANDLED = [
    "column_ifexists",
    "ensure_field",
    "bin_auto",
    "ingestion_time",
    "cursor_current",
  ];

  it.each(DOCUMENTED)("%s is registered, refused with a reason, or the compiler's", (name) => {
    const where = [
      SCALAR_FUNCTIONS.has(name),
      UNSUPPORTED_FUNCTIONS.has(name),
      COMPILER_HANDLED.includes(name),
    ];
    expect(where.filter(Boolean)).toHaveLength(1);
  });

  it("refusals give the reason the issue asks for", () => {
    expect(UNSUPPORTED_FUNCTIONS.get("geo_info_from_ip_address")).toBe("needs a GeoIP database");
    for (const reason of UNSUPPORTED_FUNCTIONS.values()) expect(reason).toMatch(/^needs /);
  });

  it("every entry has a sane arity", () => {
    for (const [name, f] of SCALAR_FUNCTIONS) {
      expect({ name, ok: f.minArgs >= 0 && f.minArgs <= f.maxArgs }).toEqual({ name, ok: true });
    }
  });
});

describe("arrays (array-functions pages)", () => {
  it.each<Row>([
    ["array-rotate-left: by 1", "array_rotate_left", [[1, 2, 3, 4], 1], [2, 3, 4, 1]],
    ["array-rotate-left: by 2", "array_rotate_left", [[1, 2, 3, 4], 2], [3, 4, 1, 2]],
    ["array-rotate-right: by 1", "array_rotate_right", [[1, 2, 3, 4], 1], [4, 1, 2, 3]],
    [
      "array-sort-asc: ['x','a','m','o','i']",
      "array_sort_asc",
      [["x", "a", "m", "o", "i"]],
      ["a", "i", "m", "o", "x"],
    ],
    ["array-sort-asc: [4, 2, 5]", "array_sort_asc", [[4, 2, 5]], [2, 4, 5]],
    [
      "array-sort-desc: ['x','a','m','o','i']",
      "array_sort_desc",
      [["x", "a", "m", "o", "i"]],
      ["x", "o", "m", "i", "a"],
    ],
    [
      "array-concat: pack_array(uri), pack_array(method)",
      "array_concat",
      [["/api"], ["POST"]],
      ["/api", "POST"],
    ],
    ["array-index-of: '500' in the statuses", "array_index_of", [["200", "404", "500"], "500"], 2],
    ["array-index-of: 'frontend'", "array_index_of", [["frontend", "cartservice"], "frontend"], 0],
    [
      "array-select-dict: the frontend entry",
      "array_select_dict",
      [
        [
          { "service.name": "frontend", status_code: "200" },
          { "service.name": "backend", status_code: "500" },
        ],
        "service.name",
        "frontend",
      ],
      { "service.name": "frontend", status_code: "200" },
    ],
    [
      "array-extract: $[*].value",
      "array_extract",
      [
        [
          { id: 1, value: true },
          { id: 2, value: false },
        ],
        "$[*].value",
      ],
      [true, false],
    ],
    [
      "strcat-array: ', '",
      "strcat_array",
      [["GET /index", "POST /submit", "GET /about"], ", "],
      "GET /index, POST /submit, GET /about",
    ],
    ["array-length: three events", "array_length", [[{}, {}, {}]], 3],
    ["array-concat: array_concat(dynamic([200]))", "array_concat", [[200]], [200]],
    ["len: an array", "len", [[1, 2]], 2],
    ["pack-array: values in order", "pack_array", ["GET", 200, null], ["GET", 200, null]],
    [
      "bag-keys: the metadata's keys",
      "bag_keys",
      [{ os: "Windows", browser: "Firefox", device: "Desktop" }],
      ["os", "browser", "device"],
    ],
    ["bag-has-key: 'env'", "bag_has_key", [{ source: "cdn", env: "prod" }, "env"], true],
    ["bag-pack: bag_pack('key', 'value')", "bag_pack", ["key", "value"], { key: "value" }],
    [
      "bag-zip: keys and values",
      "bag_zip",
      [
        ["status_code", "request_method", "city"],
        [200, "GET", "Seattle"],
      ],
      { status_code: 200, request_method: "GET", city: "Seattle" },
    ],
    [
      "pack-dictionary: request info",
      "pack_dictionary",
      ["method", "GET", "uri", "/home", "status", "200", "duration", 82],
      { method: "GET", uri: "/home", status: "200", duration: 82 },
    ],
  ])("%s", (_label, name, args, expected) => {
    expect(call(name, ...args)).toEqual(expected);
  });

  it("shifts fill with null (or the given value); rotations wrap", () => {
    expect(call("array_shift_left", [1, 2, 3], 1)).toEqual([2, 3, null]);
    expect(call("array_shift_right", [1, 2, 3], 1)).toEqual([null, 1, 2]);
    expect(call("array_shift_right", [1, 2, 3], 2, -1)).toEqual([-1, -1, 1]);
    expect(call("array_rotate_right", [1, 2, 3], -1)).toEqual([2, 3, 1]);
    expect(call("array_rotate_left", [], 3)).toEqual([]);
  });

  it("array_slice: end exclusive, negatives from the end, out of range adjusted (its page)", () => {
    expect(call("array_slice", [1, 2, 3, 4, 5], 1, 3)).toEqual([2, 3]);
    expect(call("array_slice", [1, 2, 3, 4, 5], -3, -1)).toEqual([3, 4]);
    expect(call("array_slice", [1, 2, 3], 2, 99)).toEqual([3]);
    expect(call("array_slice", [1, 2, 3], 5, 9)).toEqual([]);
  });

  it("array_split: one index or several", () => {
    expect(call("array_split", [1, 2, 3, 4], 2)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(call("array_split", [1, 2, 3, 4, 5], [1, 3])).toEqual([[1], [2, 3], [4, 5]]);
  });

  it("array_sum: numbers, or null when none (its page); timespans sum to a timespan", () => {
    expect(call("array_sum", [1, 2.5, "x", null])).toBe(3.5);
    expect(call("array_sum", [])).toBeNull();
    expect(call("array_sum", [new Timespan(2n), new Timespan(3n)])).toEqual(new Timespan(5n));
  });

  it("array_iff: elementwise, scalars standing for every position", () => {
    expect(call("array_iff", [true, false, true], [1, 2, 3], 0)).toEqual([1, 0, 3]);
    expect(call("array_iff", [true, null], [1, 2], [9, 9])).toEqual([1, null]);
  });

  it("array_index_of: start, length, occurrence, and null for a null lookup", () => {
    expect(call("array_index_of", [1, 2, 1, 2], 2, 2)).toBe(3);
    expect(call("array_index_of", [1, 2, 1, 2], 1, -2)).toBe(2);
    expect(call("array_index_of", [1, 2, 1, 2], 2, 0, 1)).toBe(-1);
    expect(call("array_index_of", [1, 2, 1, 2], 1, 0, -1, 2)).toBe(2);
    expect(call("array_index_of", [1], null)).toBeNull();
  });

  it("array_extract: names, indexes, quoted names, and malformed paths", () => {
    const doc = { a: [{ "b.c": 1 }, { "b.c": 2 }] };
    expect(call("array_extract", doc, "$.a[1]['b.c']")).toEqual([2]);
    expect(call("array_extract", doc, "$.a[*]")).toEqual(doc.a);
    expect(call("array_extract", doc, "$.missing")).toEqual([]);
    expect(call("array_extract", doc, "a.b")).toBeNull();
  });

  it("sorts keep nulls last and do not change their input", () => {
    const input = [3, null, 1];
    expect(call("array_sort_asc", input)).toEqual([1, 3, null]);
    expect(call("array_sort_desc", input)).toEqual([3, 1, null]);
    expect(input).toEqual([3, null, 1]);
    expect(call("array_sort_asc", "not an array")).toEqual([]);
  });

  it("a JSON array in text is an array; other non-arrays give null", () => {
    expect(call("array_length", "[1,2,3]")).toBe(3);
    expect(call("array_length", 5)).toBeNull();
    expect(call("array_reverse", null)).toBeNull();
    expect(call("bag_keys", [1])).toBeNull();
  });

  it("set functions remove duplicates and keep first-seen order", () => {
    expect(call("set_union", [1, 1, "1"], ["1", 2])).toEqual([1, "1", 2]);
    expect(call("set_intersect", [3, 2, 2, 1], [1, 2])).toEqual([2, 1]);
    expect(call("set_has_element", ["a"], "b")).toBe(false);
  });
});

describe("pairs (pair-functions pages)", () => {
  it.each<Row>([
    [
      "pair: pair('method', 'GET')",
      "pair",
      ["method", "GET"],
      { key: "method", separator: ":", value: "GET" },
    ],
    [
      "pair: pair('host', 'server1')",
      "pair",
      ["host", "server1"],
      { key: "host", separator: ":", value: "server1" },
    ],
    [
      "parse-pair: 'method:GET'",
      "parse_pair",
      ["method:GET"],
      { key: "method", separator: ":", value: "GET" },
    ],
    [
      "parse-pair: without the separator the whole input is the value",
      "parse_pair",
      ["novalue"],
      { key: "", separator: ":", value: "novalue" },
    ],
    [
      "find-pair: find_pair(tags, 'server', '*')",
      "find_pair",
      [["server:web01", "env:production", "region:us-west"], "server", "*"],
      { separator: ":", value: "web01", key: "server" },
    ],
  ])("%s", (_label, name, args, expected) => {
    expect(call(name, ...args)).toEqual(expected);
  });

  it("find_pair: wildcards on both sides, a custom separator, null without a match", () => {
    const tags = ["env=prod-eu", "env=dev-us"];
    expect(call("find_pair", tags, "e*", "*-us", "=")).toEqual({
      key: "env",
      value: "dev-us",
      separator: "=",
    });
    expect(call("find_pair", tags, "region", "*", "=")).toBeNull();
  });
});

describe("hashes (hash-functions pages)", () => {
  it("digests of the argument's text, lower-case hex of the documented lengths", () => {
    expect(call("hash_md5", "axiom")).toMatch(/^[0-9a-f]{32}$/);
    expect(call("hash_md5", "")).toBe("d41d8cd98f00b204e9800998ecf8427e");
    expect(call("hash_sha1", "abc")).toBe("a9993e364706816aba3e25717850c26c9cd0d89d");
    expect(call("hash_sha256", "abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect((call("hash_sha512", "abc") as string).slice(0, 16)).toBe("ddaf35a193617aba");
    expect(call("hash_md5", 123)).toBe(call("hash_md5", "123"));
  });

  it.each([
    ["", 0n, "ef46db3751d8e999"],
    ["a", 0n, "d24ec4f1a98c6e5b"],
    ["abc", 0n, "44bc2cf5ad770999"],
    ["Nobody inspects the spammish repetition", 0n, "fbcea83c8a378bf1"],
    ["xxhash", 0n, "32dd38952c4bc720"],
    ["xxhash", 20141025n, "b559b98d844e0635"],
  ])("XXH64(%j, seed %s) is %s (xxHash's reference vectors)", (text, seed, hex) => {
    expect(xxHash64(Buffer.from(text), seed).toString(16).padStart(16, "0")).toBe(hex);
  });

  it("hash(): the signed 64-bit XXH64, salted by the seed; reals refused with null (the hash page)", () => {
    expect(call("hash", "abc")).toBe(Number(BigInt.asIntN(64, 0x44bc2cf5ad770999n)));
    expect(call("hash", "xxhash", 20141025)).toBe(Number(BigInt.asIntN(64, 0xb559b98d844e0635n)));
    expect(call("hash", "a")).toBeLessThan(0);
    expect(call("hash", 1.5)).toBeNull();
    expect(call("hash", null)).toBeNull();
  });
});

describe("IP functions (ip-functions pages)", () => {
  it.each<Row>([
    ["format-ipv4-mask: ('192.168.1.54', 24)", "format_ipv4_mask", ["192.168.1.54", 24], "192.168.1.0/24"],
    ["format-ipv4: format_ipv4(3232235776)", "format_ipv4", [3232235776], "192.168.1.0"],
    ["has-any-ipv4-prefix", "has_any_ipv4_prefix", ["192.168.0.1", ["172.16.", "192.168."]], true],
    ["has-any-ipv4", "has_any_ipv4", ["192.168.1.1", ["192.168.1.1", "192.168.0.0/16"]], true],
    ["has-ipv4-prefix", "has_ipv4_prefix", ["192.168.0.1", "192.168."], true],
    ["has-ipv4: in free text", "has_ipv4", ["Requests from: 192.168.1.1, 10.1.1.115.", "192.168.1.1"], true],
    ["has-ipv4: a log line", "has_ipv4", ["05:04:54 192.168.1.1 GET /favicon.ico 404", "192.168.1.1"], true],
    ["ipv4-compare: 192.168.1.1 < 192.168.1.10", "ipv4_compare", ["192.168.1.1", "192.168.1.10"], -1],
    ["ipv4-is-in-any-range", "ipv4_is_in_any_range", ["192.168.0.0", ["192.168.0.0/24", "10.0.0.0/8"]], true],
    ["ipv4-is-in-range", "ipv4_is_in_range", ["192.168.1.0", "192.168.1.0/24"], true],
    ["ipv4-is-match", "ipv4_is_match", ["203.0.113.112", "203.0.113.112"], true],
    ["ipv4-is-private", "ipv4_is_private", ["192.168.0.1"], true],
    ["ipv4-netmask-suffix", "ipv4_netmask_suffix", ["192.168.1.1/24"], 24],
    ["ipv6-compare: ::1 < ::abcd", "ipv6_compare", ["2001:db8::1", "2001:db8::abcd"], -1],
    ["ipv6-compare: ::1 < ::2", "ipv6_compare", ["2001:db8::1", "2001:db8::2"], -1],
    ["ipv6-is-in-any-range", "ipv6_is_in_any_range", ["2001:db8::1234", ["2001:db8::/32", "fd00::/8"]], true],
    ["ipv6-is-in-range", "ipv6_is_in_range", ["fd00::a1b2", "fd00::/8"], true],
    ["ipv6-is-match", "ipv6_is_match", ["2001:db8:abcd::1", "2001:db8::/32"], true],
    ["parse-ipv4-mask: ('192.168.0.1', 24)", "parse_ipv4_mask", ["192.168.0.1", 24], 3232235520],
    ["parse-ipv4-mask: ('127.0.0.1', 24)", "parse_ipv4_mask", ["127.0.0.1", 24], 2130706432],
    ["parse-ipv4: '192.168.1.1'", "parse_ipv4", ["192.168.1.1"], 3232235777],
    ["format-ipv4-mask: ('192.168.1.10', 24)", "format_ipv4_mask", ["192.168.1.10", 24], "192.168.1.0/24"],
    ["ipv6-is-in-any-range: one range", "ipv6_is_in_any_range", ["2001:db8::1", ["2001:db8::/32"]], true],
    [
      "ipv6-is-match: '2001:db8:abcd:0012::0'",
      "ipv6_is_match",
      ["2001:db8:abcd:0012::0", "2001:db8::/32"],
      true,
    ],
    ["has-any-ipv4: a text without addresses", "has_any_ipv4", ["ip_field", ["192.168.1.0/24"]], false],
  ])("%s", (_label, name, args, expected) => {
    expect(call(name, ...args)).toEqual(expected);
  });

  it("null or empty for what is not an address, as each page says", () => {
    expect(call("parse_ipv4", "256.1.1.1")).toBeNull();
    expect(call("parse_ipv4", "1.2.3")).toBeNull();
    expect(call("format_ipv4", "nope")).toBe("");
    expect(call("format_ipv4_mask", "10.0.0.1", 33)).toBe("");
    expect(call("ipv4_compare", "x", "1.2.3.4")).toBeNull();
    expect(call("ipv4_is_in_range", "10.0.0.1", "10.0.0.0/40")).toBeNull();
    expect(call("ipv4_netmask_suffix", "10.0.0.1")).toBe(32);
    expect(call("ipv4_netmask_suffix", "ten")).toBeNull();
  });

  it("IPv4 details: prefixes on both sides, private ranges, addresses inside text", () => {
    expect(call("ipv4_compare", "192.168.1.1/24", "192.168.1.255")).toBe(0);
    expect(call("ipv4_is_match", "10.1.2.3", "10.1.9.9", 16)).toBe(true);
    expect(call("ipv4_is_private", "172.31.255.255")).toBe(true);
    expect(call("ipv4_is_private", "172.32.0.1")).toBe(false);
    expect(call("ipv4_is_private", "8.8.8.8")).toBe(false);
    expect(call("has_ipv4", "x 192.168.1.10 y", "192.168.1.1")).toBe(false);
    expect(call("has_ipv4", "1.2.3.4.5", "1.2.3.4")).toBe(false);
    expect(call("has_ipv4_prefix", "from 10.1.2.3", "10.1")).toBe(true);
    expect(call("has_ipv4_prefix", "from 10.11.2.3", "10.1")).toBe(false);
    expect(call("has_any_ipv4", "a 10.0.0.7 b", "10.0.0.0/24", "1.1.1.1")).toBe(true);
  });

  it("IPv6 text forms: ::, full, embedded IPv4, mapped IPv4, and what is refused", () => {
    expect(parseV6("::1")?.address).toBe(1n);
    expect(parseV6("2001:0db8:0000:0000:0000:0000:0000:0001")?.address).toBe(parseV6("2001:db8::1")?.address);
    expect(parseV6("::ffff:192.168.1.1")?.address).toBe(parseV6("192.168.1.1")?.address);
    expect(parseV6("1::2::3")).toBeNull();
    expect(parseV6("12345::")).toBeNull();
    expect(parseV6("::/129")).toBeNull();
    expect(call("ipv6_compare", "2001:db8::1", "2001:db8::ffff", 112)).toBe(0);
    expect(call("ipv6_compare", "2001:db8::1", "2001:db8::ffff", 120)).toBe(-1);
    expect(call("ipv6_is_match", "fe80::1", "fe80::2")).toBe(false);
    expect(call("ipv6_is_in_range", "2001:db9::1", "2001:db8::/32")).toBe(false);
    expect(call("ipv6_compare", "not-an-ip", "::1")).toBeNull();
  });
});

describe("URLs and paths (string-functions pages)", () => {
  it("parse_url: the components the page lists", () => {
    expect(call("parse_url", "https://user:pw@api.example.com:8443/api/users?id=5&x=a%20b#top")).toEqual({
      scheme: "https",
      host: "api.example.com",
      port: "8443",
      path: "/api/users",
      username: "user",
      password: "pw",
      query: { id: "5", x: "a b" },
      fragment: "top",
    });
    expect((call("parse_url", "http://frontend:8080/api/endpoint") as { host: string }).host).toBe(
      "frontend",
    );
    expect(call("parse_url", "not a url")).toBeNull();
  });

  it("parse_urlquery: the page's examples, with or without '?'", () => {
    expect(call("parse_urlquery", "page=1&limitation=50&sort=date")).toEqual({
      page: "1",
      limitation: "50",
      sort: "date",
    });
    expect(call("parse_urlquery", "?user_id=12345&action=checkout&currency=USD")).toEqual({
      user_id: "12345",
      action: "checkout",
      currency: "USD",
    });
  });

  it("format_url: the page's examples", () => {
    expect(call("format_url", { scheme: "https", host: "api.example.com", path: "/api/users" })).toBe(
      "https://api.example.com/api/users",
    );
    expect(call("format_url", { scheme: "http", host: "localhost", port: 8080, path: "/frontend" })).toBe(
      "http://localhost:8080/frontend",
    );
    expect(call("format_url", { scheme: "https", host: "h", query: { q: "a b" }, fragment: "f" })).toBe(
      "https://h?q=a%20b#f",
    );
    expect(call("format_url", "x")).toBeNull();
  });

  it("parse_path: the page's example and Windows paths", () => {
    expect(call("parse_path", "/api/v1/messages/users")).toEqual({
      Scheme: "",
      RootPath: "",
      DirectoryPath: "/api/v1/messages",
      DirectoryName: "messages",
      Filename: "users",
      Extension: "",
      AlternateDataStream: "",
    });
    expect(call("parse_path", "C:\\Temp\\report.txt:meta")).toMatchObject({
      RootPath: "C:",
      DirectoryPath: "C:\\Temp",
      DirectoryName: "Temp",
      Filename: "report.txt",
      Extension: "txt",
      AlternateDataStream: "meta",
    });
    expect(call("parse_path", "https://example.com/files/a.tar.gz")).toMatchObject({
      Scheme: "https",
      RootPath: "example.com",
      Filename: "a.tar.gz",
      Extension: "gz",
    });
  });
});

describe("SQL (sql-functions pages)", () => {
  it("parse_sql: the slow-query example's model", () => {
    expect(
      call(
        "parse_sql",
        "SELECT id, status, uri FROM requests WHERE req_duration_ms > 1000 ORDER BY req_duration_ms DESC",
      ),
    ).toEqual({
      columns: [{ colname: "id" }, { colname: "status" }, { colname: "uri" }],
      from: [{ table: "requests" }],
      order: [{ direction: "desc", expr: { colname: "req_duration_ms" } }],
      statement: "select",
      where: {
        operator: ">",
        params: [{ colname: "req_duration_ms" }, { value: "1000", valtype: "integer" }],
      },
    });
  });

  it("parse_sql: the traces example (no WHERE) and the OR example", () => {
    expect(
      call("parse_sql", "SELECT trace_id, span_id, duration FROM traces ORDER BY duration DESC"),
    ).toEqual({
      columns: [{ colname: "trace_id" }, { colname: "span_id" }, { colname: "duration" }],
      from: [{ table: "traces" }],
      order: [{ direction: "desc", expr: { colname: "duration" } }],
      statement: "select",
    });
    expect(call("parse_sql", "SELECT id, status FROM logs WHERE status = 401 OR status = 403")).toEqual({
      columns: [{ colname: "id" }, { colname: "status" }],
      from: [{ table: "logs" }],
      statement: "select",
      where: {
        operator: "or",
        params: [
          { operator: "=", params: [{ colname: "status" }, { value: "401", valtype: "integer" }] },
          { operator: "=", params: [{ colname: "status" }, { value: "403", valtype: "integer" }] },
        ],
      },
    });
  });

  it("format_sql(parse_sql(...)): the format-sql page's round trip", () => {
    const model = call(
      "parse_sql",
      "SELECT id, status, uri FROM requests WHERE req_duration_ms > 1000 ORDER BY req_duration_ms DESC",
    );
    expect(call("format_sql", model)).toBe(
      "select id, status, uri from requests where req_duration_ms > 1000 order by req_duration_ms desc",
    );
  });

  it("round trips beyond the pages: functions, aliases, IN, BETWEEN, IS NULL, precedence, LIMIT", () => {
    const sql =
      "select count(*) as n, t.a from logs as t where (a = 1 or b = 'x''y') and c in (1, 2) and d between 1 and 5 and e is not null group by t.a order by n limit 10 offset 5";
    expect(call("format_sql", call("parse_sql", sql))).toBe(sql);
  });

  it("a long statement parses in time linear in its length", () => {
    const columns = Array.from({ length: 20_000 }, (_, i) => `c${i}`).join(", ");
    const model = call("parse_sql", `SELECT ${columns} FROM t`) as { columns: unknown[] };
    expect(model.columns).toHaveLength(20_000);
  });

  it("nesting too deep for the stack is null, not a crash", () => {
    expect(
      call("parse_sql", `SELECT a FROM t WHERE ${"(".repeat(100_000)}a = 1${")".repeat(100_000)}`),
    ).toBeNull();
    // A long OR chain nests as deep as it is long; reading and writing it back must not crash either.
    const chain = Array.from({ length: 100_000 }, (_, i) => `a = ${i}`).join(" or ");
    expect(() => call("format_sql", call("parse_sql", `SELECT a FROM t WHERE ${chain}`))).not.toThrow();
  });

  it("what is not a SELECT the emulator reads is null", () => {
    expect(call("parse_sql", "DELETE FROM logs")).toBeNull();
    expect(call("parse_sql", "SELECT FROM")).toBeNull();
    expect(call("parse_sql", "SELECT a FROM t WHERE")).toBeNull();
    expect(call("format_sql", { statement: "select", columns: [{ nonsense: 1 }] })).toBeNull();
  });
});

describe("time series (time-series pages)", () => {
  it.each<Row>([
    [
      "series-greater: [1,2,3] > [2,2,2]",
      "series_greater",
      [
        [1, 2, 3],
        [2, 2, 2],
      ],
      [false, false, true],
    ],
    [
      "series-greater: [10,20,30] > [15,10,30]",
      "series_greater",
      [
        [10, 20, 30],
        [15, 10, 30],
      ],
      [false, true, false],
    ],
    [
      "series-greater-equals: [2,4,6] >= [1,4,10]",
      "series_greater_equals",
      [
        [2, 4, 6],
        [1, 4, 10],
      ],
      [true, true, false],
    ],
    [
      "series-not-equals: [1,2,3] != [1,5,3]",
      "series_not_equals",
      [
        [1, 2, 3],
        [1, 5, 3],
      ],
      [false, true, false],
    ],
    [
      "series-equals: durations equal to toreal(1s)",
      "series_equals",
      [[800, 1000, 1200], 1000],
      [false, true, false],
    ],
  ])("%s", (_label, name, args, expected) => {
    expect(call(name, ...args)).toEqual(expected);
  });

  it("elementwise math: null elements stay null, lengths as each page says", () => {
    expect(call("series_abs", [-1, null, 2])).toEqual([1, null, 2]);
    expect(call("series_log", [Math.E, 0])).toEqual([1, null]);
    expect(call("series_add", [1, 2, 3], [10, 20])).toEqual([11, 22]);
    expect(call("series_subtract", [1, 2, 3], [10, 20])).toEqual([-9, -18, null]);
    expect(call("series_multiply", [1, 2], 3)).toEqual([3, 6]);
    expect(call("series_divide", [1, -1], [0, 0])).toEqual([Infinity, -Infinity]);
    expect(call("series_pow", [2, 3], 2)).toEqual([4, 9]);
    expect(call("series_max", [1, 5], [3, 2])).toEqual([3, 5]);
    expect(call("series_sign", [-3, 0, 2])).toEqual([-1, 0, 1]);
    expect(call("series_floor", [1.5])).toEqual([1]);
    expect(call("series_add", 1, 2)).toBeNull();
  });

  it("reductions", () => {
    expect(call("series_sum", [1, 2, 3.5])).toBe(6.5);
    expect(call("series_sum", [])).toBe(0);
    expect(call("series_magnitude", [3, 4])).toBe(5);
    expect(call("series_dot_product", [1, 2, 3], [4, 5])).toBe(14);
    expect(call("series_cosine_similarity", [1, 0], [1, 0])).toBe(1);
    expect(call("series_cosine_similarity", [0, 0], [1, 0])).toBeNull();
    expect(call("series_pearson_correlation", [1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(call("series_pearson_correlation", [1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
  });

  it("series_stats and series_stats_dynamic: min, min_idx, max, max_idx, avg, sample variance, stdev", () => {
    expect(call("series_stats", [2, 4, 4, 4, 5, 5, 7, 9])).toEqual([
      2,
      0,
      9,
      7,
      5,
      32 / 7,
      Math.sqrt(32 / 7),
    ]);
    expect(call("series_stats_dynamic", [1, 3])).toEqual({
      min: 1,
      min_idx: 0,
      max: 3,
      max_idx: 1,
      avg: 2,
      variance: 2,
      stdev: Math.SQRT2,
    });
  });

  it("fills", () => {
    expect(call("series_fill_const", [1, null, 3], 0)).toEqual([1, 0, 3]);
    expect(call("series_fill_forward", [null, 1, null, null, 4])).toEqual([null, 1, 1, 1, 4]);
    expect(call("series_fill_backward", [null, 1, null, 4, null])).toEqual([1, 1, 4, 4, null]);
    expect(call("series_fill_linear", [null, 1, null, null, 4, null])).toEqual([1, 1, 2, 3, 4, 4]);
    expect(call("series_fill_linear", [null, null])).toEqual([null, null]);
    expect(call("series_fill_linear", [2, null, null, null, 10, null, 0])).toEqual([2, 4, 6, 8, 10, 5, 0]);
    // Linear in the series' length: 200,000 points with every other one missing.
    const long = Array.from({ length: 200_000 }, (_, i) => (i % 2 === 0 ? i : null));
    expect((call("series_fill_linear", long) as number[])[199_999]).toBe(199_998);
    expect((call("series_fill_linear", long) as number[])[12_345]).toBe(12_345);
  });

  it("filters: FIR moving average and a first-order IIR (a running sum)", () => {
    expect(call("series_fir", [3, 6, 9, 12], [1, 1, 1])).toEqual([1, 3, 6, 9]);
    expect(call("series_fir", [1, 2, 3], [1, 1], false)).toEqual([1, 3, 5]);
    expect(call("series_iir", [1, 2, 3, 4], [1], [1, -1])).toEqual([1, 3, 6, 10]);
    expect(call("series_iir", [1], [1], [0])).toBeNull();
  });

  it("FFT of any length agrees with the O(n²) definition (Bluestein for lengths that are not powers of two)", () => {
    for (const n of [3, 5, 12, 17, 64]) {
      const signal = Array.from({ length: n }, (_, i) => Math.sin(i * 1.3) + (i % 3));
      const [fr, fi] = call("series_fft", signal) as number[][];
      for (let k = 0; k < n; k++) {
        let sr = 0;
        let si = 0;
        for (let t = 0; t < n; t++) {
          sr += signal[t] * Math.cos((-2 * Math.PI * k * t) / n);
          si += signal[t] * Math.sin((-2 * Math.PI * k * t) / n);
        }
        expect(fr[k]).toBeCloseTo(sr, 9);
        expect(fi[k]).toBeCloseTo(si, 9);
      }
    }
    const long = Array.from({ length: 10_007 }, (_, i) => (i * 7919) % 13);
    const [lr, li] = call("series_fft", long) as number[][];
    const [back] = call("series_ifft", lr, li) as number[][];
    expect(back[10_006]).toBeCloseTo(long[10_006], 6);
    expect(lr[0]).toBeCloseTo(
      long.reduce((a, b) => a + b, 0),
      6,
    );
    expect(call("series_fft", [])).toEqual([[], []]);
  });

  it("FFT and its inverse: a known transform, and the round trip for lengths that are and are not powers of two", () => {
    const [re, im] = call("series_fft", [1, 0, 0, 0]) as number[][];
    expect(re).toEqual([1, 1, 1, 1]);
    expect(im.map((x) => Math.abs(x))).toEqual([0, 0, 0, 0]);
    for (const signal of [
      [1, 2, 3, 4, 5, 6, 7, 8],
      [0.5, -1, 2, 7, 3],
    ]) {
      const [fr, fi] = call("series_fft", signal) as number[][];
      const [back, backIm] = call("series_ifft", fr, fi) as number[][];
      back.forEach((x, i) => expect(x).toBeCloseTo(signal[i], 10));
      backIm.forEach((x) => expect(x).toBeCloseTo(0, 10));
    }
  });
});

describe("GenAI conversations (genai-functions pages)", () => {
  const messages = [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Hi" },
    {
      role: "assistant",
      content: "Hello",
      tool_calls: [{ id: "c1", function: { name: "lookup", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "c1", content: "42" },
    { role: "user", parts: [{ type: "text", content: "And now?" }] },
    { role: "assistant", parts: [{ type: "text", content: "Done." }] },
  ];

  it("extractions by role and position", () => {
    expect(call("genai_extract_system_prompt", messages)).toBe("Be brief.");
    expect(call("genai_extract_user_prompt", messages)).toBe("And now?");
    expect(call("genai_extract_assistant_response", messages)).toBe("Done.");
    expect(call("genai_get_content_by_index", messages, 1)).toBe("Hi");
    expect(call("genai_get_content_by_index", messages, 99)).toBe("");
    expect(call("genai_get_content_by_role", messages, "assistant")).toBe("Hello");
    expect(call("genai_get_role", messages, 3)).toBe("tool");
    expect(call("genai_message_roles", messages)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "user",
      "assistant",
    ]);
  });

  it("concatenation, turns, tool calls and results", () => {
    expect(call("genai_concat_contents", messages, " / ")).toBe(
      "Be brief. / Hi / Hello / 42 / And now? / Done.",
    );
    // The page's example output ends in the separator, as a last message without text gives.
    expect(call("genai_concat_contents", [...messages, { role: "assistant", tool_calls: [] }], " /")).toMatch(
      /Done\. \/$/,
    );
    expect(call("genai_concat_contents", [{ content: "a" }, { content: "b" }])).toBe("a b");
    expect(call("genai_conversation_turns", messages)).toBe(2);
    expect(call("genai_has_tool_calls", messages)).toBe(true);
    expect(call("genai_has_tool_calls", [{ role: "user", content: "x" }])).toBe(false);
    expect(call("genai_extract_tool_calls", messages)).toEqual([
      { id: "c1", function: { name: "lookup", arguments: "{}" } },
    ]);
    expect(call("genai_extract_tool_calls", [])).toBeNull();
    expect(call("genai_extract_function_results", messages)).toEqual([{ tool_call_id: "c1", content: "42" }]);
  });

  it("truncation by finish reason, token estimate, and null for a non-array", () => {
    expect(call("genai_is_truncated", messages, "length")).toBe(true);
    expect(call("genai_is_truncated", messages, ["stop"])).toBe(false);
    expect(call("genai_estimate_tokens", "abcdefgh")).toBe(2);
    expect(call("genai_message_roles", "nope")).toBeNull();
  });
});

describe("values keep their runtime types", () => {
  it("bag_pack keeps datetimes and timespans as they are", () => {
    const t = new DateTime(5n);
    expect(call("bag_pack", "t", t, "d", new Timespan(1n))).toEqual({ t, d: new Timespan(1n) });
  });
});
