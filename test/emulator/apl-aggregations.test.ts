/** The aggregation registry's accumulators, driven directly (the reference: axiomhq/docs apl/aggregation-function). */
import { AGGREGATIONS, AggregationArgumentError } from "../../emulator/apl/aggregations";

/** Runs one aggregation over rows of arguments, with its constants at their positions. */
function run(name: string, rows: unknown[][], constants: unknown[] = []): unknown[] {
  const fn = AGGREGATIONS.get(name);
  if (!fn) throw new Error(`no aggregation ${name}`);
  const acc = fn.create(constants);
  for (const r of rows) acc.add(r);
  return acc.result();
}

describe("first aggregations", () => {
  it("count() counts rows, count(x) the non-null ones", () => {
    expect(run("count", [[], [], []])).toEqual([3]);
    expect(run("count", [[1], [null], [undefined], ["a"]])).toEqual([2]);
  });
  it("sum, avg, min, max skip nulls", () => {
    const rows = [[3], [null], [1], [8]];
    expect(run("sum", rows)).toEqual([12]);
    expect(run("avg", rows)).toEqual([4]);
    expect(run("min", rows)).toEqual([1]);
    expect(run("max", rows)).toEqual([8]);
    expect(run("avg", [[null]])).toEqual([null]);
  });
  it("dcount counts distinct non-null values exactly", () => {
    expect(run("dcount", [["a"], ["b"], ["a"], [null], [1], ["1"]])).toEqual([4]);
  });
  it("topk keeps the k most frequent, ties by value", () => {
    expect(
      run(
        "topk",
        [
          ["b", 2],
          ["a", 2],
          ["b", 2],
          ["c", 2],
        ],
        [undefined, 2],
      ),
    ).toEqual([
      [
        { key: "b", count: 2, error: 0 },
        { key: "a", count: 1, error: 0 },
      ],
    ]);
    expect(() => run("topk", [], [undefined, 0])).toThrow(AggregationArgumentError);
  });
  it("names columns as the service does", () => {
    expect(AGGREGATIONS.get("count")!.outputNames(undefined, [], [])).toEqual(["count_"]);
    expect(AGGREGATIONS.get("avg")!.outputNames(undefined, ["req.duration"], [])).toEqual([
      "avg_req_duration",
    ]);
    expect(AGGREGATIONS.get("avg")!.outputNames("n", ["x"], [])).toEqual(["n"]);
  });
});
