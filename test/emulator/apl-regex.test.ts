/**
 * emulator/apl/regex.ts: RE2 semantics on re2js (linear-time matching), the errors it gives for patterns RE2
 * rejects, the flags, the replacement syntax APL documents (apl/scalar-functions/string-functions/replace-regex:
 * "$0 for the entire match, $1 for the first capture group"), and the compiled-regex cache's bound.
 */
import { compileRegex, InvalidRegexError, REGEX_CACHE_LIMIT, regexCacheSize } from "../../emulator/apl/regex";
import { AplError } from "../../emulator/apl/errors";

/** The message compileRegex throws for `pattern`, or "" when it compiles. */
function compileError(pattern: string): string {
  try {
    compileRegex(pattern);
    return "";
  } catch (e) {
    expect(e).toBeInstanceOf(AplError);
    return (e as Error).message;
  }
}

describe("linear time", () => {
  it("(a+)+$ over a 100,000-character subject answers (a backtracking engine would not finish)", () => {
    const subject = "a".repeat(100_000) + "!";
    const re = compileRegex("(a+)+$");
    expect(re.test(subject)).toBe(false);
    expect(re.exec(subject)).toBeNull();
    expect(re.execAll(subject)).toEqual([]);
    expect(re.replaceAll(subject, "x")).toBe(subject);
  });

  it("(x+x+)+y and nested alternations over long subjects answer too", () => {
    expect(compileRegex("(x+x+)+y").test("x".repeat(50_000))).toBe(false);
    expect(compileRegex("^(a|a?)+$").test("a".repeat(50_000) + "b")).toBe(false);
    expect(compileRegex("(a+)+$").test("a".repeat(100_000))).toBe(true);
  });
});

describe("RE2 syntax", () => {
  it.each([
    ["(a)\\1", /backreferences such as `\\1` are not supported/],
    ["(?<n>a)\\k<n>", /invalid regex .*\\k/],
    ["(?=a)b", /lookaround `\(\?=` is not supported/],
    ["(?!a)b", /lookaround `\(\?!` is not supported/],
    ["(?<=a)b", /lookaround `\(\?<=` is not supported/],
    ["(", /missing closing \)/],
    ["a**", /invalid nested repetition operator: `\*\*`/],
    ["[z-a]", /invalid character class range: `z-a`/],
    ["x{2000}", /invalid repeat count/],
  ])("%s is refused: %s", (pattern, message) => {
    const text = compileError(pattern);
    expect(text).toMatch(/^invalid regex /);
    expect(text).toContain(JSON.stringify(pattern));
    expect(text).toMatch(message);
  });

  it("the error carries the pattern and the problem for the compiler to place", () => {
    try {
      compileRegex("(a)\\2");
      throw new Error("compiled");
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidRegexError);
      expect((e as InvalidRegexError).pattern).toBe("(a)\\2");
      expect((e as InvalidRegexError).problem).toMatch(/backreference/);
      expect((e as InvalidRegexError).errorType).toBe("semantic");
    }
  });

  it("named groups in both spellings, (?P<name>...) and (?<name>...)", () => {
    const re = compileRegex("(?P<user>\\w+)@(?<host>[a-z.]+)|(x)");
    expect(re.groupNames()).toEqual(["", "user", "host", ""]);
    expect(re.groupCount()).toBe(3);
    expect(re.exec("mail: ann@example.com")).toEqual(["ann@example.com", "ann", "example.com", undefined]);
    expect(re.replaceAll("ann@example.com", "${host}/${user}")).toBe("example.com/ann");
  });

  it("leftmost-first alternation, as RE2 and Perl do", () => {
    expect(compileRegex("a|ab").exec("ab")).toEqual(["a"]);
  });
});

