/**
 * Property: a custom webhook template built at random from every action (text, output, variables declared and
 * assigned, if/else, with, range with break and continue, define/template/block, comments, trim markers) and every
 * function (and, or, not, len, index, slice, print, printf, println, html, js, urlquery, eq, ne, lt, le, gt, ge,
 * call, jsonObject, jsonArray, time methods), with random sizes (widths and precisions up to two million, counts
 * up to a hundred million, values of the data up to 300,000 characters, doublings), either renders within the
 * output bound or fails with a template error, one past a bound naming it; never another error, never longer than
 * the issue's 2 s.
 *
 * Two runs of the same generator:
 * - here, on a clock that moves 1 ms at each reading (so that which render passes the budget does not depend on
 *   the machine's speed), every outcome checked;
 * - in a worker thread whose heap is capped at 64 MB, on the emulator's own clock: none runs out of memory.
 */
import { Worker } from "node:worker_threads";
import { buildSync } from "esbuild";
import fc from "fast-check";
import { renderWebhookBody, TemplateError } from "../../emulator/alerting/notify/custom-webhook";
import { RENDER_LIMITS, type LimitName } from "../../provider/go-template/go-template";
import type { AlertEvent } from "../../emulator/alerting/notify";

// One seed for every run, so CI and a laptop draw the same cases and a failure reproduces; FC_SEED explores others
// (FC_SEED=$RANDOM npx jest <this file>), as a property test should be run now and then.
const SEED = Number(process.env.FC_SEED ?? 20261204);
fc.configureGlobal({ seed: SEED });

