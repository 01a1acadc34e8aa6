/**
 * `GET /_emulator/notifications`: the outbox, every notification the emulator's monitors attempted, oldest first:
 * time, monitor, notifier, channel, action, group values, value, target host, outcome (delivered, held, failed,
 * recorded) with status and reason, and the request and body as sent, secrets masked. Filters, each optional and
 * exact: `?monitorId=`, `?notifierId=`, `?channel=`, `?action=` (Open, Closed), `?outcome=`.
 * Not the service's API: the emulator's own, like `/_emulator/clock`.
 *
 * Registered by the server beside the other control routes:
 *   registerNotificationsRoute(router, notifications, CONTROL_ACCESS);
 * (`router` the AccessRouter, `notifications` the emulator's Notifications, CONTROL_ACCESS from ./emulator-control).
 */
import type { AccessRouter, RouteAccess } from "../auth";
import { HttpError, json, queryParam } from "../http";
import type { Notifications, OutboxFilter } from "../alerting/notify";

/** The route's path. */
export const NOTIFICATIONS_PATH = "/_emulator/notifications";

const FILTERS = ["monitorId", "notifierId", "channel", "action", "outcome"] as const;

/** Registers `GET /_emulator/notifications`, answering the matching OutboxEntry rows as a JSON array. */
export function registerNotificationsRoute(
  router: AccessRouter,
  notifications: Pick<Notifications, "entries">,
  access: RouteAccess,
): void {
  router.add(
    "GET",
    NOTIFICATIONS_PATH,
    (ctx) => {
      const unknown = Object.keys(ctx.query).filter((k) => !(FILTERS as readonly string[]).includes(k));
      if (unknown.length)
        throw new HttpError(
          400,
          `unknown query parameter ${unknown.map((k) => JSON.stringify(k)).join(", ")}: the filters are ${FILTERS.join(", ")}`,
        );
      const filter: OutboxFilter = {};
      for (const name of FILTERS) {
        const raw = ctx.query[name];
        if (Array.isArray(raw)) throw new HttpError(400, `query parameter ${name} given more than once`);
        const value = queryParam(ctx.query, name);
        if (value !== undefined) filter[name] = value;
      }
      return json(notifications.entries(filter));
    },
    access,
  );
}
