/** Ingest: `POST /v1/datasets/{name}/ingest` with JSON, NDJSON or CSV bodies, optionally gzip-encoded, into a
 * dataset that exists (404 otherwise). */
import { INGEST_ACCESS, type AccessRouter } from "../auth";
import type { EmulatorContext } from "../context";
import { HttpError, json, queryParam } from "../http";
import { QUOTA_EXCEEDED_STATUS, quotaHeaders } from "../quota";
import { datasetNameProblem, parseIngest } from "../ingest";
import { datasetExists, datasetMapFields } from "./datasets";

/** Ingest option headers as the live service names them (OpenAPI `ingestIntoDataset` in axiomhq/docs
 * content/docs/(api-reference)/restapi/versions/v1.json; axiomhq/axiom-go axiom/datasets.go). Node lowercases. */
const EVENT_LABELS_HEADER = "x-axiom-event-labels";
const CSV_FIELDS_HEADER = "x-axiom-csv-fields";

function headerValue(v: string | string[] | undefined): string | undefined {
  const text = Array.isArray(v) ? v.join(",") : v;
  return text === undefined || text.trim() === "" ? undefined : text;
}

/** `X-Axiom-Event-Labels`: a JSON object (axiom-go json.Marshal of its labels map); anything else is a 400. */
function labelsOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(
      400,
      'X-Axiom-Event-Labels: must be a JSON object of labels, e.g. {"region":"eu-west-1"}',
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(
      400,
      "X-Axiom-Event-Labels: must be a JSON object of labels, not " +
        (Array.isArray(value) ? "an array" : JSON.stringify(value)),
    );
  }
  for (const [name, label] of Object.entries(value)) {
    if (name === "") throw new HttpError(400, "X-Axiom-Event-Labels: a label name must not be empty");
    // Labels are key-value pairs (axiomhq/axiom-go axiom/ingest/options.go); every official client's labels are
    // strings or numbers. A nested object or list is refused rather than guessed at.
    if (typeof label === "object" && label !== null) {
      throw new HttpError(
        400,
        `X-Axiom-Event-Labels: label "${name}" must be a string, number, boolean or null, not ${
          Array.isArray(label) ? "a list" : "an object"
        }`,
      );
    }
  }
  return value as Record<string, unknown>;
}

/** `X-Axiom-CSV-Fields`: names joined by commas (axiom-go strings.Join; OpenAPI style simple, explode false). An
 * empty header, which axiom-go sends for every CSV request, means none. */
function csvFieldsOf(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(",").map((n) => n.trim());
  const empty = names.findIndex((n) => n === "");
  if (empty !== -1) throw new HttpError(400, `X-Axiom-CSV-Fields: field ${empty + 1} has no name`);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new HttpError(400, `X-Axiom-CSV-Fields: field "${twice}" appears twice`);
  return names;
}

/** Registers the ingest route. */
export function registerIngest(router: AccessRouter, em: EmulatorContext): void {
  router.add(
    "POST",
    "/v1/datasets/:name/ingest",
    ({ req, params, query, body }) => {
      const problem = datasetNameProblem(params.name);
      if (problem) throw new HttpError(400, problem);
      // The dataset must exist: the service answers 404 (a live probe in alchemy-run/distilled,
      // packages/axiom/patches/v1-edge-ingest/001-add-error-responses.patch.json), and nothing creates it on first
      // use (axiom-go examples/README.md: "Must exist prior to using it").
      if (!datasetExists(em, params.name)) {
        throw new HttpError(404, `dataset "${params.name}" not found; create it first (POST /v2/datasets)`);
      }
      // Official clients send these as query parameters; the service also reads them as headers.
      const option = (name: string) => {
        const fromQuery = queryParam(query, name);
        if (fromQuery !== undefined && fromQuery !== "") return fromQuery;
        const header = req.headers[name];
        return Array.isArray(header) ? header[0] : header;
      };
      const quota = em.quotas.ingest;
      if (!quota.fits(body.length)) {
        throw new HttpError(QUOTA_EXCEEDED_STATUS, quota.exceededMessage("ingest", body.length));
      }
      const now = em.clock.nowNs();
      const labelsText = headerValue(req.headers[EVENT_LABELS_HEADER]);
      const parsed = parseIngest(body, req.headers["content-type"], {
        timestampField: option("timestamp-field"),
        timestampFormat: option("timestamp-format"),
        csvDelimiter: option("csv-delimiter"),
        csvFields: csvFieldsOf(headerValue(req.headers[CSV_FIELDS_HEADER])),
        labels: labelsOf(labelsText),
        mapFields: new Set(datasetMapFields(em, params.name)),
        nowNs: now,
      });
      if (parsed.events.length > 0) {
        em.store.append(params.name, parsed.events, now);
        em.changed();
      }
      quota.charge(body.length);
      const result = {
        ingested: parsed.events.length,
        failed: parsed.failures.length,
        failures: parsed.failures,
        // The decoded body plus the labels header, once per request: axiom-go's live test expects the JSON
        // array's length + 22 for {"region":"eu-west-1"} (axiom/datasets_integration_test.go), and the CSV body's
        // length alone with X-Axiom-CSV-Fields (258 for its header-less CSV).
        processedBytes: body.length + (labelsText ? Buffer.byteLength(labelsText) : 0),
        blocksCreated: 0,
        walLength: parsed.events.length,
      };
      // After the charge, so the headers report what this request left.
      return json(result, 200, quotaHeaders("ingest", quota));
    },
    INGEST_ACCESS,
  );
}
