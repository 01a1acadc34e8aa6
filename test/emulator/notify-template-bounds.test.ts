/**
 * The custom webhook template's bounds (ours: the service renders with Go's text/template and publishes none; see
 * docs/emulator.md, "Custom webhook templates: our bounds"): the size of every value and of the output at every
 * write, the time of one render, the steps and the nesting, and no primitive slower than linear in its input.
 * Each row is a reproduction of a finding: it failed (killed the process, or took seconds to hours) before.
 *
 * The time budget is read on a clock the test passes (`limits.now`), a counter that moves a millisecond at each
 * reading, so that what passes the budget does so after the same work on a busy machine as on an idle one. The
 * memory bound is checked where it cannot be argued with: the issue's reproductions run in a worker thread whose
 * heap is capped at 64 MB, far below what each used to take (1 GB and more).
 */
import { Worker } from "node:worker_threads";
import { buildSync } from "esbuild";
import { channelMessage } from "../../emulator/alerting/notify/channels";
import { renderWebhookBody, TemplateError } from "../../emulator/alerting/notify/custom-webhook";
import { goSprintf } from "../../provider/go-template/go-fmt";
import { GoTemplate, type RenderLimits } from "../../provider/go-template/go-template";
import { parsedCacheSize, parseWebhookTemplate } from "../../provider/go-template/webhook";
import type { AlertEvent, OutboxEntry } from "../../emulator/alerting/notify";
import { api } from "../helpers/emulator";
import { createMonitor, eventsAt, ingest, startManual } from "../helpers/monitor-runs";

const event: AlertEvent = {
  time: 1719586557631364493n,
  monitor: { id: "mon_1", name: "Errors", description: "", type: "Threshold" },
  action: "Open",
  value: 57347,
  queryStartTime: 1719585957631364493n,
  queryEndTime: 1719586557631364493n,
  groupKeys: null,
  groupValues: null,
  matchedEvent: null,
  body: "Current value of 57347 is above or equal to the threshold value of 0",
};

/** A clock that moves 1 ms each time it is read, and counts its readings. */
function tickingClock(): { now: () => number; readings: () => number } {
  let t = 0;
  return { now: () => t++, readings: () => t };
}

/** A clock that never moves: the budget never passes, so another bound must stop the render. */
const frozen = { now: () => 0 };

