/**
 * Paging over 25,000 events with runs of identical timestamps: timestamp paging and cursor paging, both
 * orders, both endpoints. Every walk must return every row exactly once.
 */
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator({ datasets: ["paging"] });
const TOTAL = 25_000;
const PAGE = 1000;
const T0_MS = Date.UTC(2024, 0, 1);
const WIDE = { startTime: "2023-12-31T00:00:00Z", endTime: "2024-01-02T00:00:00Z" };

interface Match {
  _time: string;
  _rowId: string;
  data: { seq: number };
}
interface Page {
  matches: Match[];
  status: { minCursor: string; maxCursor: string; rowsMatched: number };
}

/** Runs of 1 to 9 events share a millisecond, so page boundaries regularly split a run. */
function events(): object[] {
  const out: object[] = [];
  let ms = 0;
  while (out.length < TOTAL) {
    const run = 1 + (ms % 9);
    for (let j = 0; j < run && out.length < TOTAL; j++) {
      out.push({ _time: new Date(T0_MS + ms).toISOString(), seq: out.length, kind: j % 2 ? "odd" : "even" });
    }
    ms++;
  }
  return out;
}

beforeAll(async () => {
  const all = events();
  for (let i = 0; i < all.length; i += 10_000) {
    const body = all
      .slice(i, i + 10_000)
      .map((e) => JSON.stringify(e))
      .join("\n");
    const res = await api(em.current, "POST", "/v1/datasets/paging/ingest", body, {
      "content-type": "application/x-ndjson",
    });
    expect(res.status).toBe(200);
    expect(res.body.failed).toBe(0);
  }
});

async function aplPage(desc: boolean, extra: object): Promise<Page> {
  const apl = `['paging'] | sort by _time ${desc ? "desc" : "asc"} | limit ${PAGE}`;
  const res = await api(em.current, "POST", "/v1/datasets/_apl?format=legacy", { apl, ...WIDE, ...extra });
  expect(res.status).toBe(200);
  return res.body;
}

async function legacyPage(desc: boolean, extra: object): Promise<Page> {
  const body = { ...WIDE, limit: PAGE, order: [{ field: "_time", desc }], ...extra };
  const res = await api(em.current, "POST", "/v1/datasets/paging/query", body);
  expect(res.status).toBe(200);
  return res.body;
}

type Fetch = (desc: boolean, extra: object) => Promise<Page>;

/** Asserts that the walk saw every row: each seq once, each row id once. */
function expectComplete(rows: Map<string, number>): void {
  expect(rows.size).toBe(TOTAL);
  const seqs = [...rows.values()].sort((a, b) => a - b);
  expect(seqs[0]).toBe(0);
  expect(seqs[TOTAL - 1]).toBe(TOTAL - 1);
  expect(new Set(seqs).size).toBe(TOTAL);
}

/**
 * A correct timestamp-paging client: the next bound is the last item's timestamp, unadjusted (both bounds
 * are inclusive, so nothing is skipped); repeats are deduplicated by row id; it stops at a page with no new row.
 */
async function timestampWalk(
  fetch: Fetch,
  desc: boolean,
): Promise<{ rows: Map<string, number>; repeats: number }> {
  const rows = new Map<string, number>();
  let repeats = 0;
  let bound: object = {};
  for (let guard = 0; guard < 200; guard++) {
    const page = await fetch(desc, bound);
    if (page.matches.length === 0) break;
    let fresh = 0;
    for (const m of page.matches) {
      if (rows.has(m._rowId)) repeats++;
      else {
        rows.set(m._rowId, m.data.seq);
        fresh++;
      }
    }
    if (fresh === 0) break;
    const last = page.matches[page.matches.length - 1]._time;
    bound = desc ? { endTime: last } : { startTime: last };
  }
  return { rows, repeats };
}

/** A cursor-paging client: min/maxCursor as the next cursor until it comes back unchanged. No dedup. */
async function cursorWalk(
  fetch: Fetch,
  desc: boolean,
): Promise<{ rows: Map<string, number>; order: string[]; duplicates: number }> {
  const rows = new Map<string, number>();
  let duplicates = 0;
  const order: string[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 200; guard++) {
    const page = await fetch(desc, cursor === undefined ? {} : { cursor });
    for (const m of page.matches) {
      if (rows.has(m._rowId)) duplicates++;
      rows.set(m._rowId, m.data.seq);
      order.push(m._rowId);
    }
    const next = desc ? page.status.minCursor : page.status.maxCursor;
    if (next === cursor || next === "") break;
    cursor = next;
  }
  return { rows, order, duplicates };
}

describe.each([
  ["_apl", aplPage as Fetch],
  ["legacy", legacyPage as Fetch],
])("%s endpoint", (_endpoint, fetch) => {
  it.each([
    ["descending", true],
    ["ascending", false],
  ])("timestamp paging %s returns every row exactly once after dedup", async (_dir, desc) => {
    const { rows, repeats } = await timestampWalk(fetch, desc);
    expectComplete(rows);
    // The inclusive bound re-reads the boundary run: the overlap the API reference tells clients to deduplicate.
    expect(repeats).toBeGreaterThan(0);
  });

  it.each([
    ["descending", true],
    ["ascending", false],
  ])("cursor paging %s returns every row exactly once, in order, with no duplicates", async (_dir, desc) => {
    const { rows, order, duplicates } = await cursorWalk(fetch, desc);
    expect(duplicates).toBe(0);
    expectComplete(rows);
    const sorted = [...order].sort();
    expect(order).toEqual(desc ? sorted.reverse() : sorted);
  });
});

it("the first page reports rowsMatched for the whole range", async () => {
  const page = await aplPage(true, {});
  expect(page.matches).toHaveLength(PAGE);
  expect(page.status.rowsMatched).toBe(TOTAL);
});
