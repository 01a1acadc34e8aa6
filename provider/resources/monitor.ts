/** Monitor: an alert rule over an APL query. POST/GET/PUT (whole monitor)/DELETE `/v2/monitors[/{id}]`. */
import * as pulumi from "@pulumi/pulumi";
import { MonitorFieldsSchema } from "../schemas";
import { adoptableOptions, resourceProps, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./monitor-kind";

/** A monitor's kind. */
export type MonitorType = "Threshold" | "MatchEvent" | "AnomalyDetection";
/** How a monitor compares the query's value; `AboveOrBelow` is for AnomalyDetection only. */
export type MonitorOperator = "Below" | "BelowOrEqual" | "Above" | "AboveOrEqual" | "AboveOrBelow";

/** Inputs of a {@link Monitor}. */
export interface MonitorArgs {
  /** Required: human-readable name. */
  name: pulumi.Input<string>;
  /** Required: the APL query that defines the data analyzed. */
  aplQuery: pulumi.Input<string>;
  /** Required: `Threshold` (needs operator and threshold), `MatchEvent`, or `AnomalyDetection` (needs operator, compareDays, tolerance). */
  type: pulumi.Input<MonitorType>;
  /** Alert when no data arrives. Defaults to false. */
  alertOnNoData?: pulumi.Input<boolean>;
  /** Column to monitor. Defaults to "". */
  columnName?: pulumi.Input<string>;
  /** Integer 0 to 7: days compared for anomaly detection. Defaults to 0. */
  compareDays?: pulumi.Input<number>;
  /** Free text. Defaults to "". */
  description?: pulumi.Input<string>;
  /** Whether the monitor is disabled. Defaults to false. */
  disabled?: pulumi.Input<boolean>;
  /** RFC 3339 time until which the monitor stays disabled. Defaults to none. */
  disabledUntil?: pulumi.Input<string>;
  /** Integer, at least 1: run frequency in minutes. Defaults to 1. */
  intervalMinutes?: pulumi.Input<number>;
  /** Notifier ids (e.g. `notifier.id`) that receive alerts; order does not matter. Defaults to none. */
  notifierIds?: pulumi.Input<pulumi.Input<string>[]>;
  /** Group notifications. Defaults to false. */
  notifyByGroup?: pulumi.Input<boolean>;
  /** Notify on every check. Defaults to false. */
  notifyEveryRun?: pulumi.Input<boolean>;
  /** `Below`, `BelowOrEqual`, `Above`, `AboveOrEqual`, or `AboveOrBelow` (AnomalyDetection only). Required for Threshold and AnomalyDetection. */
  operator?: pulumi.Input<MonitorOperator>;
  /** Integer, at least 1: window evaluated per check, in minutes. Defaults to 1. */
  rangeMinutes?: pulumi.Input<number>;
  /** Alerts can be resolved manually. Defaults to false. */
  resolvable?: pulumi.Input<boolean>;
  /** Integer 0 to 86400: seconds of delay before triggering. Defaults to 0. */
  secondDelay?: pulumi.Input<number>;
  /** Skip resolved notifications. Defaults to false. */
  skipResolved?: pulumi.Input<boolean>;
  /** Number compared with the query's value. Required for Threshold; no default. */
  threshold?: pulumi.Input<number>;
  /** Number 0 to 100: percent, for anomaly detection. Defaults to 0. */
  tolerance?: pulumi.Input<number>;
  /** Integer, at least 0: positive results needed before triggering. Defaults to 0. */
  triggerAfterNPositiveResults?: pulumi.Input<number>;
  /** Integer, at least 0: consecutive failing runs needed before alerting. Defaults to 1. */
  triggerFromNRuns?: pulumi.Input<number>;
  /** Id (`mon_…`) of an existing monitor to take under management instead of creating one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<MonitorArgs, typeof MonitorFieldsSchema>>;

/** An alert rule: runs an APL query on a schedule and notifies notifiers. */
export class Monitor extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** Human-readable name. */
  declare readonly name: pulumi.Output<string>;
  /** The APL query analyzed. */
  declare readonly aplQuery: pulumi.Output<string>;
  /** `Threshold`, `MatchEvent` or `AnomalyDetection`. */
  declare readonly type: pulumi.Output<MonitorType>;
  /** Alert when no data arrives. */
  declare readonly alertOnNoData: pulumi.Output<boolean | undefined>;
  /** Column monitored. */
  declare readonly columnName: pulumi.Output<string | undefined>;
  /** Days compared for anomaly detection. */
  declare readonly compareDays: pulumi.Output<number | undefined>;
  /** Free text. */
  declare readonly description: pulumi.Output<string | undefined>;
  /** Whether the monitor is disabled. */
  declare readonly disabled: pulumi.Output<boolean | undefined>;
  /** Disabled until this time, or null. */
  declare readonly disabledUntil: pulumi.Output<string | null | undefined>;
  /** Run frequency in minutes. */
  declare readonly intervalMinutes: pulumi.Output<number | undefined>;
  /** Notifiers that receive alerts. */
  declare readonly notifierIds: pulumi.Output<string[] | undefined>;
  /** Group notifications. */
  declare readonly notifyByGroup: pulumi.Output<boolean | undefined>;
  /** Notify on every check. */
  declare readonly notifyEveryRun: pulumi.Output<boolean | undefined>;
  /** Comparison operator. */
  declare readonly operator: pulumi.Output<MonitorOperator | undefined>;
  /** Window evaluated per check, in minutes. */
  declare readonly rangeMinutes: pulumi.Output<number | undefined>;
  /** Alerts can be resolved manually. */
  declare readonly resolvable: pulumi.Output<boolean | undefined>;
  /** Seconds of delay before triggering. */
  declare readonly secondDelay: pulumi.Output<number | undefined>;
  /** Skip resolved notifications. */
  declare readonly skipResolved: pulumi.Output<boolean | undefined>;
  /** Threshold compared with the query's value. */
  declare readonly threshold: pulumi.Output<number | undefined>;
  /** Tolerance in percent, for anomaly detection. */
  declare readonly tolerance: pulumi.Output<number | undefined>;
  /** Positive results needed before triggering. */
  declare readonly triggerAfterNPositiveResults: pulumi.Output<number | undefined>;
  /** Consecutive failing runs needed before alerting. */
  declare readonly triggerFromNRuns: pulumi.Output<number | undefined>;
  /** When the service created the monitor (server-set). */
  declare readonly createdAt: pulumi.Output<string | undefined>;
  /** Who created the monitor (server-set user id). */
  declare readonly createdBy: pulumi.Output<string | undefined>;
  /** The adopted id, when the monitor was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /** Declares a monitor. */
  constructor(name: string, args: MonitorArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link Monitor.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: MonitorArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const options = adoptableOptions("Monitor", name, args, opts);
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), options);
  }

  /** Looks up an existing monitor by id (`mon_…`) without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Monitor {
    return new Monitor(name, undefined, { ...opts, id });
  }
}
