/**
 * Property test of the APL front end through the query endpoint's handler: any text, and structured APL with and
 * without a random edit, gets a 200 or a 4xx, never a 5xx or a throw. "Fast enough" is asserted by deterministic
 * counters, not a clock: the compiler compiles each syntax-tree node once (its counter equals the tree's size,
 * which the token bound caps), and the scan examines each stored row at most once. The wall-clock figure for the
 * same inputs is bench/apl-compile.mts's.
 */
import fc from "fast-check";
import { APL_LIMITS, AplError, compileQuery, parseApl, tokenize } from "../../emulator/apl";
import { runAplQuery } from "../../emulator/query";
import { EventStore } from "../../emulator/store/events";
import { aplQuery, aplQueryEdited } from "../helpers/apl-arbitrary";

const T0 = 1_704_067_200_000_000_000n;
const NOW = T0 + 3_600_000_000_000n;

function store(): EventStore {
  const s = new EventStore();
  const rows = [
    { a: 1, s: "GET /users ok", n: 1.5, req: { path: "/u" }, "odd name": "x" },
    { a: -2, s: "", n: null },
    { a: 3, s: "ÉTAT", n: 0, req: { path: null } },
    { a: "n/a", s: "upstream unavailable", n: 30.5, tags: ["a"] },
  ];
  s.append(
    "t",
    rows.map((data, i) => ({ timeNs: T0 + BigInt(i) * 60_000_000_000n, data })),
    T0,
  );
  return s;
}

/** Compile work: the compiler's node counter for `apl`, or undefined when the parser refuses it. */
function compileWork(apl: string): { nodes: number; tokens: number } | undefined {
  let tokens: number;
  try {
    tokens = tokenize(apl, APL_LIMITS.maxTokens).length - 1;
    const stats = { nodes: 0 };
    compileQuery(parseApl(apl), { now: NOW, stats });
    return { nodes: stats.nodes, tokens };
  } catch (err) {
    if (err instanceof AplError) return undefined;
    throw err;
  }
}

const s = store();
const EVENTS = s.events("t")!.length;

async function check(apl: string): Promise<void> {
  const res = await runAplQuery(s, { apl }, "legacy", NOW);
  if (res.status >= 500 || (res.status >= 300 && res.status < 400)) {
    throw new Error(`${res.status} for ${JSON.stringify(apl)}: ${JSON.stringify(res.body)}`);
  }
  if (res.status >= 400) {
    expect(res.body).toMatchObject({ code: res.status, message: expect.any(String) });
    return;
  }
  // Bounded work: every node compiled once, no more nodes than tokens, no more tokens than the bound.
  const work = compileWork(apl);
  expect(work).toBeDefined();
  expect(work!.nodes).toBeLessThanOrEqual(work!.tokens);
  expect(work!.tokens).toBeLessThanOrEqual(APL_LIMITS.maxTokens);
  const status = (res.body as { status: { rowsExamined: number } }).status;
  expect(status.rowsExamined).toBeLessThanOrEqual(EVENTS);
}

describe("APL front end (property): 200 or 4xx, never 5xx, with bounded work", () => {
  it("any text", async () => {
    await fc.assert(fc.asyncProperty(fc.string({ maxLength: 120, unit: "binary" }), check), {
      numRuns: 1000,
    });
  });

  it("structured APL: operators, flat chains, nesting, function calls, strings with escapes", async () => {
    await fc.assert(fc.asyncProperty(aplQuery, check), { numRuns: 300 });
  });

  it("structured APL with one random edit", async () => {
    await fc.assert(fc.asyncProperty(aplQueryEdited, check), { numRuns: 300 });
  });
});

describe("the reference's own queries, each with a random edit (a token deleted, a token copied elsewhere, the text cut)", () => {
  it("only ever answer 200, 400 or 404, never a 5xx or a throw", async () => {
    const { readFileSync } = await import("node:fs");
    const { httpLogs } = await import("../fixtures/apl-docs/datasets");
    const corpus = JSON.parse(readFileSync(`${__dirname}/../fixtures/apl-docs/queries.json`, "utf8")) as {
      queries: { apl: string }[];
    };
    const queries = corpus.queries.map((q) => q.apl).filter((apl) => apl.includes("['sample-http-logs']"));
    const end = Date.UTC(2026, 0, 2);
    const s = new EventStore();
    s.append(
      "sample-http-logs",
      httpLogs(200, end - 3_600_000, end).map((data) => ({
        timeNs: BigInt(Date.parse(String(data._time))) * 1_000_000n,
        data,
      })),
      T0,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat(queries.length - 1),
        fc.nat(),
        fc.nat(),
        fc.constantFrom("delete", "copy", "cut"),
        async (which, at, from, edit) => {
          const apl = queries[which];
          const tokens = tokenize(apl).slice(0, -1);
          if (tokens.length === 0) return;
          const cut = tokens[at % tokens.length];
          const other = tokens[from % tokens.length];
          const edited =
            edit === "delete"
              ? apl.slice(0, cut.start) + apl.slice(cut.end)
              : edit === "copy"
                ? `${apl.slice(0, cut.start)}${apl.slice(other.start, other.end)} ${apl.slice(cut.start)}`
                : apl.slice(0, cut.end);
          const res = await runAplQuery(s, { apl: edited }, "tabular", BigInt(end) * 1_000_000n);
          expect([200, 400, 404]).toContain(res.status);
        },
      ),
      { numRuns: 1500 },
    );
  }, 120_000);
});
