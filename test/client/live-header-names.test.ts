/**
 * The header names the live service reads and answers, asserted on the wire against a plain node:http server (not
 * the emulator, which accepts either spelling and so could not tell them apart). `rawHeaders` keeps each name as
 * the client wrote it.
 *
 * Sources, all the official clients of the service:
 * - organization: `X-Axiom-Org-Id` (axiomhq/axiom-go axiom/client.go `headerOrganizationID`; axiomhq/axiom-js
 *   packages/js/src/httpClient.ts; axiomhq/axiom-py src/axiom_py/client.py);
 * - trace id: `X-Axiom-Trace-Id` (axiomhq/axiom-go axiom/client.go `headerTraceID`, read into its errors);
 * - event labels: `X-Axiom-Event-Labels`, the labels as one compact JSON object (axiomhq/axiom-go axiom/datasets.go
 *   `setEventLabels`, json.Marshal; asserted as JSON in axiom/datasets_test.go TestDatasetsService_IngestEvents);
 * - CSV field names: `X-Axiom-CSV-Fields`, the names joined by commas (axiomhq/axiom-go axiom/datasets.go
 *   `setOptionHeaders`, strings.Join; the OpenAPI `ingestIntoDataset` in axiomhq/docs
 *   content/docs/(api-reference)/restapi/versions/v1.json, style simple, not exploded).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { ApiError, ObservabilityClient } from "../../provider/client";
import * as dynamic from "../../provider/resources/dynamic";

const TOKEN = "xapt-live-header-names-0123456789";

interface Hit {
  method: string;
  url: string;
  /** Header names exactly as sent. */
  names: string[];
  headers: IncomingMessage["headers"];
  body: Buffer;
}

