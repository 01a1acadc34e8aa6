/**
 * Dashboard: the OpenAPI v2 document's `Dashboard` schema and everything it reaches (twelve chart kinds, the
 * layout, time windows, refresh times), the upsert, write and error bodies, and the kind's cross-field rule.
 * Endpoints: `/v2/dashboards`, `/v2/dashboards/uid/{uid}`, `/v2/dashboards/uid/{uid}/charts/{chartId}`.
 *
 * Besides the document, what a dashboard exported from the service's UI carries is accepted (a document passes
 * the same checks whether written by hand or exported):
 * - the chart kinds `SectionHeader` (`{id, type, name?, query?, datasetId?}`) and `Placeholder` (`{id, type}`),
 *   and `datasetId` on the query charts: the live service creates and reads them back (axiom-go
 *   axiom/dashboards_integration_test.go, TestAllChartTypes, lines 174-188 and 240-268), though the document's
 *   `Chart` oneOf lacks them;
 * - `overrides` (the document's unreferenced `Overrides {rowHeight}` schema), which the service injects as `{}`
 *   (terraform-provider-axiom axiom/resource_dashboard.go lines 462-468, commit 9f1448f);
 * - the server-managed keys `id`, `version`, `createdAt`, `updatedAt`, `createdBy`, `updatedBy` (any value),
 *   which the service may echo inside the document (terraform-provider-axiom resource_dashboard_test.go:39) and
 *   which are ignored: never sent, never compared ({@link DASHBOARD_SERVER_KEYS}).
 */
import { z } from "zod";
import { int64, int64Param, int64Problem } from "./int64";
import { absentWhenUnset, refinedBy, serviceDefault, type CrossFieldIssue } from "./common";

/** The owner meaning "every user of the organization"; the service echoes it lower-case and assumes it when
 * `owner` is left out (terraform-provider-axiom resource_dashboard.go lines 31, 528-553). */
export const DASHBOARD_OWNER_EVERYONE = "X-AXIOM-EVERYONE";
/** Keys the service manages inside a document; accepted from an export, never sent, never compared. `uid` is
 * among them: inside the document it is what the service injects, and the request's `uid` decides identity. */
export const DASHBOARD_SERVER_KEYS = [
  "id",
  "uid",
  "version",
  "createdAt",
  "updatedAt",
  "createdBy",
  "updatedBy",
] as const;

/** The chart kinds of the document's `Chart` oneOf, in its order. */
export const DASHBOARD_CHART_TYPES = [
  "TimeSeries",
  "Heatmap",
  "LogStream",
  "Pie",
  "Scatter",
  "Table",
  "TopK",
  "Statistic",
  "Note",
  "MonitorList",
  "SmartFilter",
  "Spacer",
] as const;
/** Chart kinds the live service accepts beyond the document (axiom-go dashboards_integration_test.go). */
export const DASHBOARD_EXTRA_CHART_TYPES = ["SectionHeader", "Placeholder"] as const;
const ALL_CHART_TYPES = [...DASHBOARD_CHART_TYPES, ...DASHBOARD_EXTRA_CHART_TYPES];

export const DASHBOARD_REFRESH_TIMES = [15, 60, 300] as const;
export const DASHBOARD_AGAINST = [
  "-1h",
  "-3h",
  "-6h",
  "-12h",
  "-1d",
  "-3d",
  "-7d",
  "-1w",
  "-2w",
  "-3w",
  "-30d",
  "-60d",
  "-90d",
] as const;
const THRESHOLDS = ["Above", "AboveOrEqual", "Below", "BelowOrEqual", "AboveOrBelow"] as const;
const COLOR_SCHEMES = [
  "Blue",
  "Orange",
  "Red",
  "Purple",
  "Teal",
  "Yellow",
  "Green",
  "Pink",
  "Grey",
  "Brown",
] as const;
const TIME_SERIES_VIEWS = ["charts", "resultsTable", "charts|resultsTable", ""] as const;

/** `DashboardUID`. */
export const DASHBOARD_UID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
/** `TimeWindowStart`: `qr-now-{n}{s|m|h|d|w}` or epoch milliseconds (the document states it in prose). */
export const TIME_WINDOW_START_PATTERN = /^(qr-now-[0-9]+[smhdw]|[0-9]+)$/;
/** `TimeWindowEnd`: `qr-now` or epoch milliseconds. */
export const TIME_WINDOW_END_PATTERN = /^(qr-now|[0-9]+)$/;
/** `DatetimeString`: ISO 8601, `now-{n}{s|m|h|d|w}`, epoch milliseconds, or "" (clears it). */
const DATETIME_STRING_PATTERN =
  /^(|now-[0-9]+[smhdw]|[0-9]+|[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9:.]+([Zz]|[+-][0-9]{2}:?[0-9]{2})?)?)$/;

