/**
 * Monitors: `/v2/monitors`, `/v2/monitors/{id}` (PUT replaces the whole monitor) and `/{id}/history`.
 *
 * The emulator does not evaluate monitors. So that history is not always empty, creating a monitor records one
 * honest entry: state `closed` (no alert open) at the creation time. Nothing else is ever added.
 */
import { MONITOR_DEFAULTS, MonitorCreateSchema } from "../../provider/schemas";
import type { EmulatorContext } from "../context";
import { HttpError, Router, queryParam, validateOr400 } from "../http";
import { LOCAL_USER, type StoredObject } from "../state";
import { isoSeconds, parseQueryTimeNs, parseRfc3339Ns } from "../time";
import { compact, getOr404, ok, registerCollection } from "./common";
import { randomBytes } from "node:crypto";

/** The monitor as the service returns it: defaults for fields not given, `notifierIds` always present. */
function withDefaults(body: Record<string, unknown>): Record<string, unknown> {
  return { ...MONITOR_DEFAULTS, notifierIds: [], ...compact(body) };
}

/** Registers the monitor routes. */
export function registerMonitors(router: Router, em: EmulatorContext): void {
  const col = em.state.monitors;

  registerCollection(router, em, {
    path: "/v2/monitors",
    collection: col,
    create: (raw, id) => {
      const body = validateOr400(MonitorCreateSchema, raw);
      const createdAt = isoSeconds();
      em.state.setHistory(id, [
        {
          checkId: `chk_${randomBytes(8).toString("hex")}`,
          name: body.name,
          state: "closed",
          timestamp: createdAt,
        },
      ]);
      return { ...withDefaults(body), id, createdAt, createdBy: LOCAL_USER } as StoredObject;
    },
    // PUT replaces the whole monitor; what the server set stays.
    update: (raw, current) =>
      ({
        ...withDefaults(validateOr400(MonitorCreateSchema, raw)),
        id: current.id,
        createdAt: current.createdAt,
        createdBy: current.createdBy,
      }) as StoredObject,
    onDelete: (id) => em.state.deleteHistory(id),
  });

  router.add("GET", "/v2/monitors/:id/history", (ctx) => {
    getOr404(col, ctx.params.id);
    const missing = ["startTime", "endTime"].filter((n) => !queryParam(ctx.query, n));
    if (missing.length > 0) {
      throw new HttpError(400, missing.map((n) => `${n}: is required`).join("; "));
    }
    const times = ["startTime", "endTime"].map((n) => {
      const ns = parseQueryTimeNs(queryParam(ctx.query, n)!);
      if (ns === undefined)
        throw new HttpError(400, `${n}: must be an RFC 3339 time or a relative time such as now-1h`);
      return ns;
    });
    const [start, end] = times;
    const entries = em.state.history(ctx.params.id).filter((e) => {
      const t = parseRfc3339Ns(e.timestamp) ?? 0n;
      return t >= start && t <= end;
    });
    ok(ctx, entries);
  });
}
