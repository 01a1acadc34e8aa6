/**
 * Dashboard: a typed dashboard document (charts, layout, time window, refresh time), addressed by its `uid`.
 * POST `/v2/dashboards`, GET/PUT/DELETE `/v2/dashboards/uid/{uid}`.
 */
import * as pulumi from "@pulumi/pulumi";
import { DashboardInputSchema } from "../schemas";
import {
  adoptableOptions,
  resourceProps,
  withDeleteBeforeReplace,
  type ArgsMatchSchema,
  type Assert,
} from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./dashboard-kind";

type In<T> = pulumi.Input<T>;

/** An APL or an MPL query: exactly one of the two. */
export type DashboardQuery = { apl: In<string>; mpl?: never } | { mpl: In<string>; apl?: never };
/** How a time series renders. */
export interface TimeSeriesQueryOptions {
  /** Empty intervals: `auto` infers, `null` leaves gaps, `span` connects, `zero` fills with zero. */
  displayNull?: "auto" | "null" | "span" | "zero" | "";
  /** `"true"` overlays the series on one chart. */
  overlayCharts?: "true" | "false" | "";
  /** At most 10000 characters. */
  shownColumns?: string;
  timeSeriesVariant?: "area" | "bars" | "line" | "lines" | "";
  timeSeriesView?: "charts" | "resultsTable" | "charts|resultsTable" | "";
}
/** A column of a table or log stream: its name, or `{name, width}` (width a positive integer). */
export type DashboardColumnSetting = string | { name: string; width?: number };
/** Columns and display settings of a table or log stream. */
export interface DashboardTableSettings {
  /** At most 500. */
  columns?: DashboardColumnSetting[];
  settings?: {
    /** e.g. `12px`. */
    fontSize?: string;
    highlightSeverity?: boolean;
    showRaw?: boolean;
    showEvent?: boolean;
    showTimestamp?: boolean;
    wrapLines?: boolean;
    hideNulls?: boolean;
    fitColumns?: boolean;
  };
}
type StatisticThreshold = "Above" | "AboveOrEqual" | "Below" | "BelowOrEqual" | "AboveOrBelow";
/** Colors of a statistic in one state; CSS colors of at most 200 characters. */
export interface StatisticColorProps {
  background?: string;
  chartFillColor?: string;
  labelColor?: string;
  textColor?: string;
}
/** What every chart has: an id (1–200 characters, unique in the dashboard; the layout's `i` names it). */
interface ChartBase {
  id: In<string>;
}
/** A chart over a query; `name` 1–500 characters. `datasetId` is what the UI's exports carry. */
interface QueryChartBase<Q = DashboardQuery> extends ChartBase {
  name?: In<string>;
  query: In<Q>;
  datasetId?: In<string>;
}
export interface TimeSeriesChart extends QueryChartBase<
  DashboardQuery & { queryOptions?: TimeSeriesQueryOptions }
> {
  type: "TimeSeries";
}
export interface HeatmapChart extends QueryChartBase<
  DashboardQuery & {
    queryOptions?: { timeSeriesView?: "charts" | "resultsTable" | "charts|resultsTable" | "" };
  }