function renderError(template: string, limits: Partial<RenderLimits> = {}, on = event): TemplateError {
  try {
    renderWebhookBody(template, on, limits);
  } catch (e) {
    if (e instanceof TemplateError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(template)} to fail`);
}

const MIB_TEXT = "1 MiB (1048576 bytes)";

/** The issue's body (218 bytes there, 224 here with a newline after each action): a million-character value doubled
 * eight times (256 MB), then copied. */
const DOUBLING =
  '{{$a := printf "%1000000d" 1}}\n' + "{{$a = print $a $a}}\n".repeat(8) + '{{$x := printf "%s" $a}}\n';
/** One printf of 500 verbs of a million characters each: 500 MB in one action. */
const FIVE_HUNDRED_VERBS = `{{printf "${"%1000000d".repeat(500)}"${" 1".repeat(500)}}}`;
/** A huge count, each iteration cheap: within the step limit's reach only after a million steps. */
const HUGE_RANGE = '{{range 1000000}}{{$x := printf "%d" 7}}{{end}}';
/** The issue's loop of 400 copies of an 8 MB value (it blocked every request for 28 s). */
const EIGHT_MB_LOOP = '{{$big := printf "%8000000s" "x"}}{{range 400}}{{$c := printf "%s" $big}}{{end}}';
/** A loop over a large value: 400 readings of a value of a million characters. */
const LARGE_VALUE_LOOP =
  '{{$big := printf "%1000000s" "x"}}{{range 400}}{{if eq (len $big) 0}}{{end}}{{end}}';

describe("the issue's reproductions fail naming the limit", () => {
  it.each([
    [
      "a value doubled with print",
      DOUBLING,
      `template: webhook:2:7: executing "webhook" at <print $a $a>: a template value passed the emulator's limit of ${MIB_TEXT}`,
    ],
    [
      "one printf of 500 verbs of a million characters",
      FIVE_HUNDRED_VERBS,
      `template: webhook:1:2: executing "webhook" at <printf "%1000000d%10...>: a template value passed the emulator's limit of ${MIB_TEXT}`,
    ],
  ])("%s", (_name, template, message) => {
    const e = renderError(template, frozen);
    expect([e.phase, e.limit, e.message]).toEqual(["exec", "value", message]);
  });

  it("a range over a huge count stops at the time budget, after 100 readings of a 1 ms clock", () => {
    const clock = tickingClock();
    const e = renderError(HUGE_RANGE, clock);
    expect([e.limit, e.message]).toEqual([
      "time",
      `template: webhook:1:25: executing "webhook" at <printf "%d" 7>: the render passed the emulator's budget of 100 ms`,
    ]);
    // Read at the start, then once per 256 units of work: the 102nd reading is the first past 100 ms.
    expect(clock.readings()).toBe(102);
  });

  it("a loop reading a large value stops at the budget: each reading of it is paid for by its size", () => {
    const clock = tickingClock();
    const e = renderError(LARGE_VALUE_LOOP, clock);
    expect(e.limit).toBe("time");
    expect(e.message).toContain("the render passed the emulator's budget of 100 ms");
    // Each `len` of a million characters is more than 256 units of work: the clock is read at each iteration.
    expect(clock.readings()).toBeLessThanOrEqual(102);
    // With a clock that never moves the same loop finishes: it is the budget that stopped it, nothing else.
    expect(renderWebhookBody(LARGE_VALUE_LOOP, event, frozen)).toBe("");
  });

  it("makes an over-limit render a failed send whose reason names the limit", () => {
    const message = channelMessage(
      "customWebhook",
      { url: "http://127.0.0.1:1/hook", body: DOUBLING },
      event,
    );
    expect(message.kind).toBe("invalid");
    expect(message.kind === "invalid" && message.reason).toBe(
      `customWebhook.body: template: webhook:2:7: executing "webhook" at <print $a $a>: a template value passed the emulator's limit of ${MIB_TEXT}`,
    );
  });

  // The memory bound, measured: each reproduction renders in a worker whose heap is capped at 64 MB, on the
  // emulator's own limits and clock. Before, the first died of "JavaScript heap out of memory" at 1 GB.
  it("each reproduction fails within a 64 MB heap, on the emulator's own clock", async () => {
    const results = await renderInSmallHeap([
      DOUBLING,
      FIVE_HUNDRED_VERBS,
      HUGE_RANGE,
      EIGHT_MB_LOOP,
      '{{printf "%.9999999f" 1.5}}',
    ]);
    expect(results.map((r) => r.limit)).toEqual(["value", "value", "time", "value", "value"]);
    // Generous: the budget is 100 ms, and the issue's promise is an answer within 2 s.
    for (const r of results) expect(r.ms).toBeLessThan(2000);
  });
});

