/**
 * Dashboards: `GET/POST /v2/dashboards`, `GET/PUT/DELETE /v2/dashboards/uid/{uid}` and
 * `PATCH /v2/dashboards/uid/{uid}/charts/{chartId}`, as the OpenAPI v2 document declares them.
 *
 * - A dashboard is addressed by its `uid` (unique; assigned when a create names none). It also has an internal
 *   `id`, which is the key the emulator stores it under.
 * - Every write (create, update, chart patch) increments `version`. A write names the version it was based on,
 *   unless `overwrite: true`: a stale or missing one answers 412 with `currentVersion`. A create of a uid that
 *   exists answers 409 when it has neither `overwrite` nor a `version` (with a version it updates, as a PUT).
 *   `overwrite: true` always wins, and the reply says `overwritten: true`.
 * - A PUT of a uid that does not exist creates it (201), as the document's PUT lists "201 Created dashboard".
 * - As the live service does (terraform-provider-axiom axiom/resource_dashboard.go and its tests): the stored
 *   document gets `uid` and `overrides: {}` injected, `owner` defaults to everyone and the everyone owner is
 *   echoed lower-case (`x-axiom-everyone`); server-managed keys sent inside a document are dropped.
 * - Errors are the document's `DashboardError {code, message, reason?, uid?, currentVersion?}` with a string
 *   `code`. An invalid body answers 422: the document says 400 for dashboards, but the live service answers
 *   422 for every family (json-body.ts cites the probes); a body that is not
 *   JSON stays 400.
 */
import { randomBytes } from "node:crypto";
import {
  DASHBOARD_OWNER_EVERYONE,
  DASHBOARD_SERVER_KEYS,
  DashboardChartPatchSchema,
  DashboardDocumentSchema,
  DashboardListSchema,
  DashboardUpsertSchema,
  clampToSafe,
  dashboardDocumentIssues,
  formatFailures,
  refinedBy,
  validate,
} from "../../provider/schemas";
import {
  HttpError,
  INVALID_FIELD_STATUS,
  NOT_FOUND_MESSAGE,
  json,
  jsonObjectBody,
  noContent,
  queryParam,
  validateBody,
  validateQuery,
  type Handler,
  type Reply,
} from "../http";
import { LOCAL_USER, type Collection, type StoredObject } from "../state";
import { isoSeconds } from "../time";
import type { CollectionFamily } from "./common";

const COLLECTION = "/v2/dashboards";
const ITEM = `${COLLECTION}/uid/:uid`;

/** A dashboard operation's error, answered as `DashboardError`. */
class DashboardHttpError extends HttpError {
  constructor(
    status: number,
    message: string,
    readonly extra: { reason?: string; uid?: string; currentVersion?: number | string } = {},
  ) {
    super(status, message);
  }
}

/** `DashboardError.code` for each status; the document gives the field as a string but lists no values. */
const ERROR_CODES: Record<number, string> = {
  400: "bad_request",
  404: "not_found",
  409: "already_exists",
  412: "version_mismatch",
  415: "unsupported_media_type",
  422: "invalid_dashboard",
};

/** Runs a handler and answers any HttpError it throws as a `DashboardError`. */
function dashboardRoute(handler: Handler): Handler {
  return async (ctx) => {
    try {
      return await handler(ctx);
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      const extra = e instanceof DashboardHttpError ? e.extra : {};
      const body = { code: ERROR_CODES[e.status] ?? `http_${e.status}`, message: e.message, ...extra };
      return json(body, e.status);
    }
  };
}

/** A new uid that matches `^[A-Za-z0-9_-]{1,128}$`. */
function newUid(col: Collection): string {
  for (;;) {
    const uid = randomBytes(8).toString("hex");
    if (!byUid(col, uid)) return uid;
  }
}

function byUid(col: Collection, uid: string): StoredObject | undefined {
  return col.list().find((d) => d.uid === uid);
}

function notFound(uid: string): DashboardHttpError {
  return new DashboardHttpError(404, `${NOT_FOUND_MESSAGE}: no dashboard has uid ${JSON.stringify(uid)}`, {
    uid,
  });
}

/** The document as stored: server-managed keys dropped, then `uid` and `overrides` injected, the owner as the
 * service echoes it. */
function storedDocument(doc: Record<string, unknown>, uid: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...doc };
  for (const key of DASHBOARD_SERVER_KEYS) delete out[key];
  const owner = out.owner;
  if (typeof owner !== "string" || owner.toUpperCase() === DASHBOARD_OWNER_EVERYONE)
    out.owner = DASHBOARD_OWNER_EVERYONE.toLowerCase();
  out.overrides ??= {};
  out.uid = uid;
  return out;
}

/** The 412 of a write whose version is not the current one (or is missing without `overwrite`). */
function versionMismatch(current: StoredObject, sent: unknown): DashboardHttpError {
  const uid = current.uid as string;
  const reason =
    sent === undefined
      ? "the request names no version: send the version last read, or overwrite: true"
      : `the request names version ${String(sent)}, the dashboard is at version ${String(current.version)}`;
  return new DashboardHttpError(412, "dashboard version mismatch", {
    reason,
    uid,
    currentVersion: current.version as number,
  });
}

/** Whether a write based on `sent` may replace `current` (throws the 412 otherwise). */
function checkVersion(current: StoredObject, sent: unknown, overwrite: boolean | undefined): void {
  if (overwrite === true) return;
  if (sent === undefined || String(sent) !== String(current.version)) throw versionMismatch(current, sent);
}