describe("flags", () => {
  it("caseInsensitive, and the inline (?i)", () => {
    expect(compileRegex("abc").test("xABCx")).toBe(false);
    expect(compileRegex("abc", { caseInsensitive: true }).test("xABCx")).toBe(true);
    expect(compileRegex("(?i)abc").test("xABCx")).toBe(true);
  });

  it("dotAll lets . match a newline", () => {
    expect(compileRegex("a.b").test("a\nb")).toBe(false);
    expect(compileRegex("a.b", { dotAll: true }).test("a\nb")).toBe(true);
  });

  it("multiline makes ^ and $ match at line breaks", () => {
    expect(compileRegex("^b$").test("a\nb\nc")).toBe(false);
    expect(compileRegex("^b$", { multiline: true }).test("a\nb\nc")).toBe(true);
  });

  it("the same pattern with other flags is another regex", () => {
    const plain = compileRegex("q");
    const folded = compileRegex("q", { caseInsensitive: true });
    expect(plain).not.toBe(folded);
    expect(compileRegex("q")).toBe(plain);
  });
});

describe("matching", () => {
  it("exec: groups that took no part are undefined", () => {
    expect(compileRegex("(a)|(b)").exec("b")).toEqual(["b", undefined, "b"]);
    expect(compileRegex("z").exec("abc")).toBeNull();
  });

  it("execAll: every non-overlapping match, empty matches included once per position", () => {
    expect(compileRegex("(\\d+)-(\\d+)").execAll("1-2, 30-40, x")).toEqual([
      ["1-2", "1", "2"],
      ["30-40", "30", "40"],
    ]);
    expect(
      compileRegex("x*")
        .execAll("ab")
        .map((g) => g[0]),
    ).toEqual(["", "", ""]);
  });

  it("firstIndex: UTF-16 offsets of the first match", () => {
    expect(compileRegex("\\bcat").firstIndex("concat cat")).toEqual([7, 10]);
    expect(compileRegex("é+").firstIndex("😀ééb")).toEqual([2, 4]);
    expect(compileRegex("z").firstIndex("abc")).toBeNull();
  });

  it("count: the number of matches, empty ones included", () => {
    expect(compileRegex("x*").count("ab")).toBe(3);
    expect(compileRegex("\\d+").count("1-2, 30-40, x")).toBe(4);
    expect(compileRegex("z").count("abc")).toBe(0);
  });

  it("works on non-ASCII text (UTF-16 positions)", () => {
    expect(compileRegex("(é+)b").exec("xééb")).toEqual(["ééb", "éé"]);
    expect(compileRegex("é").replaceAll("héé😀é", "e")).toBe("hee😀e");
    expect(compileRegex("\\p{Greek}+").exec("abc αβγ")?.[0]).toBe("αβγ");
  });

  it.each([
    ["^(2[0-9]{2})$", "SUCCESS-$1", "200", "SUCCESS-200"],
    ["([0-9]+)ms", "$1 milliseconds", "12ms", "12 milliseconds"],
    ["(a)(n)", "\\2\\1", "banana", "bnanaa"],
    ["a", "<$0>", "banana", "b<a>n<a>n<a>"],
    ["a", "$$", "ab", "$b"],
    ["a", "$9", "ab", "b"],
    ["a", "${nope}", "ab", "${nope}b"],
    ["", "-", "ab", "-a-b-"],
  ])("replaceAll(%s, %s) over %s gives %s", (pattern, replacement, subject, expected) => {
    expect(compileRegex(pattern).replaceAll(subject, replacement)).toBe(expected);
  });

  it("split keeps empty pieces, like a string split", () => {
    expect(compileRegex(",\\s*").split("a, b,,c,")).toEqual(["a", "b", "", "c", ""]);
    expect(compileRegex("x").split("")).toEqual([""]);
    expect(compileRegex("").split("abc")).toEqual(["a", "b", "c"]);
  });
});

describe("cache", () => {
  it("returns the compiled regex for a repeated pattern and stays within its bound", () => {
    const first = compileRegex("cache-probe-0");
    expect(compileRegex("cache-probe-0")).toBe(first);
    for (let i = 1; i <= REGEX_CACHE_LIMIT + 50; i++) compileRegex(`cache-probe-${i}`);
    expect(regexCacheSize()).toBe(REGEX_CACHE_LIMIT);
    // The oldest entry was evicted: compiling it again gives a fresh object.
    expect(compileRegex("cache-probe-0")).not.toBe(first);
  });
});
