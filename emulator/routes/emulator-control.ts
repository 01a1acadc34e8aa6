/**
 * The emulator's own control routes (not the service's API): `GET /_emulator/clock` reads the clock, and
 * `POST /_emulator/clock` moves a manual one, `{"advance": "90m"}` or `{"to": "<RFC 3339>"}`, making every
 * monitor run that falls due, in time order, and answering `{now, runs}`. Only the development tokens may use them:
 * a minted API token is the service's, and the service has no such route.
 */
import { z } from "zod";
import { DateTimeSchema } from "../../provider/schemas/common";
import type { AccessRouter, Need } from "../auth";
import { parseDurationMs, parseTimeMs, REAL_CLOCK_CANNOT_MOVE } from "../clock";
import { HttpError, json, jsonObjectBody, validateBody } from "../http";
import type { EmulatorControl } from "../alerting/types";
import { registerNotificationsRoute } from "./emulator-notifications";

export type { EmulatorControl } from "../alerting/types";

/** The need of every control route: a development token. */
export const CONTROL_ACCESS: Need = {
  kind: "developer",
  why: "the emulator's control routes (/_emulator/…) take only the emulator's development tokens",
};

/** A duration such as `90m`, `1h30m`, `45s`, `2d`, `250ms` (see `parseDurationMs` in emulator/clock.ts). */
const DURATION_PATTERN = /^(\d+(\.\d+)?(ms|s|m|h|d))+$/;

/** The longest single move: ten years, so a typo (`9999999h`) is an error, not an hour of monitor runs. */
export const MAX_CLOCK_MOVE_MS = 10 * 366 * 86_400_000;

/** Body of `POST /_emulator/clock`: exactly one of `advance` and `to`. */
export const ClockMoveSchema = z
  .strictObject({
    /** How far to move: a duration text, or a number of ms. */
    advance: z
      .union(
        [
          z.string().regex(DURATION_PATTERN, 'must be a duration such as "90m", "1h30m", "45s" or "2d"'),
          z.number().int().min(0),
        ],
        { error: 'must be a duration such as "90m", "1h30m", "45s" or "2d", or a number of ms' },
      )
      .optional(),
    /** Where to move: an RFC 3339 time, not before the clock's now. */
    to: DateTimeSchema.optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.advance === undefined) === (body.to === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: body.advance === undefined ? ["advance"] : ["to"],
        message:
          body.advance === undefined
            ? 'is required, or to: give exactly one of advance ("90m") and to (an RFC 3339 time)'
            : "cannot be given with advance: give exactly one of them",
      });
    }
    if (body.advance !== undefined) {
      const ms = parseDurationMs(body.advance);
      if (ms !== undefined && ms > MAX_CLOCK_MOVE_MS) {
        ctx.addIssue({ code: "custom", path: ["advance"], message: "must be at most ten years" });
      }
    }
  });

/** Registers `GET` and `POST /_emulator/clock`, and `GET /_emulator/notifications` (the outbox). */
export function registerEmulatorControl(router: AccessRouter, control: EmulatorControl): void {
  const { clock } = control;
  registerNotificationsRoute(router, control.notifications, CONTROL_ACCESS);
  router.add(
    "GET",
    "/_emulator/clock",
    () => json({ kind: clock.kind, now: clock.now().toISOString() }),
    CONTROL_ACCESS,
  );
  router.add(
    "POST",
    "/_emulator/clock",
    async (ctx) => {
      const body = validateBody(ClockMoveSchema, jsonObjectBody(ctx));
      if (clock.kind !== "manual") throw new HttpError(409, REAL_CLOCK_CANNOT_MOVE);
      if (body.to !== undefined) {
        const now = clock.now().getTime();
        const to = parseTimeMs(body.to) ?? now;
        if (to < now) {
          throw new HttpError(
            409,
            `to: ${body.to} is before the clock's now, ${clock.now().toISOString()}; the clock only moves forward`,
          );
        }
        if (to - now > MAX_CLOCK_MOVE_MS) {
          throw new HttpError(409, "to: must be at most ten years after the clock's now");
        }
      }
      const runs = body.advance !== undefined ? await clock.advance(body.advance) : await clock.to(body.to!);
      return json({ now: clock.now().toISOString(), runs });
    },
    CONTROL_ACCESS,
  );
}