describe("every bound, one row each", () => {
  it.each<[string, string, Partial<RenderLimits>, string, string]>([
    [
      "the output, at every write: one action cannot pass it (the second copy of a 1,000,000-byte value)",
      '{{$a := printf "%1000000d" 1}}{{$a}}{{$a}}',
      frozen,
      "output",
      `template: webhook:1:38: executing "webhook" at <$a>: the template's output passed the emulator's limit of ${MIB_TEXT}`,
    ],
    [
      "the output, counted in UTF-8 bytes: 100,000 times four three-byte characters are 1.2 MB",
      "{{range 100000}}€€€€{{end}}",
      frozen,
      "output",
      `template: webhook:1:0: executing "webhook" at <text>: the template's output passed the emulator's limit of ${MIB_TEXT}`,
    ],
    [
      // A smaller bound than the emulator's: a literal of 1 MiB is past the source's bound of 64 KiB.
      "a value's size, a literal's included",
      `{{$x := "${"y".repeat(1001)}"}}`,
      { ...frozen, maxValueBytes: 1000 },
      "value",
      `template: webhook:1:2: executing "webhook" at <$x := "yyyyyyyyyyyyy...>: a template value passed the emulator's limit of 1000 bytes`,
    ],
    [
      "a precision of ten million digits (refused before a digit is written)",
      '{{printf "%.9999999f" 1.5}}',
      frozen,
      "value",
      `template: webhook:1:2: executing "webhook" at <printf "%.9999999f" ...>: a template value passed the emulator's limit of ${MIB_TEXT}`,
    ],
    [
      "a width wider than the value limit",
      '{{printf "%2000000d" 1}}',
      frozen,
      "value",
      `template: webhook:1:2: executing "webhook" at <printf "%2000000d" 1>: a template value passed the emulator's limit of ${MIB_TEXT}`,
    ],
    [
      "an escaper's result (js writes six characters for one <)",
      "{{js .MatchedEvent.lt}}",
      frozen,
      "value",
      `template: webhook:1:2: executing "webhook" at <js .MatchedEvent.lt>: a template value passed the emulator's limit of ${MIB_TEXT}`,
    ],
    [
      "every value made, in all: 17 copies of a value of 1,000,000 characters are past 16 Mi characters",
      '{{$big := printf "%1000000s" "x"}}{{range 400}}{{$c := printf "%s" $big}}{{end}}',
      frozen,
      "values",
      `template: webhook:1:55: executing "webhook" at <printf "%s" $big>: the template's values passed the emulator's limit of 16777216 characters in all`,
    ],
    [
      "the steps, when the clock does not move (a tenth of the emulator's million, to keep this file fast)",
      "{{range 100000000000}}{{end}}",
      { ...frozen, maxSteps: 100_000 },
      "steps",
      `template: webhook:1:0: executing "webhook" at <range>: stopped after 100000 steps (the emulator's limit)`,
    ],
    [
      "template recursion (Go's own bound, lower)",
      '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}',
      frozen,
      "depth",
      `template: webhook:1:14: executing "webhook" at <template "r">: exceeded maximum template depth (1000)`,
    ],
    [
      "nesting within recursion",
      '{{define "r"}}{{if true}}{{with 1}}{{template "r" .}}{{end}}{{end}}{{end}}{{template "r" .}}',
      frozen,
      "depth",
      `template: webhook:1:14: executing "webhook" at <if>: the render nests deeper than the emulator's limit of 1000`,
    ],
  ])("%s", (_name, template, limits, limit, message) => {
    const e = renderError(template, limits, { ...event, matchedEvent: { lt: "<".repeat(200_000) } });
    expect([e.limit, e.message]).toEqual([limit, message]);
  });

  it("actions nest no deeper than 100 in the source (a parse error, no stack overflow)", () => {
    const deep = (n: number) => "{{if true}}".repeat(n) + "x" + "{{end}}".repeat(n);
    expect(renderWebhookBody(deep(100), event)).toBe("x");
    const e = renderError(deep(101));
    expect([e.phase, e.message]).toEqual([
      "parse",
      "template: webhook:1: actions nest deeper than the emulator's limit of 100",
    ]);
    const parens = (n: number) => "{{" + "(".repeat(n) + "1" + ")".repeat(n) + "}}";
    expect(renderWebhookBody(parens(99), event)).toBe("1");
    expect(renderError(parens(10_000)).message).toBe(
      "template: webhook:1: actions nest deeper than the emulator's limit of 100",
    );
  });

  it("a template holds at most 10,000 actions and comments (13,000 `{{.}}` fit in its 64 KiB)", () => {
    expect(renderWebhookBody("{{/**/}}{{1}}".repeat(5_000), event)).toBe("1".repeat(5_000));
    const e = renderError("{{/**/}}{{1}}".repeat(5_000) + "{{1}}");
    expect([e.phase, e.message]).toEqual([
      "parse",
      "template: webhook:1: the template holds more than the emulator's limit of 10000 actions",
    ]);
    expect(renderError("{{.}}".repeat(13_000)).message).toBe(e.message);
  });

  it("fixed-point digits come out as before, built in pieces", () => {
    expect(goSprintf("%.3f|%.12f|%.0f|%f|%.2f", [1.5, 0.000123, 2.5, 1e21, -0.001])).toBe(
      "1.500|0.000123000000|2|1000000000000000000000.000000|-0.00",
    );
  });

  it("a template within every bound renders as before", () => {
    expect(
      renderWebhookBody('{{printf "%1000000d" 1 | len}} {{printf "%.3s|%5s" "abcdef" "é"}}', event),
    ).toBe("1000000 abc|    é");
  });
});

