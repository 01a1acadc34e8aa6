/**
 * The emulator against the service's published OpenAPI documents, axiomhq/docs
 * `content/docs/(api-reference)/restapi/versions/v2.json` and `v1.json` (read at commit fbd61330c835): every
 * operation's methods, the `format: int64` fields by the int64 range, routing before body rules, the server-owned
 * fields' types, and the emulator's own document (`GET /openapi.json`) against its routes. Issue 35, points 3–7.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { int64, validate, MonitorCreateSchema } from "../../provider/schemas";
import { INVALID_FIELD_STATUS, parseExactJson, stringifyExactJson } from "../../emulator/http";
import { OPERATIONS, optionalMayBeNull } from "../../emulator/routes/openapi";
import { api, createDatasets, useEmulator } from "../helpers/emulator";

const em = useEmulator();

/**
 * Every operation of the published documents, as `METHOD path` (v2.json's paths under /v2, v1.json's under /v1),
 * read from the documents at the commit above. Path parameters are written `{}`: their names differ.
 */
const PUBLISHED = [
  ...[
    "GET POST /annotations",
    "GET PUT DELETE /annotations/{}",
    "GET POST /datasets",
    "GET PUT DELETE /datasets/{}",
    "POST /datasets/{}/trim",
    "POST /datasets/{}/vacuum",
    "GET /datasets/{}/fields",
    "GET PUT /datasets/{}/fields/{}",
    "GET PUT POST /datasets/{}/mapfields",
    "DELETE /datasets/{}/mapfields/{}",
    "GET POST /monitors",
    "GET PUT DELETE /monitors/{}",
    "GET /monitors/{}/history",
    "GET POST /notifiers",
    "GET PUT DELETE /notifiers/{}",
    "GET POST /orgs",
    "POST /orgs/provision",
    "GET PUT /orgs/{}",
    "GET POST /rbac/roles",
    "GET PUT DELETE /rbac/roles/{}",
    "GET POST /rbac/groups",
    "GET PUT DELETE /rbac/groups/{}",
    "GET POST /apl-starred-queries",
    "GET PUT DELETE /apl-starred-queries/{}",
    "GET POST /tokens",
    "GET DELETE /tokens/{}",
    "POST /tokens/{}/regenerate",
    "GET PUT /user",
    "GET POST /users",
    "GET DELETE /users/{}",
    "PUT /users/{}/role",
    "GET POST /vfields",
    "GET PUT DELETE /vfields/{}",
    "GET POST /views",
    "GET PUT DELETE /views/{}",
    "GET POST /dashboards",
    "GET PUT DELETE /dashboards/uid/{}",
    "PATCH /dashboards/uid/{}/charts/{}",
  ].map((line) => `/v2 ${line}`),
  ...[
    "GET POST /datasets",
    "GET PUT DELETE /datasets/{}",
    "POST /datasets/_apl",
    "POST /datasets/{}/ingest",
    "POST /datasets/{}/query",
    "POST /datasets/{}/trim",
    "GET /user",
  ].map((line) => `/v1 ${line}`),
].flatMap((line) => {
  const [version, ...rest] = line.split(" ");
  const p = rest.pop()!;
  return rest.map((method) => `${method} ${version}${p}`);
});

/** What the emulator serves beyond the documents, each with its reason. */
const EXTRA: Record<string, string> = {
  "PUT /v2/users/{}": "axiom-go Users.Update and terraform-provider-axiom send it; it renames only",
  "GET /openapi.json": "the emulator's own document",
  "GET /_emulator/clock": "the emulator's own control route: its clock (emulator/routes/emulator-control.ts)",
  "POST /_emulator/clock":
    "the emulator's own control route: moves a manual clock, making the monitor runs due",
  "GET /_emulator/notifications": "the emulator's own control route: the outbox of notifications",
  "GET /": "the emulator's live console (emulator/console/)",
  "GET /favicon.ico": "the console's icon: none, an empty answer",
  "GET /_emulator/console/app.js": "the console's script",
  "GET /_emulator/console/app.css": "the console's styles",
  "GET /_emulator/console/datasets": "the console's data: datasets",
  "GET /_emulator/console/monitors": "the console's data: monitors",
  "GET /_emulator/console/monitors/{}": "the console's data: one monitor",
  "GET /_emulator/console/notifications": "the console's data: the outbox",
};

const routeKey = (key: string) => key.replace(/:[A-Za-z]+/g, "{}");

