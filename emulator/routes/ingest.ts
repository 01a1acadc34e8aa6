/** Ingest: `POST /v1/datasets/{name}/ingest` with JSON, NDJSON or CSV bodies, optionally gzip-encoded, into a
 * dataset that exists (404 otherwise). */
import { INGEST_ACCESS } from "../auth";
import type { EmulatorContext } from "../context";
import { HttpError, json, queryParam, type Router } from "../http";
import { QUOTA_EXCEEDED_STATUS, quotaHeaders } from "../quota";
import { datasetNameProblem, parseIngest } from "../ingest";
import { nowNs } from "../time";
import { datasetExists } from "./datasets";

/** Registers the ingest route. */
export function registerIngest(router: Router, em: EmulatorContext): void {
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
      const now = nowNs();
      const parsed = parseIngest(body, req.headers["content-type"], {
        timestampField: option("timestamp-field"),
        timestampFormat: option("timestamp-format"),
        csvDelimiter: option("csv-delimiter"),
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
        processedBytes: body.length,
        blocksCreated: 0,
        walLength: parsed.events.length,
      };
      // After the charge, so the headers report what this request left.
      return json(result, 200, quotaHeaders("ingest", quota));
    },
    INGEST_ACCESS,
  );
}
