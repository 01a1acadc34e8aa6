/**
 * The datasets family against a real emulator: every operation of the OpenAPI v2 document's datasets family
 * (getDatasets … vacuumDataset, axiomhq/docs `content/docs/(api-reference)/restapi/versions/v2.json`), with its statuses and bodies; and datasets as real
 * objects: ingest and queries need the dataset to exist, and deleting it deletes its events.
 */
import { z } from "zod";
import { api, createDatasets, useEmulator } from "../helpers/emulator";
import { startEmulator } from "../../emulator";

const em = useEmulator({ datasets: ["seeded"] });

/** The OpenAPI document's `Dataset` (required: created, description, id, kind, name, updatedAt, who). */
const OpenApiDataset = z.object({
  canWrite: z.boolean().optional(),
  created: z.iso.datetime({ offset: true }),
  description: z.string(),
  edgeDeployment: z.string().optional(),
  edgeDeploymentUrl: z.string().optional(),
  id: z.string(),
  kind: z.enum(["otel:metrics:v1", "otel:traces:v1", "otel:logs:v1", "axiom:events:v1"]),
  mapFields: z.array(z.string()).optional(),
  name: z.string(),
  retentionDays: z.number().int().optional(),
  sharedByOrg: z.string().optional(),
  updatedAt: z.iso.datetime({ offset: true }),
  useRetentionPeriod: z.boolean().optional(),
  who: z.string(),
});
/** `DatasetField` (required: name, type). */
const OpenApiField = z.object({
  description: z.string().optional(),
  hidden: z.boolean().optional(),
  name: z.string(),
  type: z.string(),
  unit: z.string().optional(),
});
/** The service's error body, `{code, message}`; clients read `message` (axiom-go `axiom/error.go`, `HTTPError`). */
const ErrorBody = z.object({ code: z.number().int(), message: z.string() });

const ALL_TIME = { startTime: "2000-01-01T00:00:00Z", endTime: "now+1h" };
const create = (body: object) => api(em.current, "POST", "/v2/datasets", body);
const ingest = (name: string, events: object[]) =>
  api(em.current, "POST", `/v1/datasets/${name}/ingest`, events);