> {
  type: "Heatmap";
}
export interface LogStreamChart extends QueryChartBase {
  type: "LogStream";
  tableSettings?: DashboardTableSettings;
}
export interface PieChart extends QueryChartBase {
  type: "Pie";
}
export interface ScatterChart extends QueryChartBase {
  type: "Scatter";
}
export interface TableChart extends QueryChartBase {
  type: "Table";
  tableSettings?: DashboardTableSettings;
}
export interface TopKChart extends QueryChartBase {
  type: "TopK";
}
export interface StatisticChart extends QueryChartBase {
  type: "Statistic";
  colorScheme?:
    "Blue" | "Orange" | "Red" | "Purple" | "Teal" | "Yellow" | "Green" | "Pink" | "Grey" | "Brown";
  /** At most 200 characters. */
  customUnits?: string;
  showChart?: boolean | string;
  hideValue?: boolean;
  /** A string of at most 100 characters, or a number. */
  chartHeight?: string | number;
  errorThreshold?: StatisticThreshold;
  /** At most 100 characters. */
  errorThresholdValue?: string;
  warningThreshold?: StatisticThreshold;
  /** At most 100 characters. */
  warningThresholdValue?: string;
  invertTheme?: boolean;
  background?: string;
  textColor?: string;
  labelColor?: string;
  chartFillColor?: string;
  okColorProps?: StatisticColorProps;
  warningColorProps?: StatisticColorProps;
  errorColorProps?: StatisticColorProps;
}
/** Markdown text, 1–100000 characters. */
export interface NoteChart extends ChartBase {
  type: "Note";
  text: In<string>;
  variant?: "default";
}
/** The state of chosen monitors. */
export interface MonitorListChart extends ChartBase {
  type: "MonitorList";
  name?: In<string>;
  /** 1–200 monitor ids (e.g. `monitor.id`); order does not matter. */
  selectedMonitors: In<In<string>[]>;
  /** Which columns show; all five are required. */
  columns: { status: boolean; history: boolean; dataset: boolean; type: boolean; notifiers: boolean };
}
/** One option of a select filter. */
export interface SmartFilterOption {
  key: string;
  value: string;
  default?: boolean;
  unset?: boolean;
}
/** One filter of a filter bar; ids and names at most 200 characters. */
export type SmartFilter =
  | { type: "search"; id: string; name: string; active?: boolean }
  | {
      type: "select";
      selectType: "list";
      id: string;
      name: string;
      active?: boolean;
      options?: SmartFilterOption[] | null | "";
    }
  | {
      type: "select";
      selectType: "query";
      id: string;
      name: string;
      active?: boolean;
      options?: SmartFilterOption[] | null | "";
      query?: DashboardQuery;
    };
/** A filter bar: 1–50 filters. */
export interface SmartFilterChart extends ChartBase {
  type: "SmartFilter";
  name?: In<string>;
  filters: SmartFilter[];
  /** URLs of at most 2000 characters. */
  logo?: string;
  logoDark?: string;
}
/** Empty space. */
export interface SpacerChart extends ChartBase {
  type: "Spacer";
  name?: In<string>;
}
/** A section title (accepted by the service beyond the OpenAPI document; found in UI exports). */
export interface SectionHeaderChart extends ChartBase {
  type: "SectionHeader";
  name?: In<string>;
  query?: In<DashboardQuery>;
  datasetId?: In<string>;
}
/** An empty slot (accepted by the service beyond the OpenAPI document; found in UI exports). */
export interface PlaceholderChart extends ChartBase {
  type: "Placeholder";
}
/** One chart, discriminated by `type`. */
export type DashboardChart =
  | TimeSeriesChart
  | HeatmapChart
  | LogStreamChart
  | PieChart
  | ScatterChart
  | TableChart
  | TopKChart
  | StatisticChart
  | NoteChart
  | MonitorListChart
  | SmartFilterChart
  | SpacerChart
  | SectionHeaderChart
  | PlaceholderChart;

/** A chart's place on the 12-column grid; no other keys. */
export interface DashboardLayoutItem {
  /** The id of the chart placed here. */
  i: In<string>;
  /** Column, 0–11. */
  x: number;
  /** Row, 0 or more; null lets the grid place it. */
  y: number | null;
  /** Width in columns, 1–12. */
  w: number;
  /** Height in rows, 1–100. */
  h: number;
  minW?: number;
  /** 0.5–100. */
  minH?: number;
  maxW?: number;
  maxH?: number;
  static?: boolean;
}