const str = (max: number, min = 0) => {
  let s = z.string({ error: "must be a string" });
  if (min > 0) s = s.min(min, min === 1 ? "must not be empty" : `must be at least ${min} characters long`);
  return s.max(max, `must be at most ${max} characters long`);
};
const int = (min: number, max: number) =>
  z
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
const bool = () => z.boolean({ error: "must be a boolean" });
const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}` });

const ChartIdSchema = str(200, 1);
const ChartNameSchema = str(500, 1);
const CssColorSchema = str(200);
const QUERY_MAX = 500_000;

/** A chart query: APL or MPL (the document's anyOf of two closed objects), written as one closed object so
 * that a bad `apl` is reported on `query.apl`; exactly one of the two is required. */
function chartQuery<O extends z.ZodType | undefined>(queryOptions?: O) {
  const shape = {
    apl: str(QUERY_MAX, 1).optional(),
    mpl: str(QUERY_MAX, 1).optional(),
    ...(queryOptions ? { queryOptions: queryOptions.optional() } : {}),
  };
  return z.strictObject(shape).superRefine((q, ctx) => {
    const given = (["apl", "mpl"] as const).filter((k) => q[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: "custom",
        path: [],
        message:
          given.length === 0
            ? "must have an apl or an mpl query"
            : "must have an apl or an mpl query, not both",
      });
  });
}

const TimeSeriesQueryOptionsSchema = z.strictObject({
  displayNull: oneOf(["auto", "null", "span", "zero", ""]).optional(),
  overlayCharts: oneOf(["true", "false", ""]).optional(),
  shownColumns: str(10_000).optional(),
  timeSeriesVariant: oneOf(["area", "bars", "line", "lines", ""]).optional(),
  timeSeriesView: oneOf(TIME_SERIES_VIEWS).optional(),
});
const HeatmapQueryOptionsSchema = z.strictObject({ timeSeriesView: oneOf(TIME_SERIES_VIEWS).optional() });

const AdvancedColumnSettingSchema = z.strictObject({
  name: str(500),
  width: int(1, Number.MAX_SAFE_INTEGER).optional(),
});
const TableSettingsSchema = z.strictObject({
  columns: z
    .array(z.union([str(500), AdvancedColumnSettingSchema]))
    .max(500, "must have at most 500 items")
    .optional(),
  settings: z
    .strictObject({
      fontSize: str(20)
        .regex(/^\d+px$/, "must match ^\\d+px$ (e.g. 12px)")
        .optional(),
      highlightSeverity: bool().optional(),
      showRaw: bool().optional(),
      showEvent: bool().optional(),
      showTimestamp: bool().optional(),
      wrapLines: bool().optional(),
      hideNulls: bool().optional(),
      fitColumns: bool().optional(),
    })
    .optional(),
});

const StatisticColorPropsSchema = z.strictObject({
  background: CssColorSchema.optional(),
  chartFillColor: CssColorSchema.optional(),
  labelColor: CssColorSchema.optional(),
  textColor: CssColorSchema.optional(),
});

const SmartFilterOptionSchema = z.strictObject({
  key: str(500),
  value: str(10_000),
  default: bool().optional(),
  unset: bool().optional(),
});
/** `SmartFilterOptions`: a list of at most 200 options, null, or "". */
const SmartFilterOptionsSchema = z.union([
  z.array(SmartFilterOptionSchema).max(200, "must have at most 200 items"),
  z.null(),
  z.literal(""),
]);
/** A filter's `name` is required, as the OpenAPI document (`SmartFilterSearch`, `SmartFilterSelectList`) has it and
 * the live service enforces: axiomhq/axiom-go commit c0cd523 added a name to its live test's search filter because
 * the service refused the create without one ("dashboard validation failed at [charts 11 filters 0]"). */
const smartFilterBase = {
  id: str(200),
  name: str(200),
  active: bool().optional(),
};
const SmartFilterSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ ...smartFilterBase, type: z.literal("search") }),
    z.discriminatedUnion(
      "selectType",
      [
        z.strictObject({
          ...smartFilterBase,
          type: z.literal("select"),
          selectType: z.literal("list"),
          options: SmartFilterOptionsSchema.optional(),
        }),
        z.strictObject({
          ...smartFilterBase,
          type: z.literal("select"),
          selectType: z.literal("query"),
          options: SmartFilterOptionsSchema.optional(),
          query: chartQuery().optional(),
        }),
      ],
      { error: 'must be "list" or "query"' },
    ),
  ],
  { error: 'must be "search" or "select"' },
);

/** The fields every chart kind with a query has: the live service also takes `datasetId` on them. */
const queryChart = <T extends string, Q extends z.ZodType>(type: T, query: Q) => ({
  id: ChartIdSchema,
  type: z.literal(type),
  name: ChartNameSchema.optional(),
  query,
  datasetId: str(200).optional(),
});

const TimeSeriesChartSchema = z.strictObject(
  queryChart("TimeSeries", chartQuery(TimeSeriesQueryOptionsSchema)),
);
const HeatmapChartSchema = z.strictObject(queryChart("Heatmap", chartQuery(HeatmapQueryOptionsSchema)));
const LogStreamChartSchema = z.strictObject({
  ...queryChart("LogStream", chartQuery()),
  tableSettings: TableSettingsSchema.optional(),
});
const PieChartSchema = z.strictObject(queryChart("Pie", chartQuery()));
const ScatterChartSchema = z.strictObject(queryChart("Scatter", chartQuery()));
const TableChartSchema = z.strictObject({
  ...queryChart("Table", chartQuery()),
  tableSettings: TableSettingsSchema.optional(),
});
const TopKChartSchema = z.strictObject(queryChart("TopK", chartQuery()));
const StatisticChartSchema = z.strictObject({
  ...queryChart("Statistic", chartQuery()),
  colorScheme: oneOf(COLOR_SCHEMES).optional(),
  customUnits: str(200).optional(),
  showChart: z.union([bool(), z.string()], { error: "must be a boolean or a string" }).optional(),
  hideValue: bool().optional(),
  chartHeight: z
    .union([str(100), z.number()], { error: "must be a string of at most 100 characters or a number" })
    .optional(),
  errorThreshold: oneOf(THRESHOLDS).optional(),
  errorThresholdValue: str(100).optional(),
  warningThreshold: oneOf(THRESHOLDS).optional(),
  warningThresholdValue: str(100).optional(),
  invertTheme: bool().optional(),
  background: CssColorSchema.optional(),
  textColor: CssColorSchema.optional(),
  labelColor: CssColorSchema.optional(),
  chartFillColor: CssColorSchema.optional(),
  okColorProps: StatisticColorPropsSchema.optional(),
  warningColorProps: StatisticColorPropsSchema.optional(),
  errorColorProps: StatisticColorPropsSchema.optional(),
});
const NoteChartSchema = z.strictObject({
  id: ChartIdSchema,
  type: z.literal("Note"),
  text: str(100_000, 1),
  variant: oneOf(["default"]).optional(),
});
const MonitorListChartSchema = z.strictObject({
  id: ChartIdSchema,
  type: z.literal("MonitorList"),
  name: ChartNameSchema.optional(),
  selectedMonitors: z
    .array(str(200, 1))
    .min(1, "must have at least 1 items")
    .max(200, "must have at most 200 items"),
  columns: z.strictObject({
    status: bool(),
    history: bool(),
    dataset: bool(),
    type: bool(),
    notifiers: bool(),
  }),
});
const SmartFilterChartSchema = z.strictObject({
  id: ChartIdSchema,
  type: z.literal("SmartFilter"),
  name: ChartNameSchema.optional(),
  filters: z
    .array(SmartFilterSchema)
    .min(1, "must have at least 1 items")
    .max(50, "must have at most 50 items"),
  logo: str(2000).optional(),
  logoDark: str(2000).optional(),
});
const SpacerChartSchema = z.strictObject({
  id: ChartIdSchema,
  type: z.literal("Spacer"),
  name: ChartNameSchema.optional(),
});
const SectionHeaderChartSchema = z.strictObject({
  id: ChartIdSchema,
  type: z.literal("SectionHeader"),
  name: ChartNameSchema.optional(),
  query: chartQuery().optional(),
  datasetId: str(200).optional(),
});
const PlaceholderChartSchema = z.strictObject({ id: ChartIdSchema, type: z.literal("Placeholder") });

const ChartUnionSchema = z.discriminatedUnion("type", [
  TimeSeriesChartSchema,
  HeatmapChartSchema,
  LogStreamChartSchema,
  PieChartSchema,
  ScatterChartSchema,
  TableChartSchema,
  TopKChartSchema,
  StatisticChartSchema,
  NoteChartSchema,
  MonitorListChartSchema,
  SmartFilterChartSchema,
  SpacerChartSchema,
  SectionHeaderChartSchema,
  PlaceholderChartSchema,
]);

/**
 * One chart: the union discriminated by `type`. A chart whose `type` is missing or not a kind is reported on
 * `type` itself ("must be one of TimeSeries, …"), not as a union that matched nothing; a chart of a known kind
 * is then held to that kind's fields.
 */
export const DashboardChartSchema = z
  .looseObject({ type: oneOf(ALL_CHART_TYPES as unknown as [string, ...string[]]) })
  .pipe(ChartUnionSchema);

/** `LayoutItem`: closed; `y` is required but may be null. */
export const DashboardLayoutItemSchema = z.strictObject({
  i: ChartIdSchema,
  x: int(0, 11),
  y: int(0, Number.MAX_SAFE_INTEGER).nullable(),
  w: int(1, 12),
  h: int(1, 100),
  minW: int(1, 12).optional(),
  minH: z
    .number({ error: "must be a number" })
    .min(0.5, "must be at least 0.5")
    .max(100, "must be at most 100")
    .optional(),
  maxW: int(1, 12).optional(),
  maxH: int(1, 100).optional(),
  static: bool().optional(),
});

const serverKeyFields = Object.fromEntries(
  DASHBOARD_SERVER_KEYS.filter((k) => k !== "uid").map((k) => [k, z.unknown().optional()]),
) as Record<Exclude<(typeof DASHBOARD_SERVER_KEYS)[number], "uid">, z.ZodOptional<z.ZodUnknown>>;

const dashboardDocumentFields = {
  /** Required; 1–100 characters. */
  name: str(100, 1),
  /** A user id, or `X-AXIOM-EVERYONE`; the service assumes everyone when left out. */
  owner: serviceDefault(str(200, 1).optional(), DASHBOARD_OWNER_EVERYONE),
  description: serviceDefault(str(1000).optional(), ""),
  /** At most 200. */
  charts: z.array(DashboardChartSchema).max(200, "must have at most 200 items"),
  /** At most 200 items. */
  layout: z.array(DashboardLayoutItemSchema).max(200, "must have at most 200 items"),
  refreshTime: z.literal(DASHBOARD_REFRESH_TIMES, { error: "must be one of 15, 60, 300" }),
  schemaVersion: z.literal(2, { error: "must be 2" }),
  /** "" (or absent) disables the comparison. */
  against: serviceDefault(
    z
      .enum([...DASHBOARD_AGAINST, ""], { error: `must be one of ${DASHBOARD_AGAINST.join(", ")} or ""` })
      .optional(),
    "",
  ),
  againstTimestamp: serviceDefault(
    str(100)
      .regex(DATETIME_STRING_PATTERN, {
        error: "must be an ISO 8601 time, now-<n><s|m|h|d|w>, epoch milliseconds, or empty",
      })
      .optional(),
    "",
  ),
  timeWindowStart: str(100, 1).regex(TIME_WINDOW_START_PATTERN, {
    error: "must be qr-now-<n><s|m|h|d|w> (e.g. qr-now-1h) or epoch milliseconds",
  }),
  timeWindowEnd: str(100, 1).regex(TIME_WINDOW_END_PATTERN, {
    error: "must be qr-now or epoch milliseconds",
  }),
  uid: str(128).regex(DASHBOARD_UID_PATTERN, { error: "must match ^[A-Za-z0-9_-]{1,128}$" }).optional(),
  /** Injected by the service as `{}`; an export carries it. */
  overrides: z.looseObject({ rowHeight: int(1, Number.MAX_SAFE_INTEGER).optional() }).optional(),
  ...serverKeyFields,
};

/** The keys a document may have. */
export const DASHBOARD_DOCUMENT_KEYS = Object.keys(dashboardDocumentFields);

/** A dashboard document as a user declares it (or exports it): closed, every rule of the OpenAPI document. */
export const DashboardDocumentSchema = z.strictObject(dashboardDocumentFields);

/** What the cross-field rule reads; typed loosely, since `check` runs it on inputs that failed their own rules. */
type DocumentShape = { charts?: unknown; layout?: unknown; against?: unknown; againstTimestamp?: unknown };

/**
 * The document's cross-references, each reported on the field at fault under `prefix` (`dashboard.` for the
 * resource's inputs, `dashboard.` in a request body): chart ids are unique, a layout item's `i` names a chart
 * that exists, each chart has one place in the layout; and `against` and `againstTimestamp` are not both set,
 * since "setting one clears the other" (the service would keep only one, and the next plan would differ). A
 * chart id or layout `i` that is not a string (not yet known at preview, or failing its own rule) suspends the
 * reference checks, which cannot be judged without it.
 */
export function dashboardDocumentIssues(doc: unknown, prefix = "dashboard"): CrossFieldIssue[] {
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return [];
  const d = doc as DocumentShape;
  const at = (rest: string) => (prefix ? `${prefix}.${rest}` : rest);
  const issues: CrossFieldIssue[] = [];
  const set = (v: unknown) => v !== undefined && v !== null && v !== "";
  if (set(d.against) && set(d.againstTimestamp))
    issues.push({
      path: at("againstTimestamp"),
      message:
        "must not be set together with against: the service keeps only one (setting one clears the other)",
    });
  if (!Array.isArray(d.charts) || !Array.isArray(d.layout)) return issues;
  const chartIds = d.charts.map((c) => (c && typeof c === "object" ? (c as { id?: unknown }).id : undefined));
  const places = d.layout.map((l) => (l && typeof l === "object" ? (l as { i?: unknown }).i : undefined));
  if (![...chartIds, ...places].every((v) => typeof v === "string")) return issues;
  const ids = chartIds as string[];
  const is = places as string[];
  const firstChart = new Map<string, number>();
  ids.forEach((id, k) => {
    const first = firstChart.get(id);
    if (first !== undefined)
      issues.push({
        path: at(`charts[${k}].id`),
        message: `duplicates charts[${first}].id ${JSON.stringify(id)}`,
      });
    else firstChart.set(id, k);
  });
  const firstPlace = new Map<string, number>();
  is.forEach((i, k) => {
    const first = firstPlace.get(i);
    if (first !== undefined)
      issues.push({
        path: at(`layout[${k}].i`),
        message: `duplicates layout[${first}].i ${JSON.stringify(i)}: a chart has one place`,
      });
    else firstPlace.set(i, k);
    if (!firstChart.has(i))
      issues.push({
        path: at(`layout[${k}].i`),
        message: `must name a chart: no chart has id ${JSON.stringify(i)}`,
      });
  });
  ids.forEach((id, k) => {
    if (firstChart.get(id) === k && !firstPlace.has(id))
      issues.push({
        path: at(`charts[${k}].id`),
        message: `has no place in the layout: no layout item has i ${JSON.stringify(id)}`,
      });
  });
  return issues;
}

/** The Dashboard kind's cross-field rule on its inputs (`{uid, dashboard, …}`), for the provider's `check`. */
export function dashboardCrossFieldIssues(inputs: Record<string, unknown>): CrossFieldIssue[] {
  return dashboardDocumentIssues(inputs.dashboard, "dashboard");
}

/** A dashboard's version: the service's int64, which may arrive above 2^53 and then sometimes as a JSON string
 * (alchemy-run/distilled patches/v2/002-dashboard-version-bigint.patch.json); echoed back as received. */
/** Query string of `GET /v2/dashboards`: the document's `Limit` (1–1000 here, default 100) and `Offset`. */
export const DashboardListSchema = z.object({
  limit: int64Param({ min: 1n, max: 1000n, fallback: 100 }),
  offset: int64Param({ min: 0n, fallback: 0 }),
});

export const DashboardVersionSchema = z.union(
  [
    int64(),
    z
      .string()
      // abort: zod runs later checks after a failed one, and BigInt throws on what is not digits (a 500).
      .regex(/^-?[0-9]+$/, { abort: true })
      .refine((text) => int64Problem(BigInt(text)) === undefined, { error: "must be within int64" }),
  ],
  { error: "must be an integer (or a string of digits)" },
);

const dashboardInputFields = {
  /** `^[A-Za-z0-9_-]{1,128}$`; unique in the organization; absent, the service assigns one. */
  uid: z
    .string({ error: "must be a string" })
    .regex(DASHBOARD_UID_PATTERN, { error: "must match ^[A-Za-z0-9_-]{1,128}$" })
    .optional(),
  /** Required: the dashboard document. */
  dashboard: DashboardDocumentSchema,
  /** Write over changes made elsewhere instead of failing with 412. */
  overwrite: serviceDefault(bool().optional(), false),
  /** A note recorded with each write. */
  message: z.string({ error: "must be a string" }).optional(),
};

/** What a user declares: closed at every level; the cross-field rule is {@link dashboardCrossFieldIssues}. */
export const DashboardInputSchema = z.strictObject(dashboardInputFields);

/** Body of `POST /v2/dashboards` and `PUT /v2/dashboards/uid/{uid}` (`DashboardUpsertRequest`): the document's
 * rules and its cross-references, a uid of the pattern, an opaque version. Null means absent. */
export const DashboardUpsertSchema = absentWhenUnset(
  z.object({
    dashboard: refinedBy(DashboardDocumentSchema, (doc) => dashboardDocumentIssues(doc, "")),
    uid: dashboardInputFields.uid,
    version: DashboardVersionSchema.optional(),
    overwrite: bool().optional(),
    message: z.string({ error: "must be a string" }).optional(),
  }),
);

/**
 * `DashboardUpsertRequest` by shape only, the document as given: the body the provider sends, whose document
 * `check` has already held to {@link DashboardInputSchema} (the service holds it to its rules again).
 */
export const DashboardUpsertShapeSchema = z.object({
  dashboard: z.record(z.string(), z.unknown(), { error: "must be an object" }),
  uid: z.string({ error: "must be a string" }).optional(),
  version: DashboardVersionSchema.optional(),
  overwrite: z.boolean({ error: "must be a boolean" }).optional(),
  message: z.string({ error: "must be a string" }).optional(),
});

/** Body of `PATCH /v2/dashboards/uid/{uid}/charts/{chartId}` (`DashboardChartPatchRequest`): `chart` is a JSON
 * merge patch of the chart; the patched dashboard is then held to every rule. */
export const DashboardChartPatchSchema = absentWhenUnset(
  z.object({
    chart: z.record(z.string(), z.unknown(), {
      error: "must be an object (a JSON merge patch of the chart)",
    }),
    version: DashboardVersionSchema.optional(),
    overwrite: bool().optional(),
    message: z.string({ error: "must be a string" }).optional(),
  }),
);

/** `DashboardResource`, as the service returns it: shape only, the document kept whole (unknown keys and
 * all), so the provider's read shows what the service holds. */
export const DashboardResourceSchema = z.looseObject({
  uid: z.string(),
  id: z.string().optional(),
  version: z.union([z.number(), z.string()]).optional(),
  dashboard: z.record(z.string(), z.unknown()),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  createdBy: z.string().optional(),
  updatedBy: z.string().optional(),
});

/** `DashboardWriteResponse`: what a create, update or chart patch answers. */
export const DashboardWriteResponseSchema = z.looseObject({
  status: z.string(),
  overwritten: z.boolean().optional(),
  dashboard: DashboardResourceSchema,
});

/** `DashboardError`: every failure of a dashboard operation. */
export const DashboardErrorSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  reason: z.string().optional(),
  uid: z.string().optional(),
  currentVersion: z.union([z.number(), z.string()]).optional(),
});

export type DashboardDocument = z.input<typeof DashboardDocumentSchema>;
export type DashboardChart = z.input<typeof ChartUnionSchema>;
export type DashboardLayoutItem = z.input<typeof DashboardLayoutItemSchema>;
/** A dashboard's version as the service sent it; a bigint only where JSON is read exactly (the emulator's
 * int64s, provider/schemas/int64.ts), never in the client, which reads float64s. */
export type DashboardVersion = number | bigint | string;
/** `DashboardUpsertRequest`. */
export interface DashboardUpsert {
  /** The document (see the `Dashboard` resource's typed inputs); sent as given. */
  dashboard: Record<string, unknown>;
  uid?: string;
  version?: DashboardVersion;
  overwrite?: boolean;
  message?: string;
}
/** `DashboardChartPatchRequest` without the chart: how the patch is written. */
export interface DashboardChartPatchOptions {
  version?: DashboardVersion;
  overwrite?: boolean;
  message?: string;
}
export type Dashboard = z.infer<typeof DashboardResourceSchema>;
export type DashboardWriteResponse = z.infer<typeof DashboardWriteResponseSchema>;
export type DashboardError = z.infer<typeof DashboardErrorSchema>;
