/**
 * Property-based robustness against a live emulator: random bodies, path ids and query strings never get a
 * 5xx, and every error is the service's JSON `{code, message}`.
 */
import fc from "fast-check";
import { request } from "undici";
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator({ datasets: ["a", "fuzz"] });

/** What every response must be: below 500, JSON when it has a body, `{code, message}` when an error. */
interface Seen {
  status: number;
  type: string;
  text: string;
}

async function send(
  method: string,
  path: string,
  body?: string | Buffer,
  type = "application/json",
): Promise<Seen> {
  const headers: Record<string, string> = { authorization: `Bearer ${em.current.token}` };
  if (body !== undefined) headers["content-type"] = type;
  const res = await request(em.current.url + path, { method: method as "POST", headers, body });
  return {
    status: res.statusCode,
    type: String(res.headers["content-type"] ?? ""),
    text: await res.body.text(),
  };
}

function expectWellFormed(seen: Seen, context: string): void {
  const where = `${context} -> ${seen.status} ${seen.text.slice(0, 200)}`;
  if (seen.status >= 500) throw new Error(`server error: ${where}`);
  if (seen.status === 204) return;
  if (!seen.type.startsWith("application/json")) throw new Error(`not JSON: ${where}`);
  const body = JSON.parse(seen.text) as { code?: unknown; message?: unknown };
  if (seen.status >= 400) {
    if (body.code !== seen.status || typeof body.message !== "string" || body.message === "") {
      throw new Error(`error body is not {code, message}: ${where}`);
    }
  }
}

/** JSON values, weighted toward objects whose keys are the fields the endpoint knows. */
function bodies(keys: string[]): fc.Arbitrary<unknown> {
  const known = fc.dictionary(
    fc.constantFrom(...keys, "id", "createdAt", "extra"),
    fc.jsonValue({ maxDepth: 3 }),
    {
      maxKeys: keys.length + 2,
    },
  );
  return fc.oneof({ weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) }, { weight: 3, arbitrary: known });
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  const made = await Promise.all([
    api(em.current, "POST", "/v2/annotations", { type: "deploy", datasets: ["a"] }),
    api(em.current, "POST", "/v2/monitors", {
      name: "m",
      type: "MatchEvent",
      aplQuery: "['a'] | where x == 1",
    }),
    api(em.current, "POST", "/v2/notifiers", {
      name: "n",
      properties: { email: { emails: ["ops@example.com"] } },
    }),
    api(em.current, "POST", "/v2/rbac/roles", { name: "r" }),
    api(em.current, "POST", "/v2/apl-starred-queries", {
      kind: "apl",
      name: "s",
      who: "local-user",
      metadata: {},
      query: { apl: "['a']" },
    }),
    api(em.current, "POST", "/v1/datasets/a/ingest", [{ x: 1 }, { x: 2, s: "t" }]),
  ]);
  for (const r of made) if (r.status >= 300) throw new Error(r.text);
  [ids.annotations, ids.monitors, ids.notifiers, ids.roles, ids["apl-starred-queries"]] = made
    .slice(0, 5)
    .map((r) => r.body.id as string);
  ids.orgs = em.current.orgId;
});

/** Runs per property; the whole file stays well under 30 s on two cores. */
const RUNS = 200;

