/**
 * The `Slo` component's inputs: one declaration that both faces read (the TypeScript ComponentResource and the
 * native provider's `observability:index:Slo`), validated at preview with no network call.
 *
 * The arithmetic is the SRE workbook's ("Alerting on SLOs", multiwindow, multi-burn-rate alerts): the error budget
 * is 1 − objective; a window's burn rate is its error ratio divided by the budget; an alert pairs a long window with
 * a short one and fires when both burn at least the threshold. The default pairs are the workbook's for a 30-day
 * SLO (page: 2% of the budget in 1 h with a 5-minute short window, 5% in 6 h with 30 minutes; ticket: 10% in
 * 3 days with 6 hours), which slok/sloth also generates; each pair is declared by the share of the budget it
 * catches, so the thresholds scale with the SLO's window (14.4, 6 and 1 for 30 days).
 */
import { z } from "zod";

/** A duration as the workbook writes it: `5m`, `1h`, `3d`, `2w`. */
export const DURATION_PATTERN = /^([1-9][0-9]*)(m|h|d|w)$/;
const MINUTES_PER_UNIT = { m: 1, h: 60, d: 1440, w: 10_080 } as const;

/** The minutes of a duration string; undefined when it is not one. */
export function durationMinutes(text: string): number | undefined {
  const m = DURATION_PATTERN.exec(text);
  return m ? Number(m[1]) * MINUTES_PER_UNIT[m[2] as keyof typeof MINUTES_PER_UNIT] : undefined;
}

/** The SLO window's bounds in days: OpenSLO and the vendors' rolling windows (7 to 90 days). */
export const SLO_WINDOW_DAYS = { min: 7, max: 90, default: 30 } as const;

/** Who an alert window wakes: the page notifiers, or the ticket notifiers. */
export const ALERT_SEVERITIES = ["page", "ticket"] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** One alert window pair. */
export interface AlertWindow {
  severity: AlertSeverity;
  /** The long window: the monitor's range. */
  longWindow: string;
  /** The short window: the alert also needs it burning, so it resets soon after the errors stop. */
  shortWindow: string;
  /** The share of the whole budget, in percent, that this pair catches being spent within its long window. */
  budgetPercent: number;
}

/** The workbook's three pairs, by the key a program overrides them with. */
export const DEFAULT_ALERT_WINDOWS: Readonly<Record<string, AlertWindow>> = {
  pageFast: { severity: "page", longWindow: "1h", shortWindow: "5m", budgetPercent: 2 },
  pageSlow: { severity: "page", longWindow: "6h", shortWindow: "30m", budgetPercent: 5 },
  ticket: { severity: "ticket", longWindow: "3d", shortWindow: "6h", budgetPercent: 10 },
};

const nonEmpty = (what: string) =>
  z
    .string({ error: `must be ${what}` })
    .refine((s) => s.trim() !== "", { error: `must be ${what}, not empty` });

/** An APL predicate: one boolean expression, not a pipeline (the component puts it in `where` and `countif`). */
const predicate = nonEmpty("an APL predicate (a boolean expression)").refine((s) => !/^\s*\|/.test(s), {
  error: "must be a predicate such as `status >= 500`, not a pipeline starting with `|`",
});

const duration = z.string({ error: "must be a duration such as 5m, 1h or 3d" }).regex(DURATION_PATTERN, {
  error: "must be a duration such as 5m, 1h or 3d (minutes, hours, days or weeks)",
});

const AlertWindowOverrideSchema = z.strictObject({
  /** False drops this pair. */
  enabled: z.boolean({ error: "must be a boolean" }).optional(),
  severity: z.enum(ALERT_SEVERITIES, { error: "must be page or ticket" }).optional(),
  longWindow: duration.optional(),
  shortWindow: duration.optional(),
  budgetPercent: z
    .number({ error: "must be a number" })
    .gt(0, { error: "must be above 0" })
    .max(100, { error: "must be at most 100" })
    .optional(),
});

/** A list of notifier ids: each non-empty, none twice. The TypeScript face checks known Outputs with it too. */
export const NotifierIdsSchema = z
  .array(nonEmpty("a notifier id"), { error: "must be a list of notifier ids" })
  .refine((ids) => new Set(ids).size === ids.length, { error: "must not name a notifier twice" });

