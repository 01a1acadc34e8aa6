/**
 * What check and diff may and may not do now that they copy less: they compare as before, never change
 * what the host handed them, never hand out the kind's shared defaults, and sort a set's items printing each once.
 * Pure: no service involved.
 */
import fc from "fast-check";
import { implementation } from "../../provider/resources/dynamic";
import { KINDS, type ResourceKind } from "../../provider/resources/registry";
import { sameJson, sortAtPath, stableStringify } from "../../provider/resources/values";
import { UNKNOWN } from "../../provider/resources/lifecycle";
import { SAMPLES } from "../helpers/samples";

type Props = Record<string, unknown>;

/** `v` frozen at every depth, so that any write into it throws (jest runs strict mode). */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object") {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** A JSON-like value, with the values that print unlike themselves: undefined, NaN, -0. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.constantFrom(undefined, null, NaN, 0, -0, 1, "", "a", true, false),
    fc.integer(),
    fc.string({ maxLength: 3 }),
  ),
  node: fc.oneof(
    { depthSize: "small" },
    tie("leaf"),
    fc.array(tie("node"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "c"), tie("node"), { maxKeys: 3 }),
  ),
})).node;

/** `v` with its object keys in reverse order and an undefined key added: the same print. */
function respelled(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(respelled);
  if (v !== null && typeof v === "object") {
    const out: Props = { zz: undefined };
    for (const key of Object.keys(v).reverse()) out[key] = respelled((v as Props)[key]);
    return out;
  }
  return v;
}

describe("sameJson", () => {
  it("is true exactly when stableStringify prints both alike", () => {
    fc.assert(
      fc.property(value, value, (a, b) => sameJson(a, b) === (stableStringify(a) === stableStringify(b))),
      { numRuns: 2000 },
    );
  });

  it("sees a value and its respelling (keys reordered, undefined keys) as the same", () => {
    fc.assert(fc.property(value, (a) => sameJson(a, respelled(a)) && sameJson(respelled(a), a)));
  });

  it.each([
    [null, undefined, true],
    [NaN, null, true],
    [[undefined], [null], true],
    [{ a: 1 }, { a: 1, b: undefined }, true],
    [{ a: 1, b: undefined }, { a: 1, c: 2 }, false],
    [[], {}, false],
    [{}, null, false],
    ["1", 1, false],
  ])("sameJson(%p, %p) is %p", (a, b, same) => {
    expect(sameJson(a, b)).toBe(same);
  });
});

describe("sortAtPath", () => {
  it("orders a set by each item's print, printing each item once", () => {
    const reads = new Map<number, number>();
    const item = (n: number) => ({
      get n() {
        reads.set(n, (reads.get(n) ?? 0) + 1);
        return n;
      },
    });
    const target = { set: [5, 3, 8, 1, 9, 2, 7, 4, 6].map(item) };
    sortAtPath(target, "set");
    expect(target.set.map((x) => stableStringify(x))).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `{"n":${n}}`),
    );
    // The nine reads just above, plus one each while sorting.
    expect([...reads.values()]).toEqual(Array(9).fill(2));
  });
});

describe("check and diff leave the host's values alone", () => {
  const kinds = [...KINDS.keys()] as ResourceKind[];

  it.each(kinds)(
    "%s: diff of frozen olds and news, in another order, runs and finds no change",
    async (kind) => {
      const lifecycle = implementation(kind);
      const checked = (await lifecycle.check({}, SAMPLES[kind].args)).inputs;
      const news = deepFreeze(structuredClone(checked));
      const olds = deepFreeze(respelled(structuredClone(checked)) as Props);
      const diff = await lifecycle.diff("id-1", olds, news);
      expect(diff.diffs).toEqual([]);
    },
  );

  it("a monitor's set and time paths are compared without sorting or rewriting the frozen inputs", async () => {
    const lifecycle = implementation("Monitor");
    const base = { ...SAMPLES.Monitor.args };
    const olds = deepFreeze({ ...base, notifierIds: ["b", "a"], disabledUntil: "2030-01-01T00:00:00Z" });
    const news = deepFreeze({ ...base, notifierIds: ["a", "b"], disabledUntil: "2030-01-01T02:00:00+02:00" });
    expect((await lifecycle.diff("mon_1", olds, news)).diffs).toEqual([]);
    expect(olds.notifierIds).toEqual(["b", "a"]);
  });

  it.each(kinds)("%s: check of frozen news runs and keeps the shim", async (kind) => {
    const lifecycle = implementation(kind);
    const news = deepFreeze({ ...structuredClone(SAMPLES[kind].args), __provider: "shim" });
    const result = await lifecycle.check({}, news);
    expect(result.failures).toEqual([]);
    expect(result.inputs.__provider).toBe("shim");
  });

  it("check hands out no default (the kind's defaults are shared by every call): only what was declared", async () => {
    const lifecycle = implementation("Monitor");
    const first = (await lifecycle.check({}, SAMPLES.Monitor.minimal)).inputs;
    expect(first).toEqual(SAMPLES.Monitor.minimal);
    expect(first).not.toHaveProperty("notifierIds");
  });

  it("check still blames nothing on an unknown value and judges adopt itself", async () => {
    const lifecycle = implementation("Monitor");
    const unknownName = await lifecycle.check({}, { ...SAMPLES.Monitor.args, name: UNKNOWN, adopt: UNKNOWN });
    expect(unknownName.failures).toEqual([]);
    expect(unknownName.inputs.adopt).toBe(UNKNOWN);
    const badAdopt = await lifecycle.check({}, { ...SAMPLES.Monitor.args, adopt: "" });
    expect(badAdopt.failures).toEqual([
      { property: "adopt", reason: "must be the id of an existing object" },
    ]);
    expect(badAdopt.inputs).not.toHaveProperty("__provider");
    // ApiToken and OrganizationName refuse adopt in words of their own.
    const refused = await implementation("ApiToken").check({}, { ...SAMPLES.ApiToken.args, adopt: "x" });
    expect(refused.failures).toEqual([
      { property: "adopt", reason: expect.stringContaining("cannot be adopted") },
    ]);
    expect(refused.inputs).not.toHaveProperty("adopt");
    const renamed = await implementation("OrganizationName").check(
      {},
      { ...SAMPLES.OrganizationName.args, adopt: "x" },
    );
    expect(renamed.failures).toEqual([
      { property: "adopt", reason: expect.stringContaining("needs no `adopt`") },
    ]);
    expect(renamed.inputs).not.toHaveProperty("adopt");
  });
});