describe("random JSON bodies on every POST and PUT", () => {
  const families: [string, string[]][] = [
    ["annotations", ["datasets", "type", "description", "endTime", "time", "title", "url"]],
    [
      "monitors",
      [
        "name",
        "aplQuery",
        "type",
        "operator",
        "threshold",
        "compareDays",
        "tolerance",
        "intervalMinutes",
        "rangeMinutes",
        "secondDelay",
        "notifierIds",
        "notifierIDs",
        "disabledUntil",
        "alertOnNoData",
      ],
    ],
    ["notifiers", ["name", "properties", "disabledUntil"]],
    [
      "rbac/roles",
      ["name", "description", "members", "orgCapabilities", "datasetCapabilities", "viewCapabilities"],
    ],
    ["apl-starred-queries", ["kind", "name", "who", "dataset", "metadata", "query"]],
  ];

  it.each(families)("POST and PUT /v2/%s", async (family, keys) => {
    const idKey = family === "rbac/roles" ? "roles" : family;
    await fc.assert(
      fc.asyncProperty(bodies(keys), fc.boolean(), async (body, put) => {
        const path = put ? `/v2/${family}/${ids[idKey]}` : `/v2/${family}`;
        const text = JSON.stringify(body);
        expectWellFormed(
          await send(put ? "PUT" : "POST", path, text),
          `${put ? "PUT" : "POST"} ${path} ${text}`,
        );
      }),
      { numRuns: RUNS },
    );
  });

  it("PUT /v2/orgs/{id}", async () => {
    await fc.assert(
      fc.asyncProperty(bodies(["name", "plan", "license"]), async (body) => {
        const text = JSON.stringify(body);
        expectWellFormed(await send("PUT", `/v2/orgs/${ids.orgs}`, text), `PUT org ${text}`);
      }),
      { numRuns: RUNS },
    );
  });

  it("POST /v1/datasets/_apl with random requests and formats", async () => {
    const aplBody = fc.record(
      {
        apl: fc.oneof(fc.string({ maxLength: 60 }), fc.constant("['a'] | where x > 0"), fc.jsonValue()),
        startTime: fc.oneof(fc.string({ maxLength: 30 }), fc.constant("now-1h"), fc.jsonValue()),
        endTime: fc.oneof(fc.string({ maxLength: 30 }), fc.constant("now"), fc.integer()),
        cursor: fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue()),
        includeCursor: fc.jsonValue(),
        queryOptions: fc.jsonValue({ maxDepth: 2 }),
        variables: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    );
    const format = fc.option(fc.oneof(fc.constantFrom("legacy", "tabular"), fc.string({ maxLength: 10 })));
    await fc.assert(
      fc.asyncProperty(fc.oneof(aplBody, fc.jsonValue()), format, async (body, fmt) => {
        const path = `/v1/datasets/_apl${fmt === null ? "" : `?format=${encodeURIComponent(fmt)}`}`;
        const text = JSON.stringify(body);
        expectWellFormed(await send("POST", path, text), `POST ${path} ${text}`);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it("POST /v1/datasets/{name}/query with random legacy requests", async () => {
    const legacy = fc.record(
      {
        startTime: fc.oneof(
          fc.constant("2000-01-01T00:00:00Z"),
          fc.string({ maxLength: 30 }),
          fc.jsonValue(),
        ),
        endTime: fc.oneof(fc.constant("now"), fc.jsonValue()),
        limit: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
        order: fc.oneof(
          fc.array(fc.record({ field: fc.oneof(fc.constant("_time"), fc.string()), desc: fc.jsonValue() })),
          fc.jsonValue(),
        ),
        filter: fc.jsonValue({ maxDepth: 4 }),
        project: fc.oneof(fc.array(fc.jsonValue({ maxDepth: 2 })), fc.jsonValue()),
        cursor: fc.jsonValue(),
        includeCursor: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(legacy, async (body) => {
        const text = JSON.stringify(body);
        expectWellFormed(await send("POST", "/v1/datasets/a/query", text), `legacy ${text}`);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it("POST /v1/datasets/{name}/ingest with random bodies, content types and timestamp options", async () => {
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc
        .array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 })
        .map((vs) => vs.map((v) => JSON.stringify(v)).join("\n")),
      fc.string({ maxLength: 200 }),
    );
    const type = fc.constantFrom("application/json", "application/x-ndjson", "text/csv", "text/plain");
    const option = fc.option(
      fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom("2006-01-02", "Jan _2 15:04:05.000000", "x", "%Y"),
      ),
    );
    await fc.assert(
      fc.asyncProperty(body, type, option, option, option, async (text, ct, field, format, delimiter) => {
        const params = new URLSearchParams();
        if (field !== null) params.set("timestamp-field", field);
        if (format !== null) params.set("timestamp-format", format);
        if (delimiter !== null) params.set("csv-delimiter", delimiter);
        const path = `/v1/datasets/fuzz/ingest?${params}`;
        expectWellFormed(await send("POST", path, text, ct), `ingest ${ct} ${path} ${JSON.stringify(text)}`);
      }),
      { numRuns: RUNS * 3 },
    );
  });
});

describe("random path ids", () => {
  const tricky = fc.constantFrom(
    "%2e%2e",
    "%2e%2e%2f%2e%2e",
    "..%2F..%2Fetc%2Fpasswd",
    "a%2Fb",
    "%00",
    "%E0%A4%A",
    "%",
    "mon_%F0%9F%92%A5",
    "ünïcødé",
    "😀",
    "x".repeat(4000),
  );
  const encoded = fc.string({ minLength: 1, maxLength: 300, unit: "binary" }).map(encodeURIComponent);
  const id = fc.oneof(tricky, encoded);

  it("GET, PUT and DELETE of a random id on every management family: 404 (or 400), never 500", async () => {
    const family = fc.constantFrom(
      "annotations",
      "monitors",
      "notifiers",
      "rbac/roles",
      "orgs",
      "apl-starred-queries",
    );
    const method = fc.constantFrom("GET", "PUT", "DELETE");
    await fc.assert(
      fc.asyncProperty(family, id, method, async (fam, raw, m) => {
        const path = `/v2/${fam}/${raw}`;
        const seen = await send(m, path, m === "PUT" ? "{}" : undefined);
        expectWellFormed(seen, `${m} ${path.slice(0, 100)}`);
        if (![400, 404, 405].includes(seen.status))
          throw new Error(`${m} ${path.slice(0, 100)} -> ${seen.status}`);
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it("random dataset names on ingest, query and monitor history never get a 5xx", async () => {
    const where = fc.constantFrom("ingest", "query", "history");
    await fc.assert(
      fc.asyncProperty(id, where, async (raw, w) => {
        const seen =
          w === "history"
            ? await send("GET", `/v2/monitors/${raw}/history?startTime=now-1h&endTime=now`)
            : await send(
                "POST",
                `/v1/datasets/${raw}/${w}`,
                w === "ingest" ? '[{"a":1}]' : '{"startTime":"now-1h","endTime":"now"}',
              );
        expectWellFormed(seen, `${w} ${raw.slice(0, 100)}`);
        if (w === "history" && seen.status !== 404) throw new Error(`history ${raw} -> ${seen.status}`);
      }),
      { numRuns: RUNS * 2 },
    );
  });
});

describe("random query strings on list endpoints", () => {
  const value = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      "0001-01-01T00:00:00Z",
      "2024-01-01T00:00:00Z",
      "now-1h",
      "-1",
      "0",
      "1001",
      "all",
      "team",
      "",
    ),
  );
  const lists: [string, string[]][] = [
    ["/v2/annotations", ["datasets", "start", "end"]],
    ["/v2/apl-starred-queries", ["limit", "offset", "who", "qs", "dataset"]],
    ["/v2/monitors", ["x"]],
    ["/v2/notifiers", ["x"]],
    ["/v2/rbac/roles", ["x"]],
    ["/v2/orgs", ["x"]],
    ["/v2/monitors/{id}/history", ["startTime", "endTime"]],
  ];

  it.each(lists)("GET %s answers 200 or a 400 naming a parameter", async (path, names) => {
    const params = fc.array(
      fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })), value),
      {
        maxLength: 5,
      },
    );
    await fc.assert(
      fc.asyncProperty(params, async (pairs) => {
        const qs = new URLSearchParams(pairs);
        const full = `${path.replace("{id}", ids.monitors)}?${qs}`;
        const seen = await send("GET", full);
        expectWellFormed(seen, `GET ${full}`);
        if (seen.status !== 200) {
          const { message } = JSON.parse(seen.text) as { message: string };
          if (seen.status !== 400 || !names.some((n) => message.includes(n))) {
            throw new Error(`GET ${full} -> ${seen.status} ${message}`);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});