describe("datasets: create, read, list, update, delete", () => {
  it("POST answers 200 with a Dataset; the id is the name; defaults as the document gives them", async () => {
    const res = await create({ name: "crud-1", description: "first" });
    expect(res.status).toBe(200);
    expect(OpenApiDataset.parse(res.body)).toBeTruthy();
    expect(res.body).toMatchObject({
      id: "crud-1",
      name: "crud-1",
      description: "first",
      kind: "axiom:events:v1",
      retentionDays: 0,
      useRetentionPeriod: false,
      mapFields: [],
      // The license's default edge deployment.
      edgeDeployment: "cloud.us-east-1.aws",
      who: "local-user",
    });
    // Nanosecond precision, as axiom-go's fixtures show (datasets_test.go:380).
    expect(res.body.created).toMatch(/\.\d{9}Z$/);
    expect(res.body).not.toHaveProperty("fieldSettings");
  });

  it("GET, list and PUT answer Datasets; PUT changes description and retention only", async () => {
    await create({ name: "crud-2", kind: "otel:logs:v1", edgeDeployment: "cloud.eu-central-1.aws" });
    const got = await api(em.current, "GET", "/v2/datasets/crud-2");
    expect(got.status).toBe(200);
    expect(OpenApiDataset.parse(got.body).edgeDeploymentUrl).toBe("https://eu-central-1.aws.edge.localhost");
    const list = await api(em.current, "GET", "/v2/datasets");
    expect(
      z
        .array(OpenApiDataset)
        .parse(list.body)
        .map((d) => d.name),
    ).toEqual(expect.arrayContaining(["seeded", "crud-2"]));
    // Body as axiom-go's DatasetUpdateRequest sends it (datasets.go:128-135); name and kind are ignored.
    const put = await api(em.current, "PUT", "/v2/datasets/crud-2", {
      description: "changed",
      useRetentionPeriod: true,
      retentionDays: 30,
      name: "other",
      kind: "otel:traces:v1",
    });
    expect(put.status).toBe(200);
    expect(OpenApiDataset.parse(put.body)).toMatchObject({
      name: "crud-2",
      kind: "otel:logs:v1",
      description: "changed",
      useRetentionPeriod: true,
      retentionDays: 30,
      edgeDeployment: "cloud.eu-central-1.aws",
    });
  });

  it("DELETE answers 204 and deletes the dataset's events; a second DELETE is the service's 404", async () => {
    await create({ name: "crud-3" });
    expect((await ingest("crud-3", [{ a: 1 }])).status).toBe(200);
    const del = await api(em.current, "DELETE", "/v2/datasets/crud-3");
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    // axiom-js integration/src/testHelpers.ts:11-20 matches a missing dataset's delete by /not found/i.
    const again = await api(em.current, "DELETE", "/v2/datasets/crud-3");
    expect(again.status).toBe(404);
    expect(ErrorBody.parse(again.body).message).toMatch(/not found/i);
    // A dataset of the same name, created again, starts empty.
    await create({ name: "crud-3" });
    const q = await api(em.current, "POST", "/v1/datasets/_apl", { apl: "['crud-3']", ...ALL_TIME });
    expect(q.status).toBe(200);
    expect(q.body.matches).toEqual([]);
  });

  it("GET of a dataset never created is a 404 (axiom-go axiom/error_integration_test.go:22-26)", async () => {
    const res = await api(em.current, "GET", "/v2/datasets/never-created");
    expect(res.status).toBe(404);
    expect(ErrorBody.parse(res.body)).toEqual({ code: 404, message: "Not found" });
  });

  it("a name that exists is a 409", async () => {
    await create({ name: "clash" });
    const res = await create({ name: "clash" });
    expect(res.status).toBe(409);
    expect(ErrorBody.parse(res.body).message).toMatch(/clash/);
  });

  // Each rule of axiom-go datasets.go:109-111 and of the OpenAPI `CreateDataset`, answered 422
  // naming the field, as the live service does for invalid bodies.
  it.each([
    ["name missing", {}, /^name: /],
    ["name over 80 characters", { name: "a".repeat(81) }, /^name: must be at most 80/],
    ["name with a space", { name: "a b" }, /^name: must contain only/],
    ["name starting with '-'", { name: "-a" }, /^name: must not start with/],
    ["name starting with '.'", { name: ".a" }, /^name: must not start with/],
    ["name ending with '_'", { name: "a_" }, /^name: must not end with/],
    ["name starting with 'axiom-'", { name: "axiom-logs" }, /^name: must not start with 'axiom-'/],
    ["kind not one of the four", { name: "k", kind: "axiom:other" }, /^kind: must be one of/],
    ["retentionDays not an integer", { name: "k", retentionDays: 1.5 }, /^retentionDays: must be an integer/],
    ["retentionDays negative", { name: "k", retentionDays: -1 }, /^retentionDays: must be at least 0/],
    ["useRetentionPeriod not a boolean", { name: "k", useRetentionPeriod: "yes" }, /^useRetentionPeriod: /],
    [
      "edgeDeployment not the license's",
      { name: "k", edgeDeployment: "mars-1" },
      /^edgeDeployment: must be one of/,
    ],
  ])("create: %s is a 422 naming the field", async (_rule, body, message) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(ErrorBody.parse(res.body)).toEqual({ code: 422, message: expect.stringMatching(message) });
  });

  it.each([
    ["an 80-character name", "a".repeat(80)],
    ["dots, dashes and underscores inside", "a.b-c_d"],
    ["'axiom' without the dash", "axiomatic"],
  ])("create accepts %s", async (_rule, name) => {
    expect((await create({ name })).status).toBe(200);
  });

  it("update: an invalid field is a 422 naming it; malformed JSON is a 400", async () => {
    await create({ name: "upd" });
    const bad = await api(em.current, "PUT", "/v2/datasets/upd", { retentionDays: "ten" });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/^retentionDays: /);
    const malformed = await api(em.current, "PUT", "/v2/datasets/upd", "{");
    expect(malformed.status).toBe(400);
  });
});

