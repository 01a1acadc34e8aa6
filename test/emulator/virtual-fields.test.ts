/**
 * The virtual-field operations of the OpenAPI v2 document (tag vfields): `GET /v2/vfields?dataset=` (required),
 * `POST /v2/vfields`, `GET`/`PUT`/`DELETE /v2/vfields/{id}`, with the flat `VirtualFieldWithId` body of axiom-go's
 * fixtures (axiom/vfields_test.go) and its live test's round trip (axiom/vfields_integration_test.go:36-87).
 */
import { COLLECTION_FAMILIES } from "../../emulator/routes";
import { catalogOf } from "../../emulator/catalog";
import { State } from "../../emulator/state";
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator();
const vfield = (o: object = {}) => ({
  dataset: "vf-logs",
  name: "TestField",
  expression: "a + b",
  type: "number",
  ...o,
});
const without = (obj: Record<string, unknown>, key: string) => {
  const copy = { ...obj };
  delete copy[key];
  return copy;
};
const names = (field: string) => new RegExp(`(^|; )${field}: `);

// A virtual field's dataset must exist once datasets are objects of their own; creating them costs nothing before.
beforeAll(async () => {
  for (const name of ["vf-logs", "vf-only-a", "vf-only-b"])
    await api(em.current, "POST", "/v2/datasets", { name });
});

describe("CRUD", () => {
  it("POST answers the flat field with an id; GET and the dataset's list return it", async () => {
    const res = await api(em.current, "POST", "/v2/vfields", vfield({ description: "sum", unit: "ms" }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(String),
      dataset: "vf-logs",
      name: "TestField",
      expression: "a + b",
      type: "number",
      description: "sum",
      unit: "ms",
    });
    expect((await api(em.current, "GET", `/v2/vfields/${res.body.id}`)).body).toEqual(res.body);
    expect((await api(em.current, "GET", "/v2/vfields?dataset=vf-logs")).body).toContainEqual(res.body);
  });

  it('the response always carries type, "" when none was given; description and unit only when set', async () => {
    const res = await api(em.current, "POST", "/v2/vfields", without(vfield(), "type"));
    expect(res.body).toEqual({
      id: expect.any(String),
      dataset: "vf-logs",
      name: "TestField",
      expression: "a + b",
      type: "",
    });
  });

  it("PUT replaces the whole field; GET equals the PUT response (axiom-go's live test)", async () => {
    const created = (await api(em.current, "POST", "/v2/vfields", vfield({ description: "old" }))).body;
    const put = await api(em.current, "PUT", `/v2/vfields/${created.id}`, {
      dataset: "vf-logs",
      name: "UpdatedTestField",
      expression: "a * b",
      type: "number",
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      id: created.id,
      dataset: "vf-logs",
      name: "UpdatedTestField",
      expression: "a * b",
      type: "number",
    });
    expect((await api(em.current, "GET", `/v2/vfields/${created.id}`)).body).toEqual(put.body);
  });

  it("PUT of the object read back (id included, nulls for unset fields) succeeds unchanged", async () => {
    const created = (await api(em.current, "POST", "/v2/vfields", vfield())).body;
    const put = await api(em.current, "PUT", `/v2/vfields/${created.id}`, { ...created, unit: null });
    expect([put.status, put.body]).toEqual([200, created]);
  });

  it("DELETE is 204 with an empty body; then GET, PUT and DELETE are 404", async () => {
    const created = (await api(em.current, "POST", "/v2/vfields", vfield())).body;
    const del = await api(em.current, "DELETE", `/v2/vfields/${created.id}`);
    expect([del.status, del.text]).toEqual([204, ""]);
    for (const [method, body] of [["GET"], ["PUT", vfield()], ["DELETE"]] as const) {
      const res = await api(em.current, method, `/v2/vfields/${created.id}`, body);
      expect([res.status, res.body]).toEqual([404, { code: 404, message: "Not found" }]);
    }
  });
});

