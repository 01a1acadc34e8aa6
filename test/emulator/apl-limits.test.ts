/**
 * The APL front end's bounds (emulator/apl/parser.ts APL_LIMITS), each at its limit and one past it, and compile
 * work linear in the query's size, asserted by the compiler's node counter rather than by a clock.
 */
import { APL_LIMITS, compileQuery, parseApl, tokenize } from "../../emulator/apl";
import { runAplQuery } from "../../emulator/query";
import { EventStore } from "../../emulator/store/events";

const T0 = 1_704_067_200_000_000_000n;

function store(): EventStore {
  const s = new EventStore();
  s.append(
    "t",
    [1, 2, 3].map((a) => ({ timeNs: T0 + BigInt(a), data: { a, s: "x" } })),
    T0,
  );
  return s;
}

/** Tokens of `apl`, without the end marker. */
const tokenCount = (apl: string) => tokenize(apl).length - 1;

async function status(apl: string): Promise<{ status: number; message: string }> {
  const res = await runAplQuery(store(), { apl }, undefined, T0 + 10n);
  return { status: res.status, message: (res.body as { message?: string }).message ?? "" };
}

describe("APL size and depth bounds, at the limit and one past it", () => {
  const depthCases: [string, (k: number) => string][] = [
    ["parentheses", (k) => `t | where ${"(".repeat(k)}a${")".repeat(k)} > 0`],
    ["nested function calls", (k) => `t | where ${"not(".repeat(k)}a > 0${")".repeat(k)}`],
    ["unary minus", (k) => `t | where ${"-".repeat(k)}a != 0`],
  ];
  // The top-level expression is one level; each parenthesis, call or minus adds one.
  it.each(depthCases)(
    "%s: the limit's levels are served, one more is a 400 naming the limit",
    async (_name, make) => {
      const atLimit = make(APL_LIMITS.maxDepth - 1);
      expect((await status(atLimit)).status).toBe(200);
      const over = await status(make(APL_LIMITS.maxDepth));
      expect(over.status).toBe(400);
      expect(over.message).toContain("nested too deeply");
      expect(over.message).toContain(`${APL_LIMITS.maxDepth}`);
    },
  );

  it(`a query of ${APL_LIMITS.maxTokens} tokens is served; one more token is a 400 naming the limit`, async () => {
    // `t | where a` is 4 tokens and each `+1` two; a leading minus adds one.
    const terms = (APL_LIMITS.maxTokens - 4) / 2;
    const atLimit = `t | where a${"+1".repeat(terms)}`;
    const over = `t | where -a${"+1".repeat(terms)}`;
    expect(tokenCount(atLimit)).toBe(APL_LIMITS.maxTokens);
    expect(() => tokenCount(over)).not.toThrow();
    expect(tokenCount(over)).toBe(APL_LIMITS.maxTokens + 1);
    expect((await status(atLimit)).status).toBe(200);
    const refused = await status(over);
    expect(refused.status).toBe(400);
    expect(refused.message).toContain(`more than ${APL_LIMITS.maxTokens} tokens`);
  });

  it(`a query of ${APL_LIMITS.maxChars} characters is served; one more character is a 400 naming the limit`, async () => {
    const head = 't | where s != "';
    const fill = (n: number) => `${head}${"y".repeat(n - head.length - 1)}"`;
    expect(fill(APL_LIMITS.maxChars)).toHaveLength(APL_LIMITS.maxChars);
    expect((await status(fill(APL_LIMITS.maxChars))).status).toBe(200);
    const over = await status(fill(APL_LIMITS.maxChars + 1));
    expect(over.status).toBe(400);
    expect(over.message).toContain(`more than ${APL_LIMITS.maxChars} characters`);
  });

  it("flat chains are bounded by size only: 6,000 terms of + (a 500 before), 4,000 of `and`, are served", async () => {
    const plus = await runAplQuery(store(), { apl: `t | where a${"+1".repeat(5999)} > 6000` }, "legacy", T0);
    expect(plus.status).toBe(200);
    expect((plus.body as { matches: unknown[] }).matches).toHaveLength(2); // a = 2 and 3
    const and = await status(`t | where a > 0${" and a > 0".repeat(3999)}`);
    expect(and.status).toBe(200);
  });

  it("a timespan past any bigint is a 400, not a crash", async () => {
    const res = await status("t | where _time > ago(1e999d)");
    expect(res.status).toBe(400);
    expect(res.message).toContain("out of range");
  });
});

describe("compile work is linear in the query's size", () => {
  /** Syntax-tree nodes of a where expression, counted without recursion. */
  function treeSize(apl: string): number {
    const q = parseApl(apl);
    const where = q.ops.find((o) => o.op === "where");
    if (!where || where.op !== "where") throw new Error("no where");
    let n = 0;
    const stack: unknown[] = [where.expr];
    while (stack.length > 0) {
      const e = stack.pop() as Record<string, unknown>;
      n++;
      for (const key of ["left", "right", "operand"]) if (e[key]) stack.push(e[key]);
      for (const key of ["args", "list"]) if (Array.isArray(e[key])) stack.push(...(e[key] as unknown[]));
    }
    return n;
  }

  it.each([22, 26, 1000, 9000])("a + chain of %d terms compiles each of its nodes exactly once", (terms) => {
    const apl = `t | where a${"+1".repeat(terms - 1)} > 0`;
    const stats = { nodes: 0 };
    compileQuery(parseApl(apl), { now: 0n, stats });
    expect(stats.nodes).toBe(treeSize(apl));
    expect(stats.nodes).toBe(2 * terms + 1);
  });

  it.each([
    "t | where _time > '2024-01-01T00:00:00Z' and s == 'x' or a in (1, 2, '3')",
    "t | where not(isnull(s)) and strcat(s, 'y', tostring(a * 2 - 1 % 3)) contains 'x'",
    "t | where -a < -1 + 2 * 3 / 4 and iff(a > 1, s, 'z') !startswith 'q' and _sysTime <= now()",
  ])("every node once, whatever its shape: %s", (apl) => {
    const stats = { nodes: 0 };
    compileQuery(parseApl(apl), { now: 0n, stats });
    expect(stats.nodes).toBe(treeSize(apl));
  });
});