/** JSON merge patch (RFC 7386) of `patch` onto `target`. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === "object" && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** The document's rules with its cross-references, as a patched dashboard is checked. */
const CheckedDocumentSchema = refinedBy(DashboardDocumentSchema, (doc) => dashboardDocumentIssues(doc, ""));

/** The version after `version`, exact past 2^53 (a version is the document's int64). */
function nextVersion(version: unknown): number | bigint {
  if (typeof version === "bigint") return version + 1n;
  const n = Number(version);
  return Number.isSafeInteger(n + 1) ? n + 1 : BigInt(n) + 1n;
}

/** `limit` (1–1000, default 100) and `offset` (at least 0, default 0) of the list. */
function paging(query: Record<string, string | string[]>): { limit: number; offset: number } {
  const { limit, offset } = validateQuery(DashboardListSchema, {
    limit: queryParam(query, "limit"),
    offset: queryParam(query, "offset"),
  });
  return { limit: clampToSafe(limit), offset: clampToSafe(offset) };
}

/** The dashboard family. */
export const dashboards: CollectionFamily = {
  name: "dashboards",
  idPrefix: "dash_",
  path: COLLECTION,
  crud: false,
  capability: "dashboards",
  routes: (col, em) => {
    /** Stores a new version of a dashboard (or its first), and answers as a write does. */
    const write = (
      uid: string,
      doc: Record<string, unknown>,
      current: StoredObject | undefined,
      overwritten: boolean,
    ): Reply => {
      const now = isoSeconds(new Date(em.clock.nowMs()));
      const stored = col.set({
        id: current?.id ?? col.newId(),
        uid,
        version: current ? nextVersion(current.version) : 1,
        dashboard: storedDocument(doc, uid),
        createdAt: current?.createdAt ?? now,
        updatedAt: now,
        createdBy: current?.createdBy ?? LOCAL_USER,
        updatedBy: LOCAL_USER,
      });
      em.changed();
      const status = current ? "updated" : "created";
      return json(
        { status, ...(overwritten ? { overwritten: true } : {}), dashboard: stored },
        current ? 200 : 201,
      );
    };

    return {
      more: (router) => {
        router.add(
          "GET",
          COLLECTION,
          dashboardRoute((ctx) => {
            const { limit, offset } = paging(ctx.query);
            return json(col.list().slice(offset, offset + limit));
          }),
        );

        router.add(
          "POST",
          COLLECTION,
          dashboardRoute((ctx) => {
            const body = validateBody(DashboardUpsertSchema, jsonObjectBody(ctx));
            const uid = body.uid ?? newUid(col);
            const current = byUid(col, uid);
            if (current && body.overwrite !== true && body.version === undefined)
              throw new DashboardHttpError(409, "dashboard already exists", {
                reason: `a dashboard with uid ${JSON.stringify(uid)} exists: set overwrite: true to replace it, or send its version to update it`,
                uid,
              });
            if (current) checkVersion(current, body.version, body.overwrite);
            return write(uid, body.dashboard, current, current !== undefined && body.overwrite === true);
          }),
        );

        router.add(
          "GET",
          ITEM,
          dashboardRoute((ctx) => json(byUid(col, ctx.params.uid) ?? throwing(notFound(ctx.params.uid)))),
        );

        router.add(
          "PUT",
          ITEM,
          dashboardRoute((ctx) => {
            const { uid } = ctx.params;
            const body = validateBody(DashboardUpsertSchema, jsonObjectBody(ctx));
            if (body.uid !== undefined && body.uid !== uid)
              throw new HttpError(422, `uid: must be the uid of the path (${JSON.stringify(uid)})`);
            const current = byUid(col, uid);
            if (current) checkVersion(current, body.version, body.overwrite);
            return write(uid, body.dashboard, current, current !== undefined && body.overwrite === true);
          }),
        );

        router.add(
          "DELETE",
          ITEM,
          dashboardRoute((ctx) => {
            const current = byUid(col, ctx.params.uid) ?? throwing(notFound(ctx.params.uid));
            col.delete(current.id);
            em.changed();
            return noContent();
          }),
        );

        router.add(
          "PATCH",
          `${ITEM}/charts/:chartId`,
          dashboardRoute((ctx) => {
            const { uid, chartId } = ctx.params;
            const current = byUid(col, uid) ?? throwing(notFound(uid));
            const body = validateBody(DashboardChartPatchSchema, jsonObjectBody(ctx));
            const doc = current.dashboard as Record<string, unknown>;
            const charts = doc.charts as Record<string, unknown>[];
            const at = charts.findIndex((c) => c.id === chartId);
            if (at < 0)
              throw new DashboardHttpError(
                404,
                `${NOT_FOUND_MESSAGE}: dashboard ${JSON.stringify(uid)} has no chart with id ${JSON.stringify(chartId)}`,
                { uid },
              );
            if (body.chart.id !== undefined && body.chart.id !== chartId)
              throw new HttpError(
                422,
                `chart.id: must be the chartId of the path (${JSON.stringify(chartId)})`,
              );
            checkVersion(current, body.version, body.overwrite);
            const patched = charts.map((c, k) => (k === at ? mergePatch(c, body.chart) : c));
            const next = validate(CheckedDocumentSchema, { ...doc, charts: patched }, "dashboard");
            if (!next.ok) throw new HttpError(INVALID_FIELD_STATUS, formatFailures(next.failures));
            return write(uid, next.value as Record<string, unknown>, current, body.overwrite === true);
          }),
        );
      },
    };
  },
};

function throwing(e: Error): never {
  throw e;
}
