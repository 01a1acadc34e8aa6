/**
 * summarize by bin(_time, w) has steps of its own (emulator/query/engine.ts): rows fed straight from the scan, the
 * bin remembered from row to row, a second key looked up per bin, groups sorted before their rows are made. The
 * same grouping by a copy of _time (`t = _time`, which no fast step recognizes) takes the generic step; both must
 * answer the same rows, in the same order, with the same values and types.
 */
import { compileQuery, parseApl } from "../../emulator/apl";
import { toOutput, typeOf } from "../../emulator/apl/values";
import { execute } from "../../emulator/query";
import { EventStore } from "../../emulator/store/events";

const T0 = 1_704_067_200_000_000_000n; // 2024-01-01T00:00:00Z
const SEC = 1_000_000_000n;
const NOW = T0 + 86_400n * SEC;

/** Keys of every kind a group key can hold: strings, numbers (1 and "1" apart), booleans, null, missing, a bag. */
const KINDS: unknown[] = ["a", "b", 1, "1", 0, -0, true, null, undefined, { x: 1 }, 2.5, "a"];

let store: EventStore;
beforeAll(() => {
  store = new EventStore();
  store.append(
    "d",
    Array.from({ length: 1500 }, (_, i) => {
      const data: Record<string, unknown> = { n: (i * 7) % 11, f: i % 5 === 0 ? null : (i % 13) / 3 };
      const k = KINDS[i % KINDS.length];
      if (k !== undefined) data.k = k;
      if (i % 9 !== 0) data.s = `s${i % 4}`;
      // Times before 1970 too: bins floor towards the past.
      return { timeNs: (i % 50 === 0 ? -T0 : T0) + BigInt(i) * 7n * SEC, data };
    }),
    T0,
  );
});

async function rows(apl: string, pageLimit = 100_000): Promise<unknown> {
  const plan = compileQuery(parseApl(apl), { now: NOW, startNs: -NOW, endNs: NOW });
  const res = await execute(store.events("d") ?? [], plan, { pageLimit, startNs: -NOW, endNs: NOW });
  // Each cell as its type and its JSON, so that a datetime and a timespan, 1 and "1", compare apart.
  const cells = res.rows.map((r) =>
    Object.entries(r.data).map(([k, v]) => `${k}:${typeOf(v)}:${JSON.stringify(toOutput(v))}`),
  );
  return { cells, columns: res.columns, matched: res.rowsMatched };
}

const AGGS =
  "c = count(), ci = countif(n > 3), sm = sum(f), si = sumif(n, n > 5), mx = max(f), mn = min(s), a = avg(n), " +
  "am = arg_max(n, s, k), r = round(100.0 * countif(n > 3) / count(), 2), p = percentile(n, 50), l = make_list(n, 3)";

describe("summarize by bin(_time, w): the fast steps answer as the generic one", () => {
  it.each([
    ["one key", "by b = bin(_time, 1m)"],
    ["with a second key", "by b = bin(_time, 1m), k"],
    ["with the second key first", "by k, b = bin(_time, 5m)"],
    ["with two more keys", "by s, b = bin(_time, 1m), k"],
  ])("%s", async (_what, by) => {
    const generic = by.replace("bin(_time", "bin(t");
    for (const [head, tail] of [
      ["d", ""],
      ["d | where n != 4", ""],
      ["d | sort by _time asc", ""],
      ["d | sort by n desc", ""],
      ["d", " | limit 7"],
    ]) {
      const fast = await rows(`${head} | summarize ${AGGS} ${by}${tail}`);
      const slow = await rows(`${head} | extend t = _time | summarize ${AGGS} ${generic}${tail}`);
      expect(fast).toEqual(slow);
    }
  });
});

describe("summarize then sort by its first keys and limit: the sort is left out only where it would change nothing", () => {
  /** The rows with the answer's order; `| extend z = 0` before the sort makes the sort run whatever it sorts. */
  async function sorted(apl: string): Promise<unknown> {
    const plan = compileQuery(parseApl(apl), { now: NOW, startNs: -NOW, endNs: NOW });
    const res = await execute(store.events("d") ?? [], plan, {
      pageLimit: 100_000,
      startNs: -NOW,
      endNs: NOW,
    });
    const cells = res.rows.map((r) =>
      Object.entries(r.data)
        .filter(([k]) => k !== "z")
        .map(([k, v]) => `${k}:${typeOf(v)}:${JSON.stringify(toOutput(v))}`),
    );
    return { cells, matched: res.rowsMatched, order: res.order };
  }

  it.each([
    ["by bin", "by b = bin(_time, 1m)", "sort by b asc"],
    ["by bin and a key of many kinds", "by b = bin(_time, 1m), k", "sort by b asc"],
    ["by both keys", "by b = bin(_time, 1m), k", "sort by b asc, k asc"],
    ["by a string key with nulls", "by s, b = bin(_time, 5m)", "sort by s asc"],
    ["by a key of many kinds", "by k, b = bin(_time, 5m)", "sort by k asc"],
    ["by a number key", "by n, b = bin(_time, 5m)", "sort by n asc, b asc"],
    ["nulls last", "by s, b = bin(_time, 5m)", "sort by s asc nulls last"],
    ["descending", "by b = bin(_time, 1m), k", "sort by b desc"],
    ["by the second key", "by b = bin(_time, 1m), k", "sort by k asc"],
    ["by an expression", "by b = bin(_time, 1m), s", "sort by strlen(s) asc"],
  ])("%s", async (_what, by, sort) => {
    for (const [head, limit] of [
      ["d", " | limit 7"],
      ["d | where n != 4", " | limit 100"],
      ["d | sort by n desc", ""],
    ]) {
      const skipped = await sorted(
        `${head} | summarize c = count(), sm = sum(f), mx = max(n) ${by} | ${sort}${limit}`,
      );
      const run = await sorted(
        `${head} | summarize c = count(), sm = sum(f), mx = max(n) ${by} | extend z = 0 | ${sort}${limit}`,
      );
      expect(skipped).toEqual(run);
    }
  });
});
