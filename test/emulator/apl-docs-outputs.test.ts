/**
 * The APL reference's print and datatable examples give the output their pages show: every example of
 * test/fixtures/apl-docs/outputs.json (read from axiomhq/docs at the commit it names, by extract.mts) is posted to
 * `POST /v1/datasets/_apl?format=tabular`, and the answer's columns and values are compared with the page's table
 * or JSON block.
 *
 * How a page's output is read (the only normalizations):
 * - A table cell is text. A numeric cell is as precise as the page writes it: `1.0472` matches a result within
 *   half a unit of its last digit (0.00005), `180` within 0.5. `true` and `false` are booleans. Any other cell is
 *   the string itself.
 * - A JSON block is either an object keyed by the output's columns, or, for a one-column output, that column's
 *   value. Objects compare whatever the order of their keys; strings that are both RFC 3339 times compare as the
 *   instants they name (`2025-07-29T12:00:00Z` and `2025-07-29T12:00:00.000Z` are one time).
 * - rand.mdx: the page's number is one draw of a random generator, so the test checks the draw is a real in [0, 1)
 *   instead; and its table has a `_time` column the example does not make (print makes one column per expression,
 *   as the page's other examples show), so that column is left out.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { api, useEmulator } from "../helpers/emulator";

interface CorpusOutput {
  id: string;
  apl: string;
  columns?: string[];
  rows?: string[][];
  json?: unknown;
}

const fixture = JSON.parse(
  readFileSync(path.join(__dirname, "../fixtures/apl-docs/outputs.json"), "utf8"),
) as { source: { repository: string; commit: string }; outputs: CorpusOutput[]; excluded: { id: string }[] };

/** Examples whose page's output needs a reading of its own, and the reading (see the file's comment). */
const RANDOM_EXAMPLE =
  "content/docs/(query-reference)/apl/scalar-functions/mathematical-functions/rand.mdx:32";

const em = useEmulator();

/** An answer as the page shows one: column names, and rows of values. */
interface Table {
  columns: string[];
  rows: unknown[][];
}

async function run(apl: string): Promise<Table> {
  const res = await api(em.current, "POST", "/v1/datasets/_apl?format=tabular", { apl });
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  const table = res.body.tables[0] as { fields: { name: string }[]; columns: unknown[][] };
  const columns = table.fields.map((f) => f.name);
  const count = table.columns[0]?.length ?? 0;
  const rows = Array.from({ length: count }, (_, r) => table.columns.map((c) => c[r]));
  return { columns, rows };
}

/** Whether a result value matches a page's table cell (numbers to the page's precision). */
function cellMatches(actual: unknown, cell: string): boolean {
  if (cell === "true" || cell === "false") return actual === (cell === "true");
  if (/^-?\d+(\.\d+)?$/.test(cell)) {
    const decimals = cell.includes(".") ? cell.split(".")[1].length : 0;
    return typeof actual === "number" && Math.abs(actual - Number(cell)) <= 0.5 * 10 ** -decimals;
  }
  return actual === cell;
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** A value with RFC 3339 strings made the instants they name, so that equal times compare equal. */
function normalized(v: unknown): unknown {
  if (typeof v === "string" && RFC3339.test(v)) return { instant: Date.parse(v) };
  if (Array.isArray(v)) return v.map(normalized);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalized(x)]));
  return v;
}

describe(`print and datatable examples give their pages' outputs (${fixture.source.repository} at ${fixture.source.commit.slice(0, 12)})`, () => {
  it("holds every such example of the reference, and says why one is left out", () => {
    // 19 examples show an output at this commit: 12 tables, 7 JSON blocks; the lookup example reads a dataset.
    expect(fixture.outputs).toHaveLength(19);
    expect(fixture.outputs.filter((o) => o.columns !== undefined)).toHaveLength(12);
    expect(fixture.excluded.map((e) => e.id)).toEqual([
      "content/docs/(query-reference)/apl/tabular-operators/lookup-operator.mdx:45",
    ]);
  });

  const tables = fixture.outputs.filter((o) => o.columns !== undefined && o.id !== RANDOM_EXAMPLE);
  it.each(tables.map((o) => [o.id, o] as const))("%s: the page's table", async (_id, example) => {
    const got = await run(example.apl);
    expect(got.columns).toEqual(example.columns);
    expect(got.rows).toHaveLength(example.rows!.length);
    example.rows!.forEach((row, r) =>
      row.forEach((cell, c) => {
        if (!cellMatches(got.rows[r][c], cell))
          throw new Error(
            `row ${r}, column ${example.columns![c]}: page shows ${cell}, got ${JSON.stringify(got.rows[r][c])}`,
          );
      }),
    );
  });

  it(`${RANDOM_EXAMPLE}: one column of one real in [0, 1)`, async () => {
    const example = fixture.outputs.find((o) => o.id === RANDOM_EXAMPLE)!;
    // The page's table: _time (left out, see above) and the draw's column.
    expect(example.columns).toEqual(["_time", "random"]);
    const got = await run(example.apl);
    expect(got.columns).toEqual(["random"]);
    expect(got.rows).toHaveLength(1);
    const draw = got.rows[0][0];
    expect(typeof draw).toBe("number");
    expect(draw as number).toBeGreaterThanOrEqual(0);
    expect(draw as number).toBeLessThan(1);
  });

  const jsons = fixture.outputs.filter((o) => o.json !== undefined);
  it.each(jsons.map((o) => [o.id, o] as const))("%s: the page's JSON", async (_id, example) => {
    const got = await run(example.apl);
    expect(got.rows).toHaveLength(1);
    const json = example.json;
    const byColumn =
      json !== null && typeof json === "object" && !Array.isArray(json)
        ? (json as Record<string, unknown>)
        : { [got.columns[0]]: json };
    expect(got.columns).toEqual(Object.keys(byColumn));
    expect(normalized(Object.fromEntries(got.columns.map((c, i) => [c, got.rows[0][i]])))).toEqual(
      normalized(byColumn),
    );
  });
});