describe("no primitive slower than linear in its input", () => {
  it("padding measures the value no further than the width (it spread a 256-million-character value)", () => {
    // A rope of 2^28 characters, never flattened: the old pad() made an array of every one of its characters.
    const huge = "ab".repeat(1 << 27);
    expect(goSprintf("%5s", [huge]).length).toBe(1 << 28);
    expect(goSprintf("%-5s|", ["é"])).toBe("é    |");
    expect(goSprintf("%.2s", ["ab".repeat(1 << 20)])).toBe("ab");
    expect(goSprintf("%.1s", ["😀x"])).toBe("😀");
  });

  it("trim markers after a long run of spaces parse in linear time (the regex backtracked quadratically)", () => {
    const template = " ".repeat(60_000) + "x   {{- 1}}";
    const started = performance.now();
    expect(renderWebhookBody(template, event)).toBe(" ".repeat(60_000) + "x1");
    // Generous (the issue's 2 s): linear time over 60,000 spaces is far below it, quadratic time far above.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("a long time layout (past the 256 characters kept parsed) formats as its pieces do", () => {
    const piece = "Mon Jan _2 15:04:05.000 2006 x ";
    const one = renderWebhookBody(`{{.QueryEndTime.Format "${piece}"}}`, event);
    expect(renderWebhookBody(`{{.QueryEndTime.Format "${piece.repeat(100)}"}}`, event)).toBe(one.repeat(100));
    expect(one).toBe("Fri Jun 28 14:55:57.631 2024 x ");
  });

  it("jsonObject escapes in one pass as Go's json.Marshal does (quotes, controls, < > &, U+2028 and U+2029)", () => {
    const s = '"\\\n\r\t\b\f\u0001<>&\u2028\u2029é';
    expect(renderWebhookBody("{{jsonObject .MatchedEvent}}", { ...event, matchedEvent: { s } })).toBe(
      '{"s":"\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u003c\\u003e\\u0026\\u2028\\u2029é"}',
    );
  });

  it("%c of an int that is no character writes U+FFFD, as Go does, where it threw", () => {
    expect(renderWebhookBody('{{printf "%c|%c|%c" 1114112 -1 55296}}', event)).toBe("\uFFFD|\uFFFD|\uFFFD");
  });

  it("urlquery of a lone surrogate writes U+FFFD's encoding, where it threw URIError", () => {
    expect(
      renderWebhookBody("{{urlquery .MatchedEvent.s}}", { ...event, matchedEvent: { s: "a\uD800b" } }),
    ).toBe("a%EF%BF%BDb");
  });

  it("an error quotes a long value briefly (the reason is no place for a megabyte)", () => {
    const e = renderError('{{range (printf "%100000s" "x")}}{{end}}');
    expect(e.message).toBe(
      `template: webhook:1:8: executing "webhook" at <(printf "%100000s" "...>: range can't iterate over <a string of more than 200 characters>`,
    );
  });
});

/** One action of `n` arguments: `head` then `arg` n times (60,000 bytes for 30,000 one-character arguments). */
const manyArgs = (head: string, arg: string, n: number) => `{{${head}${` ${arg}`.repeat(n)}}}`;