/** The dashboard document: what the UI's "export" gives, and what the service stores. */
export interface DashboardDocumentArgs {
  /** Required: 1–100 characters. */
  name: In<string>;
  /** A user id, or `X-AXIOM-EVERYONE` (any case) for everyone in the organization. Defaults to everyone. */
  owner?: In<string>;
  /** At most 1000 characters. Defaults to "". */
  description?: In<string>;
  /** Required: at most 200; each needs a place in the layout. Order does not matter. */
  charts: In<In<DashboardChart>[]>;
  /** Required: at most 200 items, one per chart. Order does not matter. */
  layout: In<In<DashboardLayoutItem>[]>;
  /** Required: seconds between refreshes, 15, 60 or 300. */
  refreshTime: 15 | 60 | 300;
  /** Required: 2. */
  schemaVersion: 2;
  /** Required: `qr-now-<n><s|m|h|d|w>` (e.g. `qr-now-1h`) or epoch milliseconds as a string. */
  timeWindowStart: In<string>;
  /** Required: `qr-now` or epoch milliseconds as a string. */
  timeWindowEnd: In<string>;
  /** Compare against a period this far back; "" disables. Not together with `againstTimestamp`. */
  against?:
    | "-1h"
    | "-3h"
    | "-6h"
    | "-12h"
    | "-1d"
    | "-3d"
    | "-7d"
    | "-1w"
    | "-2w"
    | "-3w"
    | "-30d"
    | "-60d"
    | "-90d"
    | "";
  /** Compare against this time (ISO 8601, `now-1h`, epoch ms); "" disables. Not together with `against`. */
  againstTimestamp?: In<string>;
  /** Ignored: the service's; the Dashboard's own `uid` input decides which dashboard this is. */
  uid?: string;
  /** Display overrides, as exports carry them (`{}` equals absent). */
  overrides?: { rowHeight?: number; [key: string]: unknown };
  /** Ignored (server-managed keys an export may carry). */
  id?: unknown;
  version?: unknown;
  createdAt?: unknown;
  updatedAt?: unknown;
  createdBy?: unknown;
  updatedBy?: unknown;
}

/** Inputs of a {@link Dashboard}. */
export interface DashboardArgs {
  /** The dashboard's uid, `^[A-Za-z0-9_-]{1,128}$`, unique in the organization; changing it replaces the
   * dashboard. Left out, the service assigns one (see the output `uid`). */
  uid?: In<string>;
  /** Required: the document. A document exported from the UI, parsed, is accepted as it is. */
  dashboard: In<DashboardDocumentArgs>;
  /** Write over changes made elsewhere (in the UI) instead of failing. Defaults to false. Not compared: changing
   * it alone updates nothing. */
  overwrite?: In<boolean>;
  /** A note recorded with each write. Not compared: changing it alone updates nothing. */
  message?: In<string>;
  /** The uid of an existing dashboard to take under management instead of creating one; changing it replaces. */
  adopt?: In<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<DashboardArgs, typeof DashboardInputSchema>>;

/** A dashboard: charts of twelve kinds on a 12-column grid, with its time window and refresh time. */
export class Dashboard extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** The uid (declared, or assigned by the service). */
  declare readonly uid: pulumi.Output<string>;
  /** The document as the service holds it (with the keys it adds, such as `uid` and `overrides`). */
  declare readonly dashboard: pulumi.Output<Record<string, unknown>>;
  /** The service's internal id of the dashboard (the resource's id is its uid). */
  declare readonly dashboardId: pulumi.Output<string | undefined>;
  /** The version last read: every write increments it. */
  declare readonly version: pulumi.Output<number | string | undefined>;
  /** When the dashboard was created (server-set). */
  declare readonly createdAt: pulumi.Output<string | undefined>;
  /** When the dashboard was last written (server-set). */
  declare readonly updatedAt: pulumi.Output<string | undefined>;
  /** Who created the dashboard (server-set). */
  declare readonly createdBy: pulumi.Output<string | undefined>;
  /** Who wrote the dashboard last (server-set). */
  declare readonly updatedBy: pulumi.Output<string | undefined>;
  /** The adopted uid, when the dashboard was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /**
   * Declares a dashboard. With a declared `uid` (and no `adopt`), replacements delete first
   * (`deleteBeforeReplace` defaults to true; yours wins): a forced replacement created first would take the
   * same uid, and the old one's delete would then remove it.
   */
  constructor(name: string, args: DashboardArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link Dashboard.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: DashboardArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const adopted = adoptableOptions(declaration.kind, name, args, opts);
    const options =
      args?.adopt === undefined && args?.uid !== undefined ? withDeleteBeforeReplace(opts) : adopted;
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), options);
  }

  /** Looks up an existing dashboard by uid without managing it. */
  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Dashboard {
    return new Dashboard(name, undefined, { ...opts, id: uid });
  }
}