describe("routes against the published documents", () => {
  const served = Object.keys(OPERATIONS).map(routeKey).sort();
  it("serves every published operation", () => {
    expect(PUBLISHED.filter((op) => !served.includes(op))).toEqual([]);
  });
  it("serves nothing else but the listed extras", () => {
    expect(served.filter((op) => !PUBLISHED.includes(op)).sort()).toEqual(Object.keys(EXTRA).sort());
  });
  it("Allow names a path's own methods: /v2/orgs/provision is not /v2/orgs/{id}", async () => {
    const res = await api(em.current, "GET", "/v2/orgs/provision");
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
    const item = await api(em.current, "DELETE", "/v2/orgs/local-org");
    expect(item.headers.allow).toBe("GET, PUT");
  });
  it("the document's own operations are exactly the router's", async () => {
    const res = await api(em.current, "GET", "/openapi.json", undefined, { authorization: "" });
    expect(res.status).toBe(200);
    const doc = res.body as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths)
      .flatMap(([p, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{[^}]+\}/g, "{}")}`),
      )
      .sort();
    expect(documented).toEqual(served);
  });
  it("the file the build writes is the document served", async () => {
    const file = path.join(__dirname, "..", "..", "dist", "emulator", "openapi.json");
    const res = await api(em.current, "GET", "/openapi.json");
    expect(fs.readFileSync(file, "utf8")).toBe(res.text);
    // int64 bounds in exact digits.
    expect(res.text).toContain('"maximum":9223372036854775807');
  });
  it("an optional response field may be null, and a field named `properties` stays a schema", () => {
    // A notifier has a field called `properties`: its schema's keywords are not fields to make nullable.
    const field = { type: "object", properties: { email: { type: "object" } } };
    const out = optionalMayBeNull({ type: "object", properties: { properties: field }, required: [] });
    expect(out).toEqual({
      type: "object",
      required: [],
      properties: {
        properties: {
          anyOf: [
            { type: "object", properties: { email: { anyOf: [{ type: "object" }, { type: "null" }] } } },
            { type: "null" },
          ],
        },
      },
    });
  });
});

describe("POST /v2/orgs and /v2/orgs/provision", () => {
  it("creates an organization record, listed after", async () => {
    const res = await api(em.current, "POST", "/v2/orgs", {
      name: "Second",
      edgeDeployment: "cloud.eu-central-1.aws",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "Second", defaultEdgeDeployment: "cloud.eu-central-1.aws" });
    const list = await api(em.current, "GET", "/v2/orgs");
    expect((list.body as { name: string }[]).map((o) => o.name)).toContain("Second");
  });
  it("refuses an unknown edge deployment, naming the field", async () => {
    const res = await api(em.current, "POST", "/v2/orgs", { name: "x", edgeDeployment: "mars" });
    expect(res.status).toBe(422);
    expect(res.text).toContain("edgeDeployment");
  });
  it("provisions without a token, and its token works", async () => {
    const res = await api(em.current, "POST", "/v2/orgs/provision", {}, { authorization: "" });
    expect(res.status).toBe(200);
    const body = res.body as Record<string, string>;
    for (const k of ["id", "name", "defaultEdgeDeployment", "expiresAt", "claimUrl", "token"])
      expect(typeof body[k]).toBe("string");
    const monitors = await api(em.current, "GET", "/v2/monitors", undefined, {
      authorization: `Bearer ${body.token}`,
    });
    expect(monitors.status).toBe(200);
  });
});

describe("routing before body rules", () => {
  it("a GET with a body to an unknown path is a 404, to a wrong method a 405, to a route a 400", async () => {
    expect((await api(em.current, "GET", "/v2/nothing", { a: 1 })).status).toBe(404);
    const wrong = await api(em.current, "GET", "/v2/monitors/x/history/more", { a: 1 });
    expect(wrong.status).toBe(404);
    const method = await api(em.current, "GET", "/v2/orgs/provision", { a: 1 });
    expect(method.status).toBe(405);
    const route = await api(em.current, "GET", "/v2/monitors", { a: 1 });
    expect(route.status).toBe(400);
    expect(route.text).toContain("takes no body");
  });
});

describe("int64, as the document types it", () => {
  it("offset above 2^53 is valid; above the int64 maximum it is a 400", async () => {
    expect((await api(em.current, "GET", "/v2/apl-starred-queries?offset=9007199254740993")).status).toBe(
      200,
    );
    expect((await api(em.current, "GET", "/v2/dashboards?offset=9223372036854775807")).status).toBe(200);
    const above = await api(em.current, "GET", "/v2/dashboards?offset=9223372036854775808");
    expect(above.status).toBe(400);
    expect(above.text).toContain("offset: must be at most 9223372036854775807");
    expect((await api(em.current, "GET", "/v2/apl-starred-queries?offset=-1")).status).toBe(400);
  });
  it("a monitor's rangeMinutes of 9223372036854775806 is kept exactly", async () => {
    const text =
      '{"name":"m","aplQuery":"logs","type":"MatchEvent","rangeMinutes":9223372036854775806,' +
      '"triggerFromNRuns":9007199254740993}';
    const res = await api(em.current, "POST", "/v2/monitors", text);
    expect(res.status).toBe(200);
    expect(res.text).toContain('"rangeMinutes":9223372036854775806');
    expect(res.text).toContain('"triggerFromNRuns":9007199254740993');
    const id = (res.body as { id: string }).id;
    const read = await api(em.current, "GET", `/v2/monitors/${id}`);
    expect(read.text).toContain('"rangeMinutes":9223372036854775806');
    const over = await api(
      em.current,
      "POST",
      "/v2/monitors",
      text.replace("9223372036854775806", "9223372036854775808"),
    );
    expect(over.status).toBe(422);
    expect(over.text).toContain("rangeMinutes: must be at most 9223372036854775807");
  });
  it("a dashboard version above 2^53 is read exactly: a mismatch names it", async () => {
    const doc = {
      name: "d",
      owner: "X-AXIOM-EVERYONE",
      charts: [],
      layout: [],
      refreshTime: 60,
      schemaVersion: 2,
      timeWindowStart: "qr-now-1h",
      timeWindowEnd: "qr-now",
    };
    await api(em.current, "POST", "/v2/dashboards", { uid: "big", dashboard: doc });
    const text = `{"version":9007199254740993,"dashboard":${JSON.stringify(doc)}}`;
    const res = await api(em.current, "PUT", "/v2/dashboards/uid/big", text);
    expect(res.status).toBe(412);
    expect(res.text).toContain("version 9007199254740993");
  });
  it("a dashboard version that is not digits is refused naming it, not a 500 (found by schemathesis)", async () => {
    const doc = {
      name: "d",
      owner: "X-AXIOM-EVERYONE",
      charts: [],
      layout: [],
      refreshTime: 60,
      schemaVersion: 2,
      timeWindowStart: "qr-now-1h",
      timeWindowEnd: "qr-now",
    };
    const res = await api(em.current, "POST", "/v2/dashboards", { uid: "v", version: "AAA", dashboard: doc });
    expect(res.status).toBe(INVALID_FIELD_STATUS);
    expect(res.text).toContain("version");
  });
  it("the provider's rule is the safe-integer range: a Pulumi number is a float64", () => {
    const rule = int64({ min: 1n });
    expect(rule.safeParse(2 ** 53 - 1).success).toBe(true);
    const r = validate(z.object({ n: rule }), { n: 2 ** 53 + 2 });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.failures[0].reason).toMatch(/float64/);
    // The emulator's reading of the same literal is a bigint, which the same schema takes.
    const parsed = parseExactJson('{"n":9007199254740993}') as { n: unknown };
    expect(parsed.n).toBe(9007199254740993n);
    expect(rule.safeParse(parsed.n).success).toBe(true);
    expect(stringifyExactJson(parsed)).toBe('{"n":9007199254740993}');
  });
  it("a float64 field takes an integer literal beyond 2^53 as the nearest float64", () => {
    const body = parseExactJson(
      '{"name":"m","aplQuery":"q","type":"Threshold","operator":"Above","threshold":100000000000000000000}',
    );
    const r = validate(MonitorCreateSchema, body);
    expect(r.ok && r.value.threshold).toBe(1e20);
  });
});

describe("fields the emulator ignores are still checked", () => {
  it("a view's sharedByOrg must be a string", async () => {
    await createDatasets(em.current, "logs");
    const res = await api(em.current, "POST", "/v2/views", {
      name: "v1",
      aplQuery: "['logs']",
      datasets: ["logs"],
      sharedByOrg: 12345,
    });
    expect(res.status).toBe(422);
    expect(res.text).toContain("sharedByOrg: must be a string");
  });
  it("a monitor's createdBy and updatedAt must have their types", async () => {
    const res = await api(em.current, "POST", "/v2/monitors", {
      name: "m",
      aplQuery: "['logs']",
      type: "MatchEvent",
      createdBy: 5,
      updatedAt: "garbage",
    });
    expect(res.status).toBe(422);
    expect(res.text).toContain("createdBy: must be a string");
    expect(res.text).toContain("updatedAt: must be an RFC 3339 date-time");
  });
  it("well-typed echoed fields are ignored", async () => {
    const res = await api(em.current, "POST", "/v2/monitors", {
      name: "m",
      aplQuery: "['logs']",
      type: "MatchEvent",
      id: "mon_mine",
      createdBy: "someone",
      updatedAt: "2020-01-01T00:00:00Z",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ createdBy: "local-user" });
    expect((res.body as { id: string }).id).not.toBe("mon_mine");
  });
});