/** What parsing `source` throws, a TemplateError. */
function parseError(source: string): TemplateError {
  try {
    parseWebhookTemplate(source);
  } catch (e) {
    if (e instanceof TemplateError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(source.slice(0, 40))}… to fail to parse`);
}

const SOURCE_BOUND = "the template's source passed the emulator's limit of 64 KiB (65536 bytes) of UTF-8";

describe("a template's source is bounded: 64 KiB of UTF-8, parsed in one pass", () => {
  it("a source past 64 KiB is refused before it is parsed, and never kept in the parse cache", () => {
    // The issue's 7 MB of `\x41` in one string took 7 s to parse; here a megabyte, refused at once.
    const huge = `{{"${"\\x41".repeat(250_000)}"}}`;
    const before = parsedCacheSize();
    const e = parseError(huge);
    expect([e.phase, e.limit, e.message]).toEqual(["parse", "source", `template: webhook: ${SOURCE_BOUND}`]);
    // The parser itself refuses it too, whoever calls it.
    expect(() => GoTemplate.parse("webhook", huge)).toThrow(`template: webhook: ${SOURCE_BOUND}`);
    // Twenty refused 30 MB sources held 600 MB as the cache's keys.
    expect(parsedCacheSize()).toEqual(before);
  });

  it("the bound counts UTF-8 bytes: 32,768 two-byte characters pass, one more byte is past it", () => {
    expect(renderWebhookBody("é".repeat(32_768), event)).toBe("é".repeat(32_768));
    expect(parseError("é".repeat(32_768) + "x").limit).toBe("source");
    // 21,845 three-byte characters (65,535 bytes) are within it, though they need no count past 21,845 units.
    expect(renderWebhookBody("€".repeat(21_845), event)).toHaveLength(21_845);
    expect(parseError("€".repeat(21_846)).limit).toBe("source");
  });

  it("the parse cache holds at most 256 sources and 512 Ki characters of them", () => {
    for (let i = 0; i < 300; i++) parseWebhookTemplate(`{{/* ${i} */}}x`);
    expect(parsedCacheSize().entries).toBe(256);
    for (let i = 0; i < 12; i++) parseWebhookTemplate(`${i}${"y".repeat(60_000)}`);
    const { entries, chars } = parsedCacheSize();
    expect(chars).toBeLessThanOrEqual(512 * 1024);
    expect(entries).toBeLessThan(256);
  });

  it.each([
    ["\\x41\\x4a\\x4A", "AJJ"],
    ["\\u00e9\\U0001F600", "é😀"],
    ['\\101\\n\\t\\\\\\"', 'A\n\t\\"'],
    ["plain, then \\a", "plain, then \x07"],
  ])("a string's escapes unquote as Go's do: %s", (escaped, value) => {
    expect(renderWebhookBody(`{{print "${escaped}"}}`, event)).toBe(value);
  });

  it.each([
    ["a code point past U+10FFFF (it threw RangeError)", "\\U00110000"],
    ["a surrogate", "\\uD800"],
    ["an octal escape past 255", "\\400"],
    ["too few hex digits", "\\x4"],
    ["a digit that is not hex", "\\x4g"],
    ["an unknown escape", "\\q"],
  ])("a malformed escape is Go's syntax error: %s", (_name, escaped) => {
    expect(parseError(`{{"${escaped}"}}`).message).toBe(
      `template: webhook:1: invalid syntax in quoted string "${escaped}"`,
    );
  });

  it("16,000 escapes in one string (the most the bound holds) unquote to their characters", () => {
    expect(renderWebhookBody(`{{"${"\\x41".repeat(16_000)}"}}`, event)).toBe("A".repeat(16_000));
  });

  it("100 levels of parentheses around 30,000 arguments parse once each (each level rescanned them all)", () => {
    const deep = `{{len ${"(".repeat(99)}print${" 1".repeat(30_000)}${")".repeat(99)}}}`;
    expect(renderWebhookBody(deep, event, frozen)).toBe("59999");
    expect(parseError("{{print ) (1}}").message).toBe("template: webhook:1: unexpected right paren");
    expect(parseError("{{print (1}}").message).toBe("template: webhook:1: unclosed left paren");
  });
});

describe("the time budget is checked while a command's arguments are evaluated and used", () => {
  // Before, the budget was read once before a function ran and not while its arguments were evaluated: one
  // action of 30,000 arguments read the 1 ms clock three times and rendered in full (500,000 took 1.9 s).
  it.each([
    ["eq of 30,000 arguments", manyArgs("eq 1", "1", 30_000), "eq 1 1 1 1 1 1 1 1 1..."],
    ["and of 30,000 arguments", manyArgs("and", "1", 30_000), "and 1 1 1 1 1 1 1 1 ..."],
    ["or of 30,000 arguments", manyArgs("or", "0", 30_000), "or 0 0 0 0 0 0 0 0 0..."],
    ["print of 30,000 arguments", manyArgs("print", "1", 30_000), "print 1 1 1 1 1 1 1 ..."],
    [
      "a method's 30,000 arguments (each was evaluated before the call was refused)",
      manyArgs(".QueryEndTime.Format", "1", 30_000),
      ".QueryEndTime.Format...",
    ],
  ])("%s stops at the budget, naming the command", (_name, template, context) => {
    const clock = tickingClock();
    const e = renderError(template, clock);
    expect([e.limit, e.message]).toEqual([
      "time",
      `template: webhook:1:2: executing "webhook" at <${context}>: the render passed the emulator's budget of 100 ms`,
    ]);
    // Read at the start, then once per 256 arguments: the 102nd reading is the first past 100 ms.
    expect(clock.readings()).toBe(102);
  });

  it("eq pays for each comparison as it makes it: 2,000 comparisons of 100,000 characters stop at the budget", () => {
    const template =
      '{{$a := printf "%100000s" "x"}}{{$b := printf "%100000s" "y"}}' + manyArgs("eq $a", "$b", 2_000);
    const clock = tickingClock();
    const e = renderError(template, clock);
    expect(e.limit).toBe("time");
    expect(e.message).toContain(
      "at <eq $a $b $b $b $b $b...>: the render passed the emulator's budget of 100 ms",
    );
    // Each comparison of 100,000 characters is past 256 units: the clock is read at each, so it stops at once.
    expect(clock.readings()).toBe(102);
    // With a clock that never moves the same comparisons finish: it is the budget that stopped them.
    expect(renderWebhookBody(template, event, frozen)).toBe("false");
  });
});

