/**
 * Monitors: `/v2/monitors`, `/v2/monitors/{id}` (PUT replaces the whole monitor) and `/{id}/history`.
 *
 * The scheduler (emulator/alerting/scheduler.ts) runs them and writes their history: one entry each time an alert
 * opens or closes (`{checkId, name, state: "open" | "closed", timestamp}`, OA: axiomhq/docs
 * restapi/versions/v2.json). A monitor that never alerted has an empty history. An edit takes effect at the next
 * run; a delete drops the history and the alert state with the monitor.
 */
import { MONITOR_DEFAULTS, MonitorCreateSchema } from "../../provider/schemas";
import { HttpError, json, queryParam, validateBody } from "../http";
import { parseQueryTimeNs, parseRfc3339Ns } from "../time";
import { compact, getOr404, type CollectionFamily } from "./common";

/** The validated monitor as the service returns it: defaults for fields not given, `notifierIds` always present. */
function monitor(raw: Record<string, unknown>): Record<string, unknown> {
  return { ...MONITOR_DEFAULTS, notifierIds: [], ...compact(validateBody(MonitorCreateSchema, raw)) };
}

/** The monitor family. */
export const monitors: CollectionFamily = {
  name: "monitors",
  idPrefix: "mon_",
  path: "/v2/monitors",
  capability: "monitors",
  stamp: true,
  routes: (col, em) => ({
    create: (raw, id) => ({ ...monitor(raw), id }),
    update: (raw, current) => ({ ...monitor(raw), id: current.id }),
    onDelete: (id) => {
      em.state.deleteHistory(id);
      em.state.deleteAlertState(id);
    },
    more: (router) =>
      // GET: the family's need, `monitors` read.
      router.add("GET", "/v2/monitors/:id/history", (ctx) => {
        getOr404(col, ctx.params.id);
        const missing = ["startTime", "endTime"].filter((n) => !queryParam(ctx.query, n));
        if (missing.length > 0) {
          throw new HttpError(400, missing.map((n) => `${n}: is required`).join("; "));
        }
        const [start, end] = ["startTime", "endTime"].map((n) => {
          const ns = parseQueryTimeNs(queryParam(ctx.query, n)!, em.clock.nowNs());
          if (ns === undefined)
            throw new HttpError(400, `${n}: must be an RFC 3339 time or a relative time such as now-1h`);
          return ns;
        });
        return json(
          em.state.history(ctx.params.id).filter((e) => {
            const t = parseRfc3339Ns(e.timestamp) ?? 0n;
            return t >= start && t <= end;
          }),
        );
      }),
  }),
};