/** A plain server that records each request and answers through `answer`. */
async function plainServer(answer: (hit: Hit, res: ServerResponse) => void) {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const hit: Hit = {
        method: req.method ?? "",
        url: req.url ?? "",
        names: req.rawHeaders.filter((_, i) => i % 2 === 0),
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      hits.push(hit);
      answer(hit, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const ingestResult = (n: number) => ({
  ingested: n,
  failed: 0,
  failures: [],
  processedBytes: 10,
  blocksCreated: 0,
  walLength: n,
});

let server: Awaited<ReturnType<typeof plainServer>>;
beforeAll(async () => {
  let monitorSeq = 0;
  const monitors = new Map<string, Record<string, unknown>>();
  server = await plainServer((hit, res) => {
    if (hit.url.startsWith("/v1/datasets/web/ingest")) {
      const text = gunzipSync(hit.body).toString("utf8");
      return reply(res, 200, ingestResult(text.trim().split("\n").length));
    }
    if (hit.method === "POST" && hit.url === "/v2/monitors") {
      const id = `mon_${++monitorSeq}`;
      const created = {
        ...(JSON.parse(hit.body.toString("utf8")) as object),
        id,
        createdAt: "2026-01-01T00:00:00Z",
        createdBy: "usr_1",
      };
      monitors.set(id, created);
      return reply(res, 200, created);
    }
    if (hit.method === "GET" && hit.url.split("?")[0] === "/v2/monitors")
      return reply(res, 200, [...monitors.values()]);
    const monitor = /^\/v2\/monitors\/([^/?]+)$/.exec(hit.url);
    if (hit.method === "GET" && monitor && monitors.has(monitor[1])) {
      return reply(res, 200, monitors.get(monitor[1]));
    }
    if (hit.url === "/v2/datasets/gone") {
      return reply(res, 404, { code: 404, message: "not found" }, { "X-Axiom-Trace-Id": "live-trace-1" });
    }
    if (hit.url === "/v2/datasets/old") {
      return reply(res, 404, { code: 404, message: "not found" }, { "X-Trace-Id": "spec-trace-1" });
    }
    reply(res, 404, { code: 404, message: `no route ${hit.method} ${hit.url}` });
  });
});
afterAll(() => server.close());

const client = (orgId?: string) =>
  new ObservabilityClient({ url: server.url, token: TOKEN, orgId, maxRetries: 0 });

describe("organization header: X-Axiom-Org-Id, as the live service reads it", () => {
  it("a personal token with an org id sends X-Axiom-Org-Id, with the API document's x-service-org-id beside it", async () => {
    const from = server.hits.length;
    const c = client("org-live-1");
    await c.ingest("web", [{ a: 1 }]);
    await c.close();
    const hit = server.hits[from];
    expect(hit.names).toContain("X-Axiom-Org-Id");
    expect(hit.headers["x-axiom-org-id"]).toBe("org-live-1");
    expect(hit.headers["x-service-org-id"]).toBe("org-live-1");
  });

  it("without an org id neither organization header is sent", async () => {
    const from = server.hits.length;
    const c = client();
    await c.ingest("web", [{ a: 1 }]);
    await c.close();
    const lower = server.hits[from].names.map((n) => n.toLowerCase());
    expect(lower).not.toContain("x-axiom-org-id");
    expect(lower).not.toContain("x-service-org-id");
  });

  it("a provider operation (Monitor create, personal token and org id from the stack config) sends the same", async () => {
    const from = server.hits.length;
    await dynamic.reset();
    const config: Record<string, string> = {
      "observability:url": server.url,
      "observability:token": TOKEN,
      "observability:orgId": "org-live-2",
    };
    await dynamic.configure({ config: { get: (k: string) => config[k] } });
    try {
      const impl = dynamic.implementation("Monitor");
      const { inputs, failures } = await impl.check(
        {},
        { name: "errors", aplQuery: "['web'] | count", type: "Threshold", operator: "Above", threshold: 1 },
      );
      expect(failures).toEqual([]);
      const created = await impl.create(inputs!);
      expect(created.id).toMatch(/^mon_/);
    } finally {
      await dynamic.reset();
    }
    const sent = server.hits.slice(from);
    const create = sent.find((h) => h.method === "POST" && h.url === "/v2/monitors");
    expect(create).toBeDefined();
    // Every request of the operation (its reads too) names the organization the live service's way.
    for (const hit of sent) expect(hit.names).toContain("X-Axiom-Org-Id");
    expect(create!.names).toContain("X-Axiom-Org-Id");
    expect(create!.headers["x-axiom-org-id"]).toBe("org-live-2");
    expect(create!.headers["x-service-org-id"]).toBe("org-live-2");
  });
});

describe("trace id: X-Axiom-Trace-Id, else X-Trace-Id, into the error", () => {
  it("reads the live service's X-Axiom-Trace-Id", async () => {
    const c = client();
    const err = await c.datasets.get("gone").catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).traceId).toBe("live-trace-1");
  });

  it("reads the API document's X-Trace-Id when that is the only one", async () => {
    const c = client();
    const err = await c.datasets.get("old").catch((e: unknown) => e);
    await c.close();
    expect((err as ApiError).traceId).toBe("spec-trace-1");
  });
});

describe("ingest options: X-Axiom-Event-Labels and X-Axiom-CSV-Fields", () => {
  it("labels go as one compact JSON object in X-Axiom-Event-Labels", async () => {
    const from = server.hits.length;
    const c = client();
    await c.ingest("web", [{ a: 1 }, { a: 2 }], { labels: { region: "eu-west-1", instance: 1 } });
    await c.close();
    const hit = server.hits[from];
    expect(hit.names).toContain("X-Axiom-Event-Labels");
    // The exact text: what axiom-go's json.Marshal writes for these labels, 22 bytes for the region alone.
    expect(hit.headers["x-axiom-event-labels"]).toBe('{"region":"eu-west-1","instance":1}');
    expect(JSON.parse(hit.headers["x-axiom-event-labels"] as string)).toEqual({
      region: "eu-west-1",
      instance: 1,
    });
  });

  it("CSV field names go comma-joined in X-Axiom-CSV-Fields, and the first line is sent as an event", async () => {
    const from = server.hits.length;
    const c = client();
    const summary = await c.ingest("web", "1,GET\n2,POST\n", { csvFields: ["n", "method"] });
    await c.close();
    const hit = server.hits[from];
    expect(hit.names).toContain("X-Axiom-CSV-Fields");
    expect(hit.headers["x-axiom-csv-fields"]).toBe("n,method");
    expect(hit.headers["content-type"]).toBe("text/csv");
    // No header row is made up: both lines travel as records.
    expect(gunzipSync(hit.body).toString("utf8")).toBe("1,GET\n2,POST\n");
    expect(summary.ingested).toBe(2);
  });

  it("neither header is sent without the options", async () => {
    const from = server.hits.length;
    const c = client();
    await c.ingest("web", "n,method\n1,GET\n");
    await c.close();
    const lower = server.hits[from].names.map((n) => n.toLowerCase());
    expect(lower).not.toContain("x-axiom-event-labels");
    expect(lower).not.toContain("x-axiom-csv-fields");
  });

  it.each([
    [{ labels: [] as unknown as Record<string, string> }, "options.labels must be an object"],
    [{ labels: { "": "x" } }, "a label name must not be empty"],
    [
      { labels: { nested: {} as unknown as string } },
      "options.labels.nested must be a string, number, boolean or null",
    ],
    [{ csvFields: [] }, "options.csvFields must be a non-empty list"],
    [{ csvFields: ["a,b"] }, "options.csvFields[0] must not contain a comma"],
    [{ csvFields: ["a"], format: "ndjson" as const }, "options.csvFields is only for CSV input"],
  ])("a bad option is refused before anything is sent: %j", async (options, message) => {
    const from = server.hits.length;
    const c = client();
    await expect(c.ingest("web", "1,GET\n", options)).rejects.toThrow(message);
    await c.close();
    expect(server.hits.length).toBe(from);
  });

  it("csvFields with event objects is refused before anything is sent", async () => {
    const from = server.hits.length;
    const c = client();
    await expect(c.ingest("web", [{ a: 1 }], { csvFields: ["a"] })).rejects.toThrow(
      "options.csvFields is only for CSV text input",
    );
    await c.close();
    expect(server.hits.length).toBe(from);
  });
});
