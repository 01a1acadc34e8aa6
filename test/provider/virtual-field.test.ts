/**
 * VirtualField through the provider's check and lifecycle: every input rule as a named row, defaults that never
 * diff, updates in place, dataset replacing, drift and adoption.
 */
import { implementation } from "../../provider/resources/dynamic";
import { api } from "../helpers/emulator";
import { checked, created, messageOf, UNKNOWN, useProvider, type Props } from "./support";

const p = useProvider();
const impl = () => p.impl("VirtualField");
const vf = (o: Props = {}): Props => ({ dataset: "pv-logs", name: "total", expression: "a + b", ...o });
const without = (obj: Props, key: string) => {
  const copy = { ...obj };
  delete copy[key];
  return copy;
};

// Once datasets are objects of their own, a virtual field's dataset must exist; before, this is a 404.
beforeAll(async () => {
  for (const name of ["pv-logs", "pv-other"]) await api(p.em.current, "POST", "/v2/datasets", { name });
});

/** [rule, inputs, property, words]; the document's VirtualField requires dataset, name and expression. */
const rules: [string, Props, string, string][] = [
  ["vfield dataset is required", without(vf(), "dataset"), "dataset", "is required"],
  ["vfield dataset must not be empty", vf({ dataset: "" }), "dataset", "must not be empty"],
  ["vfield name is required", without(vf(), "name"), "name", "is required"],
  ["vfield name must not be empty", vf({ name: "" }), "name", "must not be empty"],
  ["vfield expression is required", without(vf(), "expression"), "expression", "is required"],
  ["vfield expression must not be empty", vf({ expression: "" }), "expression", "must not be empty"],
  ["vfield description is a string", vf({ description: 1 }), "description", "must be a string"],
  ["vfield type is a string", vf({ type: true }), "type", "must be a string"],
  ["vfield unit is a string", vf({ unit: [] }), "unit", "must be a string"],
  ["vfield unknown fields are refused", vf({ hidden: true }), "hidden", "is not a known field"],
];

describe("VirtualField check", () => {
  it.each(rules)("%s", async (_rule, inputs, property, words) => {
    const { failures } = await implementation("VirtualField").check({}, inputs);
    expect(failures).toContainEqual({ property, reason: expect.stringContaining(words) });
  });

  it("unknown values at preview never fail", async () => {
    const inputs = { dataset: UNKNOWN, name: UNKNOWN, expression: UNKNOWN, unit: UNKNOWN };
    expect((await implementation("VirtualField").check({}, inputs)).failures).toEqual([]);
  });

  it('adds no default, and description, type and unit read as "" when absent', async () => {
    const { inputs } = await implementation("VirtualField").check({}, vf());
    expect(inputs).toEqual(vf());
    const defaults = { ...vf(), description: "", type: "", unit: "" };
    expect(await implementation("VirtualField").diff("x", defaults, inputs)).toMatchObject({
      changes: false,
    });
  });
});

describe("VirtualField lifecycle", () => {
  it("creates and diffs none, before and after a read", async () => {
    const { id, outs, inputs } = await created(impl(), vf());
    // The service's "" for an undeclared type is its default: the state does not hold it.
    expect(outs).toMatchObject({ dataset: "pv-logs", name: "total", expression: "a + b" });
    expect(outs).not.toHaveProperty("type");
    expect(await impl().diff(id, outs, inputs)).toMatchObject({ changes: false });
    const read = await impl().read(id, outs);
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: false });
    // Declared empty strings equal the absent ones the service returns.
    const explicit = await checked(impl(), vf({ description: "", unit: "" }));
    expect(await impl().diff(id, read.props!, explicit)).toMatchObject({ changes: false });
  });

  it("updates expression, type and unit in place with the whole field", async () => {
    const { id, outs, inputs } = await created(impl(), vf({ name: "latency" }));
    const news = await checked(impl(), { ...inputs, expression: "a * b", type: "number", unit: "ms" });
    expect(await impl().diff(id, outs, news)).toMatchObject({
      changes: true,
      replaces: [],
      diffs: ["expression", "type", "unit"],
    });
    const updated = await impl().update(id, outs, news);
    expect(updated.outs).toMatchObject({ expression: "a * b", type: "number", unit: "ms" });
    expect(await p.client().virtualFields.get(id)).toMatchObject({ expression: "a * b", unit: "ms" });
  });

  it("a change of dataset replaces the field, creating the new one first (names are not unique)", async () => {
    const { id, outs, inputs } = await created(impl(), vf());
    const news = await checked(impl(), { ...inputs, dataset: "pv-other" });
    expect(await impl().diff(id, outs, news)).toMatchObject({
      changes: true,
      replaces: ["dataset"],
      deleteBeforeReplace: false,
    });
  });

  it("refresh shows an expression changed elsewhere, and a field deleted elsewhere is gone", async () => {
    const { id, outs, inputs } = await created(impl(), vf({ name: "drifting" }));
    await p.client().virtualFields.update(id, { dataset: "pv-logs", name: "drifting", expression: "c" });
    const read = await impl().read(id, outs);
    expect(read.inputs).toMatchObject({ expression: "c" });
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({
      changes: true,
      diffs: ["expression"],
    });
    await p.client().virtualFields.delete(id);
    expect(await impl().read(id, read.props)).toEqual({ id: "" });
  });

  it("adopts an existing field and writes the declared body", async () => {
    const existing = await p
      .client()
      .virtualFields.create({ dataset: "pv-logs", name: "ext", expression: "x" });
    const inputs = await checked(impl(), vf({ name: "ext", expression: "x + 1", adopt: existing.id }));
    const made = await impl().create(inputs);
    expect(made.id).toBe(existing.id);
    expect(made.outs).toMatchObject({ expression: "x + 1", adopt: existing.id });
  });

  it("adopting a missing id fails naming the kind and the id", async () => {
    const inputs = await checked(impl(), vf({ adopt: "vfield_missing" }));
    expect(await messageOf(impl().create(inputs))).toContain("no object with id vfield_missing exists");
  });
});