/** The component's inputs, as a program declares them. */
export const SloArgsSchema = z
  .strictObject({
    /** The display name the children's names start with; defaults to the component's name. */
    displayName: nonEmpty("a name").optional(),
    /** The dataset the events are in. */
    dataset: nonEmpty("a dataset name"),
    /** Good or bad events and all events, as APL predicates. Exactly one of `events` and `latency`. */
    events: z
      .strictObject({
        good: predicate.optional(),
        bad: predicate.optional(),
        /** Which events count at all; every event of the dataset when left out. */
        total: predicate.optional(),
      })
      .optional(),
    /** A latency SLI: an event is good when `field` is at most `thresholdMs` milliseconds. */
    latency: z
      .strictObject({
        field: nonEmpty("a field name"),
        thresholdMs: z
          .number({ error: "must be a number of milliseconds" })
          .gt(0, { error: "must be above 0" }),
        total: predicate.optional(),
      })
      .optional(),
    /** The objective in percent, strictly between 0 and 100 (99.9). */
    objective: z
      .number({ error: "must be a number (a percentage such as 99.9)" })
      .gt(0, { error: "must be above 0 (a percentage such as 99.9)" })
      .lt(100, { error: "must be below 100: an objective of 100% leaves no error budget to burn" }),
    /** The rolling window, in days (7 to 90). Defaults to 30. */
    windowDays: z
      .number({ error: "must be a whole number of days" })
      .int({ error: "must be a whole number of days" })
      .min(SLO_WINDOW_DAYS.min, { error: `must be at least ${SLO_WINDOW_DAYS.min} days` })
      .max(SLO_WINDOW_DAYS.max, { error: `must be at most ${SLO_WINDOW_DAYS.max} days` })
      .optional(),
    /** Notifiers the page pairs alert. */
    pageNotifierIds: NotifierIdsSchema.optional(),
    /** Notifiers the ticket pair alerts. */
    ticketNotifierIds: NotifierIdsSchema.optional(),
    /** Overrides of the default pairs by key (`pageFast`, `pageSlow`, `ticket`), or further pairs by new keys. */
    alertWindows: z.record(z.string(), AlertWindowOverrideSchema).optional(),
    /** Fields to group by (per route, per service): each group alerts on its own (`notifyByGroup`). */
    groupBy: z.array(nonEmpty("a field name"), { error: "must be a list of field names" }).optional(),
    /** Whether to make the error-budget dashboard. Defaults to true. */
    dashboard: z.boolean({ error: "must be a boolean" }).optional(),
  })
  .superRefine((args, ctx) => {
    const forms = [args.events, args.latency].filter((f) => f !== undefined).length;
    if (forms !== 1)
      ctx.addIssue({
        code: "custom",
        path: [forms === 0 ? "events" : "latency"],
        message:
          forms === 0
            ? "give the events (events.good or events.bad) or a latency SLI (latency.field and latency.thresholdMs)"
            : "give events or latency, not both",
      });
    if (args.events && (args.events.good === undefined) === (args.events.bad === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["events", args.events.good === undefined ? "good" : "bad"],
        message: "give exactly one of events.good and events.bad",
      });
    const windowMinutes = (args.windowDays ?? SLO_WINDOW_DAYS.default) * 1440;
    for (const [key, override] of Object.entries(args.alertWindows ?? {})) {
      const base = DEFAULT_ALERT_WINDOWS[key];
      if (!base) {
        for (const field of ["severity", "longWindow", "shortWindow", "budgetPercent"] as const)
          if (override[field] === undefined && override.enabled !== false)
            ctx.addIssue({
              code: "custom",
              path: ["alertWindows", key, field],
              message: `is required for a pair that is not a default one (${Object.keys(DEFAULT_ALERT_WINDOWS).join(", ")})`,
            });
      }
      const long = durationMinutes(override.longWindow ?? base?.longWindow ?? "");
      const short = durationMinutes(override.shortWindow ?? base?.shortWindow ?? "");
      if (long !== undefined && long > windowMinutes)
        ctx.addIssue({
          code: "custom",
          path: ["alertWindows", key, "longWindow"],
          message: `must fit inside the SLO's window of ${windowMinutes / 1440} days`,
        });
      if (long !== undefined && short !== undefined && short >= long)
        ctx.addIssue({
          code: "custom",
          path: ["alertWindows", key, "shortWindow"],
          message: "must be shorter than the pair's long window",
        });
    }
  });

export type SloArgs = z.infer<typeof SloArgsSchema>;