describe("datasets are real objects", () => {
  it("ingest into a dataset never created is a 404 whose message says not found", async () => {
    // alchemy-run/distilled packages/axiom/patches/v1-edge-ingest/001-add-error-responses.patch.json: "404 when
    // the dataset does not exist"; axiom-go examples/README.md: "Must exist prior to using it". axiom-js
    // matches 404s by /not found/i (integration/src/testHelpers.ts:3-5).
    const res = await ingest("never-made", [{ a: 1 }]);
    expect(res.status).toBe(404);
    expect(ErrorBody.parse(res.body)).toEqual({ code: 404, message: expect.stringMatching(/not found/i) });
    // Nothing was created by the attempt.
    expect((await api(em.current, "GET", "/v2/datasets/never-made")).status).toBe(404);
  });

  it("a query of a dataset never created is a 404 naming it, APL and legacy (our decision)", async () => {
    // No official client's test or doc queries a missing dataset (settled.md §2); we answer as for ingest.
    const apl = await api(em.current, "POST", "/v1/datasets/_apl", {
      apl: "['never-made'] | count",
      ...ALL_TIME,
    });
    expect(apl.status).toBe(404);
    expect(ErrorBody.parse(apl.body).message).toMatch(/"never-made" not found/);
    const legacy = await api(em.current, "POST", "/v1/datasets/never-made/query", ALL_TIME);
    expect(legacy.status).toBe(404);
    expect(ErrorBody.parse(legacy.body).message).toMatch(/"never-made" not found/);
  });

  it("a dataset created and still empty answers queries with no rows", async () => {
    const q = await api(em.current, "POST", "/v1/datasets/_apl", { apl: "['seeded']", ...ALL_TIME });
    expect(q.status).toBe(200);
    expect(q.body.matches).toEqual([]);
    const legacy = await api(em.current, "POST", "/v1/datasets/seeded/query", ALL_TIME);
    expect(legacy.status).toBe(200);
    expect(legacy.body.matches).toEqual([]);
  });

  it("startEmulator({ datasets }) refuses a name the dataset rule refuses, naming it", async () => {
    await expect(startEmulator({ port: 0, datasets: ["axiom-x"] })).rejects.toThrow(
      /datasets: "axiom-x" must not start with 'axiom-'/,
    );
  });
});

describe("fields", () => {
  beforeAll(async () => {
    await createDatasets(em.current, "with-fields");
    await ingest("with-fields", [
      { msg: "a", status: 200, req: { path: "/", ms: 1.5 }, tags: ["x"] },
      { msg: "b", status: "ok" },
    ]);
  });

  it("GET /fields lists what ingest has seen, nested fields flattened, mixed types joined", async () => {
    const res = await api(em.current, "GET", "/v2/datasets/with-fields/fields");
    expect(res.status).toBe(200);
    const fields = z.array(OpenApiField).parse(res.body);
    const byName = Object.fromEntries(fields.map((f) => [f.name, f.type]));
    expect(byName).toMatchObject({
      _time: "datetime",
      msg: "string",
      status: "integer|string",
      "req.path": "string",
      "req.ms": "float",
      tags: "array",
    });
    expect((await api(em.current, "GET", "/v2/datasets/seeded/fields")).body).toEqual([]);
  });

  it("GET and PUT /fields/{field}: description, unit and hidden change; the type does not", async () => {
    const got = await api(em.current, "GET", "/v2/datasets/with-fields/fields/req.ms");
    expect(OpenApiField.parse(got.body)).toMatchObject({ name: "req.ms", type: "float" });
    const put = await api(em.current, "PUT", "/v2/datasets/with-fields/fields/req.ms", {
      name: "req.ms",
      type: "string",
      description: "latency",
      unit: "ms",
      hidden: true,
    });
    expect(put.status).toBe(200);
    expect(OpenApiField.parse(put.body)).toEqual({
      name: "req.ms",
      type: "float",
      description: "latency",
      unit: "ms",
      hidden: true,
    });
    expect((await api(em.current, "GET", "/v2/datasets/with-fields/fields/req.ms")).body.unit).toBe("ms");
  });

  it.each([
    ["a field not seen", 404, "GET", "/v2/datasets/with-fields/fields/nope", undefined],
    ["a dataset not created", 404, "GET", "/v2/datasets/nope/fields", undefined],
    ["PUT without type", 422, "PUT", "/v2/datasets/with-fields/fields/msg", { name: "msg" }],
    [
      "PUT naming another field",
      422,
      "PUT",
      "/v2/datasets/with-fields/fields/msg",
      { name: "x", type: "string" },
    ],
  ])("%s is a %d", async (_case, status, method, path, body) => {
    const res = await api(em.current, method, path, body);
    expect(res.status).toBe(status);
    expect(ErrorBody.parse(res.body).code).toBe(status);
  });
});