describe("GET /v2/vfields", () => {
  it.each([
    ["without dataset", ""],
    ["with an empty dataset", "?dataset="],
  ])("%s is a 400 naming dataset", async (_case, qs) => {
    const res = await api(em.current, "GET", `/v2/vfields${qs}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.stringMatching(names("dataset")) });
  });

  it("lists only the named dataset's fields", async () => {
    const a = (await api(em.current, "POST", "/v2/vfields", vfield({ dataset: "vf-only-a" }))).body;
    const b = (await api(em.current, "POST", "/v2/vfields", vfield({ dataset: "vf-only-b" }))).body;
    expect((await api(em.current, "GET", "/v2/vfields?dataset=vf-only-a")).body).toEqual([a]);
    expect((await api(em.current, "GET", "/v2/vfields?dataset=vf-only-b")).body).toEqual([b]);
    expect((await api(em.current, "GET", "/v2/vfields?dataset=vf-none")).body).toEqual([]);
  });
});

/** [rule, body, the field the 422 names]. The document's VirtualField requires dataset, name and expression. */
const rules: [string, unknown, string][] = [
  ["vfield dataset is required", without(vfield(), "dataset"), "dataset"],
  ["vfield dataset must not be empty", vfield({ dataset: "" }), "dataset"],
  ["vfield name is required", without(vfield(), "name"), "name"],
  ["vfield name must not be empty", vfield({ name: "" }), "name"],
  ["vfield expression is required", without(vfield(), "expression"), "expression"],
  ["vfield expression must not be empty", vfield({ expression: "" }), "expression"],
  ["vfield expression must not be null", vfield({ expression: null }), "expression"],
  ["vfield description is a string", vfield({ description: 1 }), "description"],
  ["vfield type is a string", vfield({ type: ["number"] }), "type"],
  ["vfield unit is a string", vfield({ unit: false }), "unit"],
];

describe("422 on a body field missing or invalid, on create and on update", () => {
  it.each(rules)("%s", async (_rule, body, field) => {
    const post = await api(em.current, "POST", "/v2/vfields", body);
    expect(post.status).toBe(422);
    expect(post.body).toEqual({ code: 422, message: expect.stringMatching(names(field)) });
    const created = (await api(em.current, "POST", "/v2/vfields", vfield())).body;
    const put = await api(em.current, "PUT", `/v2/vfields/${created.id}`, body);
    expect(put.status).toBe(422);
    expect(put.body.message).toMatch(names(field));
    expect((await api(em.current, "GET", `/v2/vfields/${created.id}`)).body).toEqual(created);
  });

  it("null in an optional field means absent (axiom-py sends every unset field as null)", async () => {
    const res = await api(em.current, "POST", "/v2/vfields", vfield({ description: null, unit: null }));
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty("description");
  });

  it("malformed JSON is a 400", async () => {
    expect((await api(em.current, "POST", "/v2/vfields", "{")).status).toBe(400);
  });
});

describe("the catalog's datasets: the seam for datasets that are objects of their own", () => {
  const datasetExists = (state: State, name: string) => catalogOf(state).exists(name);

  const others = COLLECTION_FAMILIES.filter((f) => f.name !== "datasets");

  it("every dataset exists while the emulator has no datasets collection", () => {
    expect(datasetExists(new State(others, "o"), "anything")).toBe(true);
  });

  it("with a datasets collection (id = name), only its datasets exist", () => {
    const state = new State([...others, { name: "datasets", idPrefix: "ds-seam-" }], "o");
    expect(datasetExists(state, "logs")).toBe(false);
    state.collection("datasets").set({ id: "logs", name: "logs" });
    expect(datasetExists(state, "logs")).toBe(true);
  });
});

/**
 * A dataset's virtual fields are columns of its APL queries, computed from each event at query time (the service's
 * docs, query-data/virtual-fields: "computed at query time"; the flagship's `duration_ms`, read by its anomaly
 * monitor). Monitor runs go through the same engine, so they see them too (test/emulator/monitors-run*.test.ts).
 */
describe("a dataset's virtual fields in its APL queries", () => {
  const query = (apl: string) =>
    api(em.current, "POST", "/v1/datasets/_apl?format=tabular", {
      apl,
      startTime: "2024-01-01T00:00:00Z",
      endTime: "2024-01-02T00:00:00Z",
    });
  const column = (body: Record<string, unknown>, name: string) => {
    const table = (body.tables as { fields: { name: string }[]; columns: unknown[][] }[])[0];
    return table.columns[table.fields.findIndex((f) => f.name === name)];
  };

  beforeAll(async () => {
    await api(em.current, "POST", "/v2/datasets", { name: "vf-http" });
    await api(em.current, "POST", "/v2/datasets", { name: "vf-other" });
    for (const dataset of ["vf-http", "vf-other"])
      await api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, [
        { _time: "2024-01-01T00:00:00Z", duration: 812_000_000, status: 503 },
        { _time: "2024-01-01T00:01:00Z", duration: 95_000_000, status: 200 },
      ]);
    await api(em.current, "POST", "/v2/vfields", {
      dataset: "vf-http",
      name: "duration_ms",
      expression: "duration / 1000000",
      type: "number",
    });
    await api(em.current, "POST", "/v2/vfields", {
      dataset: "vf-http",
      name: "failed",
      expression: "status >= 500",
      type: "boolean",
    });
  });

  it("a query reads them as fields: in where, summarize and the result's columns", async () => {
    const rows = await query("['vf-http'] | sort by _time asc | project duration_ms, failed");
    expect(rows.status).toBe(200);
    expect(column(rows.body, "duration_ms")).toEqual([812, 95]);
    expect(column(rows.body, "failed")).toEqual([true, false]);
    const avg = await query("['vf-http'] | where failed | summarize avg(duration_ms)");
    expect(column(avg.body, "avg_duration_ms")).toEqual([812]);
  });

  it("another dataset's virtual fields are not this one's", async () => {
    const rows = await query("['vf-other'] | project duration_ms = column_ifexists('duration_ms', -1)");
    expect(rows.status).toBe(200);
    expect(column(rows.body, "duration_ms")).toEqual([-1, -1]);
  });

  it("one the engine cannot compute fails the dataset's queries with a 400 naming it, never silently", async () => {
    const bad = await api(em.current, "POST", "/v2/vfields", {
      dataset: "vf-other",
      name: "city",
      expression: "geo_info_from_ip_address(ip).city",
      type: "string",
    });
    expect(bad.status).toBe(200);
    const res = await query("['vf-other'] | count");
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^virtual field city of dataset vf-other: .*geo_info_from_ip_address/);
    await api(em.current, "DELETE", `/v2/vfields/${bad.body.id}`);
    expect((await query("['vf-other'] | count")).status).toBe(200);
  });
});
