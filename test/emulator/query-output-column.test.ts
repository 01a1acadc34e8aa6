/**
 * The tabular body's columns are made in one pass (emulator/query/format.ts, outputColumn): its type must be what
 * columnType gives over the column's values, and its values what toOutput makes of each, over random rows of every
 * kind of value the engine holds (nulls, integers, floats, strings, booleans, datetimes shared by neighbouring
 * rows as a summarize's bins are, timespans, bags and arrays, absent fields).
 */
import fc from "fast-check";
import type { Row } from "../../emulator/apl/compile";
import { DateTime, Timespan, toOutput } from "../../emulator/apl/values";
import { columnType, columnValues, outputColumn } from "../../emulator/query/format";

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261205) });

const bin = new DateTime(1_767_225_600_000_000_000n);
const value = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: false }),
  fc.constantFrom("a", "1", ""),
  fc.boolean(),
  fc.constant(bin),
  fc.bigInt({ min: 0n, max: 10n ** 18n }).map((ns) => new DateTime(ns)),
  fc.constant(new Timespan(60_000_000_000n)),
  fc.constantFrom({ a: 1 }, [1, "x"], { t: bin }),
);

describe("a tabular column made in one pass", () => {
  it("has columnType's type and toOutput's values", () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 12 }), (cells) => {
        const rows: Row[] = cells.map((v) => ({ data: v === undefined ? {} : { c: v } }));
        const { type, values } = outputColumn(rows, "c");
        const plain = columnValues(rows, "c");
        expect(type).toBe(columnType(plain));
        expect(values).toEqual(plain.map(toOutput));
      }),
      { numRuns: 3_000 },
    );
  });

  it("gives integers and floats together the type float, and a third kind dynamic", () => {
    const rows = (...vs: unknown[]): Row[] => vs.map((c) => ({ data: { c } }));
    expect(outputColumn(rows(1, null, 2.5), "c").type).toBe("float");
    expect(outputColumn(rows(1, 2.5, "x"), "c").type).toBe("dynamic");
    expect(outputColumn(rows(null), "c").type).toBe("string");
  });
});
