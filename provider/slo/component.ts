/**
 * `Slo`, the TypeScript face of the `observability:index:Slo` component: a ComponentResource whose children are the
 * dynamic `Monitor`s of its window pairs and its `Dashboard`, made from the one plan (plan.ts) the native provider's
 * Construct also makes them from.
 *
 * The inputs that decide what is made (the dataset, the SLI, the objective, the windows, the group-by) are plain
 * values, known at preview: how many monitors there are, and their queries, cannot wait for an apply. The notifier
 * ids may be Outputs (`notifier.id`); they pass through to the monitors, and each known one is held to the rules.
 */
import * as pulumi from "@pulumi/pulumi";
import { Dashboard, type DashboardArgs } from "../resources/dashboard";
import { Monitor } from "../resources/monitor";
import { formatFailures, validate } from "../schemas/common";
import { SloArgsError, planSlo } from "./plan";
import { NotifierIdsSchema } from "./spec";

/** Who an alert window pair wakes. (Written out, not imported from spec.ts: the root's typings never reach zod.) */
export type SloSeverity = "page" | "ticket";

/** The component's type token, the same in both faces. */
export const SLO_TYPE = "observability:index:Slo";

/** The events an SLI counts, as APL predicates (one boolean expression each, such as `status >= 500`). */
export interface SloEventsArgs {
  /** The good events. Exactly one of `good` and `bad`. */
  good?: string;
  /** The bad events. Exactly one of `good` and `bad`. */
  bad?: string;
  /** Which events count at all; every event of the dataset when left out. */
  total?: string;
}

/** A latency SLI: the events no slower than a threshold are good. */
export interface SloLatencyArgs {
  /** The field holding each event's duration in milliseconds. */
  field: string;
  /** Above 0: the most milliseconds a good event takes. */
  thresholdMs: number;
  /** Which events count at all; every event of the dataset when left out. */
  total?: string;
}

/** One alert window pair's override, or a pair of a program's own. */
export interface SloAlertWindowArgs {
  /** False drops this pair. */
  enabled?: boolean;
  /** Who it alerts: `page` or `ticket`. Required for a pair of a program's own. */
  severity?: SloSeverity;
  /** The long window, the monitor's range: `1h`, `6h`, `3d`. */
  longWindow?: string;
  /** The short window, which must burn too: `5m`, `30m`, `6h`. */
  shortWindow?: string;
  /** The share of the whole error budget, in percent, this pair catches being spent within its long window. */
  budgetPercent?: number;
}

/** Inputs of an {@link Slo}. */
export interface SloArgs {
  /** The name the children's names start with. Defaults to the component's name. */
  displayName?: string;
  /** Required: the dataset the events are in. */
  dataset: string;
  /** Good or bad events (exactly one) and, optionally, which events count at all, as APL predicates. */
  events?: SloEventsArgs;
  /** A latency SLI: an event is good when `field` is at most `thresholdMs` milliseconds. */
  latency?: SloLatencyArgs;
  /** Required: the objective in percent, strictly between 0 and 100 (99.9). */
  objective: number;
  /** The rolling window in days, 7 to 90. Defaults to 30. */
  windowDays?: number;
  /** Notifiers the page pairs alert. */
  pageNotifierIds?: pulumi.Input<pulumi.Input<string>[]>;
  /** Notifiers the ticket pair alerts. */
  ticketNotifierIds?: pulumi.Input<pulumi.Input<string>[]>;
  /** Overrides of the default pairs (`pageFast`, `pageSlow`, `ticket`), or pairs of the program's own by new keys. */
  alertWindows?: Record<string, SloAlertWindowArgs>;
  /** Fields each group alerts by on its own (per route, per service). */
  groupBy?: string[];
  /** Whether to make the error-budget dashboard. Defaults to true. */
  dashboard?: boolean;
}

/**
 * A service-level objective: multiwindow, multi-burn-rate Threshold monitors (the SRE workbook's, one per window
 * pair), wired to the page and ticket notifiers, and an error-budget dashboard.
 */
export class Slo extends pulumi.ComponentResource {
  /** The monitors' ids, by pair (`pageFast`, `pageSlow`, `ticket`). */
  declare readonly monitorIds: pulumi.Output<Record<string, string>>;
  /** The dashboard's id, when one is made. */
  declare readonly dashboardId: pulumi.Output<string | undefined>;
  /** The generated APL, by name: each pair's burn-rate query, and the dashboard's `sli`, `budgetRemaining`, `burnRate`. */
  declare readonly queries: pulumi.Output<Record<string, string>>;
  /** The burn rate each pair's monitor alerts at, by pair. */
  declare readonly burnRates: pulumi.Output<Record<string, number>>;

  constructor(name: string, args: SloArgs, opts?: pulumi.ComponentResourceOptions) {
    super(SLO_TYPE, name, {}, opts);
    // The notifier ids are checked once known (checkedIds); everything else now, at preview, with no network call.
    const plan = sloPlanOrError(name, this, {
      ...args,
      pageNotifierIds: undefined,
      ticketNotifierIds: undefined,
    });
    const notifiers: Record<SloSeverity, pulumi.Output<string[]>> = {
      page: checkedIds(name, "pageNotifierIds", args.pageNotifierIds),
      ticket: checkedIds(name, "ticketNotifierIds", args.ticketNotifierIds),
    };
    // What the component depends on (the dataset its queries read), its children wait for too.
    const children = { parent: this, dependsOn: opts?.dependsOn };
    const monitors = plan.monitors.map(
      (m) =>
        [
          m.key,
          new Monitor(`${name}-${m.key}`, { ...m.monitor, notifierIds: notifiers[m.severity] }, children),
        ] as const,
    );
    const board = plan.dashboard
      ? // The plan's dashboard is held to the Dashboard kind's own rules by test/provider/slo-plan.test.ts.
        new Dashboard(
          `${name}-dashboard`,
          plan.dashboard(monitors.map(([, m]) => m.id)) as unknown as DashboardArgs,
          children,
        )
      : undefined;
    const outputs = {
      monitorIds: pulumi.all(Object.fromEntries(monitors.map(([key, m]) => [key, m.id]))),
      dashboardId: board ? board.id : pulumi.output(undefined),
      queries: pulumi.output(plan.queries),
      burnRates: pulumi.output(Object.fromEntries(plan.monitors.map((m) => [m.key, m.burnRate]))),
    };
    Object.assign(this, outputs);
    this.registerOutputs(outputs);
  }
}

/** The plan, or the failures as a ResourceError on the component: one message naming each property, no stack. */
function sloPlanOrError(name: string, slo: Slo, args: Record<string, unknown>): ReturnType<typeof planSlo> {
  try {
    return planSlo(name, args);
  } catch (e) {
    if (e instanceof SloArgsError) throw new pulumi.ResourceError(`Slo ${name}: ${e.message}`, slo, true);
    throw e;
  }
}

/** A notifier id list, each known id held to the rules (a non-empty string, none twice), naming the property. */
function checkedIds(
  name: string,
  property: string,
  ids: pulumi.Input<pulumi.Input<string>[]> | undefined,
): pulumi.Output<string[]> {
  return pulumi.output(ids ?? []).apply((known) => {
    const checked = validate(NotifierIdsSchema, known, property);
    if (!checked.ok) throw new pulumi.RunError(`Slo ${name}: ${formatFailures(checked.failures)}`);
    return known;
  });
}