/** What each limit's message says: a failure naming its bound. */
const PHRASE: Record<LimitName, RegExp> = {
  output: /the template's output passed the emulator's limit of 1 MiB \(1048576 bytes\)$/,
  value: /a template value passed the emulator's limit of 1 MiB \(1048576 bytes\)$/,
  values: /the template's values passed the emulator's limit of 16777216 characters in all$/,
  time: /the render passed the emulator's budget of 100 ms$/,
  steps: /stopped after 1000000 steps \(the emulator's limit\)$/,
  depth:
    /exceeded maximum template depth \(1000\)$|the render nests deeper than the emulator's limit of 1000$/,
  source: /the template's source passed the emulator's limit of 64 KiB \(65536 bytes\) of UTF-8$/,
};

// ---------------------------------------------------------------------------------------------------------------
// The generator

const VARS = ["$v0", "$v1", "$v2"];

const int = fc
  .oneof(
    fc.integer({ min: -3, max: 12 }),
    fc.constantFrom(255, 1000, 65_536, 999_999, 1_000_000, 2_000_000, 100_000_000),
  )
  .map(String);

const stringLiteral = fc
  .oneof(fc.stringMatching(/^[a-z<>&'= %\\\n]{0,8}$/), fc.constantFrom("é", "😀x", "a\u0000b", "\uD800"))
  .map((s) => JSON.stringify(s));

/** A printf format: text and verbs with flags, widths and precisions, some verbs repeated up to 500 times. */
const format = fc
  .array(
    fc
      .tuple(
        fc.constantFrom("", "-", "0", "+", " ", "#"),
        fc.oneof(fc.constant(""), fc.constantFrom("3", "12", "*", "999999", "1000000", "2000000")),
        fc.oneof(fc.constant(""), fc.constantFrom(".0", ".2", ".*", ".1000000")),
        fc.constantFrom(..."vdsqxXofeEgGtcTb%"),
        fc.constantFrom(1, 1, 1, 2, 50, 500),
        fc.stringMatching(/^[a-z ]{0,3}$/),
      )
      .map(([flag, width, prec, verb, times, text]) =>
        (text + "%" + flag + width + prec + verb).repeat(times),
      ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => JSON.stringify(parts.join("")));

const field = fc.constantFrom(
  ".",
  "$",
  ".Title",
  ".Value",
  ".Action",
  ".Body",
  ".GroupKeys",
  ".GroupValues",
  ".MatchedEvent",
  ".MatchedEvent.big",
  ".MatchedEvent.lt",
  ".MatchedEvent.list",
  ".MatchedEvent.n",
  ".QueryEndTime",
  ".QueryEndTime.Unix",
  '.QueryEndTime.Format "2006-01-02T15:04:05.000Z07:00 Monday"',
  "true",
  "false",
  "1.5",
  "1e300",
);

/** Every function, with the numbers of arguments it takes (a few calls are drawn with one too many or too few). */
const FUNCS: Record<string, [number, number]> = {
  and: [1, 3],
  or: [1, 3],
  not: [1, 1],
  len: [1, 1],
  index: [1, 2],
  slice: [1, 3],
  print: [1, 3],
  printf: [0, 3],
  println: [1, 3],
  html: [1, 2],
  js: [1, 2],
  urlquery: [1, 2],
  eq: [2, 3],
  ne: [2, 2],
  lt: [2, 2],
  le: [2, 2],
  gt: [2, 2],
  ge: [2, 2],
  call: [1, 1],
  jsonObject: [1, 1],
  jsonArray: [1, 1],
};
const NAMES = Object.keys(FUNCS);

/** An operand, or a call (parenthesized) whose arguments are expressions one level shallower. */
function expr(depth: number): fc.Arbitrary<string> {
  const leaf = fc.oneof(field, int, stringLiteral, fc.constantFrom(...VARS));
  if (depth <= 0) return leaf;
  const call = fc.constantFrom(...NAMES).chain((f) => {
    const [min, max] = FUNCS[f];
    return fc
      .tuple(
        fc.array(expr(depth - 1), { minLength: Math.max(0, min - 1), maxLength: max + 1 }),
        format,
        fc.integer({ min: 0, max: 9 }),
      )
      .map(([args, fmt, odd]) => {
        // Mostly within the function's arity, now and then one argument too many or too few.
        const n = odd === 0 ? args.length : Math.min(Math.max(args.length, min), max);
        const list = [...args, ...Array.from({ length: n }, () => "1")].slice(0, n);
        return `(${f} ${f === "printf" ? [fmt, ...list].join(" ") : list.join(" ")})`;
      });
  });
  return fc.oneof({ weight: 2, arbitrary: leaf }, { weight: 3, arbitrary: call });
}

/** A pipeline: an expression, sometimes piped into a function. */
function pipeline(depth: number): fc.Arbitrary<string> {
  return fc
    .tuple(expr(depth), fc.option(fc.constantFrom(...NAMES), { nil: undefined, freq: 3 }))
    .map(([e, f]) => (f ? `${e} | ${f}` : e));
}

/** A list of statements; `inRange` allows break and continue. */
function statements(depth: number, inRange: boolean): fc.Arbitrary<string> {
  const simple: fc.Arbitrary<string>[] = [
    fc.oneof(
      fc.stringMatching(/^[a-z} \n]{0,6}$/),
      fc.constantFrom(" ".repeat(1000), "€".repeat(100), "\n  "),
    ),
    pipeline(2).map((p) => `{{${p}}}`),
    pipeline(2).map((p) => `{{- ${p} -}}`),
    fc.tuple(fc.constantFrom(...VARS), pipeline(2)).map(([v, p]) => `{{${v} = ${p}}}`),
    fc.constantFrom(...VARS).map((v) => `{{${v} = print ${v} ${v}}}`),
    fc.constant("{{/* a comment */}}"),
    fc.constant('{{template "t" .}}'),
    fc.constant('{{block "b" .Title}}{{.}}{{end}}'),
  ];
  if (inRange) simple.push(fc.constantFrom("{{break}}", "{{continue}}"));
  // Statements that grow or re-read the (string) variables: what reaches the bounds rather than Go's type errors.
  const v = fc.constantFrom(...VARS);
  const growing: fc.Arbitrary<string>[] = [
    fc
      .tuple(v, format, fc.array(int, { maxLength: 3 }))
      .map(([x, f, a]) => `{{${x} = printf ${f} ${a.join(" ")}}}`),
    fc.tuple(v, v).map(([x, y]) => `{{${x} = print ${x} ${y}}}`),
    fc.tuple(v, v).map(([x, y]) => `{{${x}}}{{${y}}}{{${x}}}`),
    fc.constantFrom("1000000", "100000000").map((n) => `{{range ${n}}}.{{end}}`),
    fc
      .constantFrom("%1000000d", "%-600000s", "%0999999x")
      .map((f) => `{{range 3}}{{printf "${f}" 1}}{{end}}`),
    fc
      .tuple(fc.constantFrom("js", "html", "urlquery", "len", "print", "println"), v)
      .map(([f, x]) => `{{${f} ${x}}}`),
    fc
      .tuple(v, fc.constantFrom("0", "1", "999999"))
      .map(([x, i]) => `{{index ${x} ${i}}}{{slice ${x} ${i}}}`),
    fc
      .tuple(v, fc.constantFrom("%v", "%q", "%x", "%-2000000s", "%.1000000f"))
      .map(([x, f]) => `{{printf "${f}" ${x}}}`),
  ];
  simple.push(...growing, ...growing);
  const compound =
    depth <= 0
      ? []
      : [
          fc
            .tuple(pipeline(1), statements(depth - 1, inRange), statements(depth - 1, inRange))
            .map(([p, a, b]) => `{{if ${p}}}${a}{{else}}${b}{{end}}`),
          fc.tuple(pipeline(1), statements(depth - 1, inRange)).map(([p, a]) => `{{with ${p}}}${a}{{end}}`),
          fc
            .tuple(fc.oneof(int, field, fc.constantFrom(...VARS)), fc.boolean(), statements(depth - 1, true))
            .map(([p, vars, body]) => `{{range ${vars ? "$i, $e := " : ""}${p}}}${body}{{end}}`),
          fc.tuple(int, statements(depth - 1, true)).map(([n, body]) => `{{range ${n}}}${body}{{end}}`),
        ];
  return fc.array(fc.oneof(...simple, ...compound), { minLength: 1, maxLength: 4 }).map((s) => s.join(""));
}

/** A whole template: the variables declared, a template "t" defined (it may call itself), then statements. */
const template = fc
  .tuple(statements(1, false), statements(2, false))
  .map(
    ([t, body]) =>
      `{{$v0 := "ab"}}{{$v1 := "é<"}}{{$v2 := .Title}}{{define "t"}}${t.replace(/\$v\d/g, "$")}{{end}}${body}`,
  );

/** The data: a matched event whose strings are up to 300,000 characters. */
const eventArb = fc
  .tuple(fc.constantFrom(0, 10, 1000, 300_000), fc.constantFrom(0, 5, 100_000))
  .map(([big, lt]): AlertEvent => ({
    time: 1719586557631364493n,
    monitor: { id: "mon_1", name: "Errors", description: "", type: "MatchEvent" },
    action: "Open",
    value: 3,
    queryStartTime: 1719585957631364493n,
    queryEndTime: 1719586557631364493n,
    groupKeys: ["service"],
    groupValues: ["checkout"],
    matchedEvent: { big: "x".repeat(big), lt: "<".repeat(lt), list: [1, "a", null], n: 5 },
    body: "b",
  }));

// ---------------------------------------------------------------------------------------------------------------

type Outcome = { ok: true; bytes: number } | { ok: false; limit?: LimitName; message: string };

function check(outcome: Outcome, ms: number): void {
  if (outcome.ok) expect(outcome.bytes).toBeLessThanOrEqual(RENDER_LIMITS.maxOutputBytes);
  else if (outcome.limit) expect(outcome.message).toMatch(PHRASE[outcome.limit]);
  // Generous, and what the issue demands: the budget is 100 ms; a render past 2 s would stall the server.
  expect(ms).toBeLessThan(2000);
}

describe("random templates finish within their bounds or fail naming one", () => {
  it("on a clock that moves 1 ms at each reading", () => {
    const limitsSeen = new Set<string>();
    fc.assert(
      fc.property(template, eventArb, (source, event) => {
        let t = 0;
        const started = performance.now();
        let outcome: Outcome;
        try {
          const body = renderWebhookBody(source, event, { now: () => t++ });
          outcome = { ok: true, bytes: Buffer.byteLength(body) };
        } catch (e) {
          // Any other error is a bug of the renderer's: the property fails on it.
          if (!(e instanceof TemplateError)) throw e;
          outcome = { ok: false, limit: e.limit, message: e.message };
          limitsSeen.add(e.limit ?? e.phase);
        }
        check(outcome, performance.now() - started);
      }),
      { numRuns: 200 },
    );
    // The generator reaches the bounds, not only Go's own errors.
    expect([...limitsSeen].sort()).toEqual(expect.arrayContaining(["exec", "output", "time", "value"]));
  });

  it("in a worker with a 64 MB heap, on the emulator's own clock", async () => {
    const cases = fc.sample(fc.tuple(template, eventArb), { numRuns: 30, seed: SEED });
    const results = await renderInSmallHeap(cases);
    results.forEach((r) => check(r.outcome, r.ms));
  });
});

/**
 * Renders each case in a worker thread whose heap is capped at 64 MB, the renderer bundled for it (esbuild, a dev
 * dependency). A render that needs more memory ends the worker with ERR_WORKER_OUT_OF_MEMORY, failing the test.
 */
async function renderInSmallHeap(cases: [string, AlertEvent][]): Promise<{ outcome: Outcome; ms: number }[]> {
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
    const big = (s) => BigInt(s);
    parentPort.postMessage(workerData.map(([source, e]) => {
      const event = { ...e, time: big(e.time), queryStartTime: big(e.queryStartTime), queryEndTime: big(e.queryEndTime) };
      const started = performance.now();
      let outcome;
      try {
        outcome = { ok: true, bytes: Buffer.byteLength(renderer.renderWebhookBody(source, event)) };
      } catch (e) {
        if (!(e instanceof renderer.TemplateError)) throw e;
        outcome = { ok: false, limit: e.limit, message: e.message };
      }
      return { outcome, ms: performance.now() - started };
    }));
  `;
  const plain = cases.map(([source, e]) => [
    source,
    {
      ...e,
      time: String(e.time),
      queryStartTime: String(e.queryStartTime),
      queryEndTime: String(e.queryEndTime),
    },
  ]);
  const worker = new Worker(bundle + main, {
    eval: true,
    workerData: plain,
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  });
  try {
    return await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the worker exited with code ${code}`)));
    });
  } finally {
    await worker.terminate();
  }
}