describe("map fields (axiom-go axiom/datasets_integration_test.go:491-583)", () => {
  beforeAll(() => createDatasets(em.current, "maps"));
  const path = "/v2/datasets/maps/mapfields";

  it("POST answers the MapField and the dataset lists it; GET is a bare array", async () => {
    const res = await api(em.current, "POST", path, { name: "foo" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "foo" });
    expect((await api(em.current, "GET", path)).body).toEqual(["foo"]);
    expect((await api(em.current, "GET", "/v2/datasets/maps")).body.mapFields).toEqual(["foo"]);
  });

  it("PUT replaces the list and answers it; [] empties it; DELETE removes one (204)", async () => {
    expect((await api(em.current, "PUT", path, ["bar", "baz", "buz"])).body).toEqual(["bar", "baz", "buz"]);
    const del = await api(em.current, "DELETE", `${path}/baz`);
    expect(del.status).toBe(204);
    expect((await api(em.current, "GET", path)).body).toEqual(["bar", "buz"]);
    expect((await api(em.current, "PUT", path, [])).body).toEqual([]);
  });

  it.each([
    ["a duplicate create", 409, "POST", { name: "dupe" }, true],
    ["the name __invalid__", 422, "POST", { name: "__invalid__" }, false],
    ["a PUT with duplicates", 422, "PUT", ["dupe", "dupe"], false],
    ["a PUT that is not a list", 422, "PUT", { name: "x" }, false],
  ])("%s is an error (%d)", async (_case, status, method, body, first) => {
    if (first) await api(em.current, method, path, body);
    const res = await api(em.current, method, path, body);
    expect(res.status).toBe(status);
    expect(ErrorBody.parse(res.body).code).toBe(status);
  });

  it("deleting a map field that does not exist is a 404", async () => {
    expect((await api(em.current, "DELETE", `${path}/missing`)).status).toBe(404);
  });
});

describe("trim and vacuum", () => {
  it("trim answers 204 without a body and deletes events older than maxDuration (axiom-go sends '1s')", async () => {
    await createDatasets(em.current, "trimmed");
    const old = new Date(Date.now() - 2 * 3600_000).toISOString();
    await ingest("trimmed", [{ _time: old, n: 1 }, { n: 2 }]);
    const res = await api(em.current, "POST", "/v2/datasets/trimmed/trim", { maxDuration: "1h" });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const q = await api(em.current, "POST", "/v1/datasets/_apl", { apl: "['trimmed']", ...ALL_TIME });
    expect(q.body.matches.map((m: { data: unknown }) => m.data)).toEqual([{ n: 2 }]);
  });

  it.each([
    ["maxDuration missing", 422, {}],
    ["maxDuration not a Go duration", 422, { maxDuration: "one hour" }],
    ["a body that is not an object", 400, []],
  ])("trim: %s is a %d", async (_case, status, body) => {
    await createDatasets(em.current, "trimmed");
    const res = await api(em.current, "POST", "/v2/datasets/trimmed/trim", body);
    expect(res.status).toBe(status);
    if (status === 422) expect(res.body.message).toMatch(/^maxDuration: /);
  });

  it("trim and vacuum of a dataset never created are 404s", async () => {
    expect((await api(em.current, "POST", "/v2/datasets/nope/trim", { maxDuration: "1h" })).status).toBe(404);
    expect((await api(em.current, "POST", "/v2/datasets/nope/vacuum")).status).toBe(404);
  });

  it("vacuum answers 200; another too soon is the documented 429 with Retry-After", async () => {
    await createDatasets(em.current, "vacuumed");
    const first = await api(em.current, "POST", "/v2/datasets/vacuumed/vacuum");
    expect(first.status).toBe(200);
    const second = await api(em.current, "POST", "/v2/datasets/vacuumed/vacuum");
    expect(second.status).toBe(429);
    expect(Number(second.headers["retry-after"])).toBeGreaterThan(0);
  });
});

describe("the organization's license (OpenAPI `License`, axiomhq/docs content/docs/(api-reference)/restapi/versions/v2.json)", () => {
  it("carries defaultEdgeDeployment and edgeDeployments, a list of deployment ids (strings)", async () => {
    const org = (await api(em.current, "GET", `/v2/orgs/${em.current.orgId}`)).body;
    expect(org.license.defaultEdgeDeployment).toBe("cloud.us-east-1.aws");
    const list = z.array(z.string()).parse(org.license.edgeDeployments);
    expect(list).toContain(org.license.defaultEdgeDeployment);
    expect(org.defaultEdgeDeployment).toBe(org.license.defaultEdgeDeployment);
  });

  it("a dataset on a listed deployment still gets that deployment's URL", async () => {
    const created = await api(em.current, "POST", "/v2/datasets", {
      name: "on-eu-edge-2",
      edgeDeployment: "cloud.eu-central-1.aws",
    });
    expect(created.status).toBe(200);
    expect(created.body.edgeDeploymentUrl).toBe("https://eu-central-1.aws.edge.localhost");
  });
});