describe("a running emulator answers other requests while hostile templates render", () => {
  // Templates that each run to a bound on the emulator's own clock: the issue's loop over an 8 MB value (28 s of
  // a blocked server before), a huge count (hours before), and a loop indexing the end of a 1 MB value (each reading pays for its size).
  const hostile = [
    EIGHT_MB_LOOP,
    HUGE_RANGE,
    '{{$big := printf "%1000000s" "x"}}{{range 100000}}{{index $big 999999}}{{end}}',
  ];

  it("answers GET /v2/monitors within 2 s throughout, and each send fails naming its limit", async () => {
    const em = await startManual();
    try {
      const ids: string[] = [];
      for (const [i, body] of hostile.entries()) {
        const res = await api(em, "POST", "/v2/notifiers", {
          name: `hostile ${i}`,
          properties: { customWebhook: { url: "http://127.0.0.1:9/hook", body } },
        });
        expect(res.status).toBe(200);
        ids.push(res.body.id as string);
      }
      // Ten groups open at once: ten events, each to the three notifiers, thirty renders in one run (which, with
      // no turn given to other requests between two renders, blocked the server for 2.5 s).
      await ingest(
        em,
        ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].flatMap((service) => eventsAt(0, 1, { service })),
      );
      const m = await createMonitor(em, {
        aplQuery: "['logs'] | summarize count() by service",
        notifyByGroup: true,
        notifierIds: ids,
      });

      let done = false;
      const advance = api(em, "POST", "/_emulator/clock", { advance: "1m" }).finally(() => (done = true));
      const waits: number[] = [];
      while (!done) {
        const started = performance.now();
        const res = await api(em, "GET", "/v2/monitors");
        waits.push(performance.now() - started);
        expect(res.status).toBe(200);
      }
      expect((await advance).status).toBe(200);
      // The issue's promise: an answer within 2 s, however hostile a template (each render stops at 100 ms).
      expect(Math.max(...waits)).toBeLessThan(2000);

      const rows = (await api(em, "GET", `/_emulator/notifications?monitorId=${m.id}`)).body as OutboxEntry[];
      expect(rows).toHaveLength(30);
      const limitOf = (reason = "") =>
        /a template value passed/.test(reason)
          ? "value"
          : /passed the emulator's budget of 100 ms/.test(reason)
            ? "time"
            : reason;
      expect(rows.map((r) => [r.outcome, limitOf(r.reason)])).toEqual(
        Array.from({ length: 10 }, () => [
          ["failed", "value"],
          ["failed", "time"],
          ["failed", "time"],
        ]).flat(),
      );
    } finally {
      await em.close();
    }
  });
});

interface WorkerResult {
  limit?: string;
  message?: string;
  ms: number;
}

/**
 * Renders each template in a worker thread whose heap is capped at 64 MB, the renderer bundled for it (esbuild,
 * a dev dependency). A render that needs more memory ends the worker with ERR_WORKER_OUT_OF_MEMORY, failing the
 * test; the test's own process is unharmed.
 */
async function renderInSmallHeap(templates: string[]): Promise<WorkerResult[]> {
  const bundle = buildSync({
    entryPoints: [require.resolve("../../emulator/alerting/notify/custom-webhook")],
    bundle: true,
    platform: "node",
    format: "iife",
    globalName: "renderer",
    write: false,
    logLevel: "silent",
  }).outputFiles[0].text;
  const main = `
    const { parentPort, workerData } = require("node:worker_threads");
    const results = workerData.templates.map((t) => {
      const started = performance.now();
      try {
        renderer.renderWebhookBody(t, { ...workerData.event, time: BigInt(workerData.event.time),
          queryStartTime: BigInt(workerData.event.queryStartTime), queryEndTime: BigInt(workerData.event.queryEndTime) });
        return { ms: performance.now() - started };
      } catch (e) {
        return { limit: e.limit, message: e.message, ms: performance.now() - started };
      }
    });
    parentPort.postMessage(results);
  `;
  const plain = {
    ...event,
    time: String(event.time),
    queryStartTime: String(event.queryStartTime),
    queryEndTime: String(event.queryEndTime),
  };
  const worker = new Worker(bundle + main, {
    eval: true,
    workerData: { templates, event: plain },
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  });
  try {
    return await new Promise<WorkerResult[]>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the worker exited with code ${code}`)));
    });
  } finally {
    await worker.terminate();
  }
}
