/**
 * Every rule of the OpenAPI v2 document's `Dashboard` schema (axiomhq/docs content/docs/(api-reference)/restapi/
 * versions/v2.json: Dashboard, the twelve chart kinds, LayoutItem, TimeWindowStart/End, DashboardUID, …) and of
 * the OpenAPI v2 document's dashboards, one named row each, through the provider's check: the failure names the property by
 * its path under `dashboard` and states the rule. The same rows go to the emulator, which answers 422 naming
 * the same path. Then: the cross-references, values unknown at preview, and a document exported from the UI.
 */
import { implementation } from "../../provider/resources/dynamic";
import { UNKNOWN } from "../../provider/resources/lifecycle";
import { EXPORTED } from "../helpers/dashboard-export";
import { api, useEmulator } from "../helpers/emulator";

type Props = Record<string, unknown>;
const long = (n: number) => "a".repeat(n);
const check = (inputs: Props) => implementation("Dashboard").check({}, inputs);

const note = { id: "n", type: "Note", text: "hi" };
const q = { apl: "['logs'] | count" };
const place = (i: string, k = 0) => ({ i, x: 0, y: k * 4, w: 4, h: 4 });

/** A valid document with `chart` as its second chart (placed), and `patch` over the document's own fields. */
function doc(chart?: Props, patch: Props = {}): Props {
  const charts = chart ? [note, chart] : [note];
  return {
    name: "d",
    charts,
    layout: charts.map((c, k) => place(String(c.id), k)),
    refreshTime: 60,
    schemaVersion: 2,
    timeWindowStart: "qr-now-1h",
    timeWindowEnd: "qr-now",
    ...patch,
  };
}
const withLayoutItem = (item: Props): Props => ({ ...doc(), layout: [item] });
const without = (obj: Props, key: string): Props => {
  const out = { ...obj };
  delete out[key];
  return out;
};
const chart = (type: string, extra: Props = {}): Props => ({ id: "c", type, ...extra });
const ts = (extra: Props = {}) => chart("TimeSeries", { query: q, ...extra });
const stat = (extra: Props) => chart("Statistic", { query: q, ...extra });
const columns = { status: true, history: true, dataset: true, type: true, notifiers: true };
const monitorList = (extra: Props = {}) =>
  chart("MonitorList", { selectedMonitors: ["mon_1"], columns, ...extra });
const smart = (filters: unknown[], extra: Props = {}) => chart("SmartFilter", { filters, ...extra });
const search = { type: "search", id: "s", name: "Search" };

/** [rule, document, property (under `dashboard.`), words the reason must contain] */
const rows: [string, Props, string, string][] = [
  // Dashboard
  ["name is required", without(doc(), "name"), "name", "is required"],
  ["name has at least 1 character", doc(undefined, { name: "" }), "name", "empty"],
  ["name has at most 100 characters", doc(undefined, { name: long(101) }), "name", "at most 100"],
  ["owner is a string", doc(undefined, { owner: 7 }), "owner", "must be a string"],
  [
    "description has at most 1000 characters",
    doc(undefined, { description: long(1001) }),
    "description",
    "at most 1000",
  ],
  ["charts is required", without(doc(), "charts"), "charts", "is required"],
  ["charts is a list", doc(undefined, { charts: {} }), "charts", "must be a list"],
  [
    "charts has at most 200 items",
    doc(undefined, { charts: Array.from({ length: 201 }, (_, k) => ({ ...note, id: `n${k}` })) }),
    "charts",
    "at most 200",
  ],
  ["layout is required", without(doc(), "layout"), "layout", "is required"],
  [
    "layout has at most 200 items",
    doc(undefined, { layout: Array.from({ length: 201 }, () => place("n")) }),
    "layout",
    "at most 200",
  ],
  ["refreshTime is required", without(doc(), "refreshTime"), "refreshTime", "is required"],
  ["refreshTime is 15, 60 or 300", doc(undefined, { refreshTime: 30 }), "refreshTime", "one of 15, 60, 300"],
  ["schemaVersion is required", without(doc(), "schemaVersion"), "schemaVersion", "is required"],
  ["schemaVersion is 2", doc(undefined, { schemaVersion: 1 }), "schemaVersion", "must be 2"],
  ["against is one of the offsets", doc(undefined, { against: "-2h" }), "against", "-1h"],
  [
    "againstTimestamp has at most 100 characters",
    doc(undefined, { againstTimestamp: `1${"0".repeat(100)}` }),
    "againstTimestamp",
    "at most 100",
  ],
  [
    "againstTimestamp is ISO 8601, now-<n><unit>, epoch ms or empty",
    doc(undefined, { againstTimestamp: "yesterday" }),
    "againstTimestamp",
    "ISO 8601",
  ],
  ["timeWindowStart is required", without(doc(), "timeWindowStart"), "timeWindowStart", "is required"],
  [
    "timeWindowStart is qr-now-<n><s|m|h|d|w> or epoch ms",
    doc(undefined, { timeWindowStart: "now-1h" }),
    "timeWindowStart",
    "qr-now-<n><s|m|h|d|w>",
  ],
  [
    "timeWindowStart's unit is one of s m h d w",
    doc(undefined, { timeWindowStart: "qr-now-1y" }),
    "timeWindowStart",
    "qr-now-<n><s|m|h|d|w>",
  ],
  [
    "timeWindowStart has at most 100 characters",
    doc(undefined, { timeWindowStart: "1".repeat(101) }),
    "timeWindowStart",
    "at most 100",
  ],
  ["timeWindowEnd is required", without(doc(), "timeWindowEnd"), "timeWindowEnd", "is required"],
  [
    "timeWindowEnd is qr-now or epoch ms",
    doc(undefined, { timeWindowEnd: "qr-now-1h" }),
    "timeWindowEnd",
    "qr-now",
  ],
  [
    "uid in the document matches the uid pattern",
    doc(undefined, { uid: "a/b" }),
    "uid",
    "^[A-Za-z0-9_-]{1,128}$",
  ],
  [
    "a key the document does not have is refused",
    doc(undefined, { theme: "dark" }),
    "theme",
    "not a known field",
  ],
  [
    "overrides.rowHeight is a positive integer",
    doc(undefined, { overrides: { rowHeight: 0 } }),
    "overrides.rowHeight",
    "at least 1",
  ],
  // LayoutItem
  ["layout i is required", withLayoutItem(without(place("n"), "i")), "layout[0].i", "is required"],
  [
    "layout i has at most 200 characters",
    withLayoutItem({ ...place("n"), i: long(201) }),
    "layout[0].i",
    "at most 200",
  ],
  ["layout x is at least 0", withLayoutItem({ ...place("n"), x: -1 }), "layout[0].x", "at least 0"],
  ["layout x is at most 11", withLayoutItem({ ...place("n"), x: 12 }), "layout[0].x", "at most 11"],
  ["layout x is an integer", withLayoutItem({ ...place("n"), x: 1.5 }), "layout[0].x", "integer"],
  [
    "layout y is required (null allowed)",
    withLayoutItem(without(place("n"), "y")),
    "layout[0].y",
    "is required",
  ],
  ["layout y is at least 0", withLayoutItem({ ...place("n"), y: -1 }), "layout[0].y", "at least 0"],
  ["layout w is at least 1", withLayoutItem({ ...place("n"), w: 0 }), "layout[0].w", "at least 1"],
  ["layout w is at most 12", withLayoutItem({ ...place("n"), w: 13 }), "layout[0].w", "at most 12"],
  ["layout h is at least 1", withLayoutItem({ ...place("n"), h: 0 }), "layout[0].h", "at least 1"],
  ["layout h is at most 100", withLayoutItem({ ...place("n"), h: 101 }), "layout[0].h", "at most 100"],
  ["layout minW is at most 12", withLayoutItem({ ...place("n"), minW: 13 }), "layout[0].minW", "at most 12"],
  [
    "layout minH is at least 0.5",
    withLayoutItem({ ...place("n"), minH: 0.4 }),
    "layout[0].minH",
    "at least 0.5",
  ],
  [
    "layout minH is at most 100",
    withLayoutItem({ ...place("n"), minH: 100.5 }),
    "layout[0].minH",
    "at most 100",
  ],
  ["layout maxW is at least 1", withLayoutItem({ ...place("n"), maxW: 0 }), "layout[0].maxW", "at least 1"],
  [
    "layout maxH is at most 100",
    withLayoutItem({ ...place("n"), maxH: 101 }),
    "layout[0].maxH",
    "at most 100",
  ],
  [
    "layout static is a boolean",
    withLayoutItem({ ...place("n"), static: "yes" }),
    "layout[0].static",
    "boolean",
  ],
  [
    "layout items have no other keys",
    withLayoutItem({ ...place("n"), z: 1 }),
    "layout[0].z",
    "not a known field",
  ],
  // Every chart
  ["chart type is required", doc(without(ts(), "type")), "charts[1].type", "is required"],
  ["chart type is one of the kinds", doc(chart("Gauge")), "charts[1].type", "TimeSeries"],
  ["chart id is required", doc(without(ts(), "id")), "charts[1].id", "is required"],
  ["chart id has at most 200 characters", doc({ ...ts(), id: long(201) }), "charts[1].id", "at most 200"],
  ["chart name has at least 1 character", doc(ts({ name: "" })), "charts[1].name", "empty"],
  ["chart name has at most 500 characters", doc(ts({ name: long(501) })), "charts[1].name", "at most 500"],
  ["a chart has no other keys", doc(ts({ color: "red" })), "charts[1].color", "not a known field"],
  // Queries (TimeSeries, Heatmap, LogStream, Pie, Scatter, Table, TopK, Statistic)
  ...["TimeSeries", "Heatmap", "LogStream", "Pie", "Scatter", "Table", "TopK", "Statistic"].map(
    (type): [string, Props, string, string] => [
      `${type} query is required`,
      doc(chart(type)),
      "charts[1].query",
      "is required",
    ],
  ),
  ["a query has apl or mpl", doc(ts({ query: {} })), "charts[1].query", "apl or an mpl"],
  [
    "a query has not both apl and mpl",
    doc(ts({ query: { apl: "x", mpl: "y" } })),
    "charts[1].query",
    "not both",
  ],
  ["apl has at least 1 character", doc(chart("Pie", { query: { apl: "" } })), "charts[1].query.apl", "empty"],
  [
    "apl has at most 500000 characters",
    doc(chart("Table", { query: { apl: long(500_001) } })),
    "charts[1].query.apl",
    "at most 500000",
  ],
  [
    "mpl has at most 500000 characters",
    doc(chart("TopK", { query: { mpl: long(500_001) } })),
    "charts[1].query.mpl",
    "at most 500000",
  ],
  [
    "a simple query has no queryOptions",
    doc(chart("Pie", { query: { ...q, queryOptions: {} } })),
    "charts[1].query.queryOptions",
    "not a known field",
  ],
  // TimeSeries and Heatmap query options
  [
    "TimeSeries displayNull is auto, null, span, zero or empty",
    doc(ts({ query: { ...q, queryOptions: { displayNull: "gap" } } })),
    "charts[1].query.queryOptions.displayNull",
    "auto",
  ],
  [
    'TimeSeries overlayCharts is "true", "false" or empty',
    doc(ts({ query: { ...q, queryOptions: { overlayCharts: true } } })),
    "charts[1].query.queryOptions.overlayCharts",
    '"true"',
  ],
  [
    "TimeSeries shownColumns has at most 10000 characters",
    doc(ts({ query: { ...q, queryOptions: { shownColumns: long(10_001) } } })),
    "charts[1].query.queryOptions.shownColumns",
    "at most 10000",
  ],
  [
    "TimeSeries timeSeriesVariant is area, bars, line, lines or empty",
    doc(ts({ query: { ...q, queryOptions: { timeSeriesVariant: "pie" } } })),
    "charts[1].query.queryOptions.timeSeriesVariant",
    "area",
  ],
  [
    "TimeSeries timeSeriesView is charts, resultsTable, both or empty",
    doc(ts({ query: { ...q, queryOptions: { timeSeriesView: "table" } } })),
    "charts[1].query.queryOptions.timeSeriesView",
    "resultsTable",
  ],
  [
    "TimeSeries query options have no other keys",
    doc(ts({ query: { ...q, queryOptions: { stacked: true } } })),
    "charts[1].query.queryOptions.stacked",
    "not a known field",
  ],
  [
    "Heatmap options have only timeSeriesView",
    doc(chart("Heatmap", { query: { ...q, queryOptions: { displayNull: "auto" } } })),
    "charts[1].query.queryOptions.displayNull",
    "not a known field",
  ],
  [
    "Heatmap timeSeriesView is charts, resultsTable, both or empty",
    doc(chart("Heatmap", { query: { ...q, queryOptions: { timeSeriesView: "x" } } })),
    "charts[1].query.queryOptions.timeSeriesView",
    "charts",
  ],
  // LogStream and Table settings
  [
    "tableSettings columns has at most 500 items",
    doc(chart("Table", { query: q, tableSettings: { columns: Array.from({ length: 501 }, () => "c") } })),
    "charts[1].tableSettings.columns",
    "at most 500",
  ],
  [
    "a column width is above 0",
    doc(chart("LogStream", { query: q, tableSettings: { columns: [{ name: "c", width: 0 }] } })),
    "charts[1].tableSettings.columns[0].width",
    "at least 1",
  ],
  [
    "tableSettings fontSize is <n>px",
    doc(chart("LogStream", { query: q, tableSettings: { settings: { fontSize: "12pt" } } })),
    "charts[1].tableSettings.settings.fontSize",
    "px",
  ],
  [
    "tableSettings settings are booleans",
    doc(chart("Table", { query: q, tableSettings: { settings: { wrapLines: "yes" } } })),
    "charts[1].tableSettings.settings.wrapLines",
    "boolean",
  ],
  [
    "Pie has no tableSettings",
    doc(chart("Pie", { query: q, tableSettings: {} })),
    "charts[1].tableSettings",
    "not a known field",
  ],
  // Statistic
  [
    "Statistic colorScheme is one of the ten",
    doc(stat({ colorScheme: "Black" })),
    "charts[1].colorScheme",
    "Blue",
  ],
  [
    "Statistic customUnits has at most 200 characters",
    doc(stat({ customUnits: long(201) })),
    "charts[1].customUnits",
    "at most 200",
  ],
  [
    "Statistic showChart is a boolean or a string",
    doc(stat({ showChart: 1 })),
    "charts[1].showChart",
    "boolean or a string",
  ],
  ["Statistic hideValue is a boolean", doc(stat({ hideValue: "no" })), "charts[1].hideValue", "boolean"],
  [
    "Statistic chartHeight is a string of at most 100 characters or a number",
    doc(stat({ chartHeight: long(101) })),
    "charts[1].chartHeight",
    "100",
  ],
  [
    "Statistic errorThreshold is one of the comparisons",
    doc(stat({ errorThreshold: "Equal" })),
    "charts[1].errorThreshold",
    "AboveOrBelow",
  ],
  [
    "Statistic warningThreshold is one of the comparisons",
    doc(stat({ warningThreshold: "Over" })),
    "charts[1].warningThreshold",
    "Above",
  ],
  [
    "Statistic errorThresholdValue has at most 100 characters",
    doc(stat({ errorThresholdValue: long(101) })),
    "charts[1].errorThresholdValue",
    "at most 100",
  ],
  [
    "Statistic warningThresholdValue has at most 100 characters",
    doc(stat({ warningThresholdValue: long(101) })),
    "charts[1].warningThresholdValue",
    "at most 100",
  ],
  ["Statistic invertTheme is a boolean", doc(stat({ invertTheme: 1 })), "charts[1].invertTheme", "boolean"],
  [
    "Statistic background is a CSS color of at most 200 characters",
    doc(stat({ background: long(201) })),
    "charts[1].background",
    "at most 200",
  ],
  [
    "Statistic okColorProps have only the four colors",
    doc(stat({ okColorProps: { border: "red" } })),
    "charts[1].okColorProps.border",
    "not a known field",
  ],
  [
    "Statistic errorColorProps colors have at most 200 characters",
    doc(stat({ errorColorProps: { textColor: long(201) } })),
    "charts[1].errorColorProps.textColor",
    "at most 200",
  ],
  // Note
  ["Note text is required", doc(chart("Note")), "charts[1].text", "is required"],
  ["Note text has at least 1 character", doc(chart("Note", { text: "" })), "charts[1].text", "empty"],
  [
    "Note text has at most 100000 characters",
    doc(chart("Note", { text: long(100_001) })),
    "charts[1].text",
    "at most 100000",
  ],
  [
    "Note variant is default",
    doc(chart("Note", { text: "x", variant: "warning" })),
    "charts[1].variant",
    "default",
  ],
  ["Note has no name", doc(chart("Note", { text: "x", name: "n" })), "charts[1].name", "not a known field"],
  // MonitorList
  [
    "MonitorList selectedMonitors is required",
    doc(without(monitorList(), "selectedMonitors")),
    "charts[1].selectedMonitors",
    "is required",
  ],
  [
    "MonitorList selectedMonitors has at least 1 item",
    doc(monitorList({ selectedMonitors: [] })),
    "charts[1].selectedMonitors",
    "at least 1",
  ],
  [
    "MonitorList selectedMonitors has at most 200 items",
    doc(monitorList({ selectedMonitors: Array.from({ length: 201 }, (_, k) => `m${k}`) })),
    "charts[1].selectedMonitors",
    "at most 200",
  ],
  [
    "MonitorList monitor ids are not empty",
    doc(monitorList({ selectedMonitors: [""] })),
    "charts[1].selectedMonitors[0]",
    "empty",
  ],
  [
    "MonitorList monitor ids have at most 200 characters",
    doc(monitorList({ selectedMonitors: [long(201)] })),
    "charts[1].selectedMonitors[0]",
    "at most 200",
  ],
  [
    "MonitorList columns is required",
    doc(without(monitorList(), "columns")),
    "charts[1].columns",
    "is required",
  ],
  [
    "MonitorList columns needs all five",
    doc(monitorList({ columns: without(columns, "notifiers") })),
    "charts[1].columns.notifiers",
    "is required",
  ],
  [
    "MonitorList columns are booleans",
    doc(monitorList({ columns: { ...columns, status: "on" } })),
    "charts[1].columns.status",
    "boolean",
  ],
  [
    "MonitorList columns have no other keys",
    doc(monitorList({ columns: { ...columns, owner: true } })),
    "charts[1].columns.owner",
    "not a known field",
  ],
  // SmartFilter
  ["SmartFilter filters is required", doc(chart("SmartFilter")), "charts[1].filters", "is required"],
  ["SmartFilter filters has at least 1 item", doc(smart([])), "charts[1].filters", "at least 1"],
  [
    "SmartFilter filters has at most 50 items",
    doc(smart(Array.from({ length: 51 }, () => search))),
    "charts[1].filters",
    "at most 50",
  ],
  [
    "SmartFilter filter type is search or select",
    doc(smart([{ ...search, type: "range" }])),
    "charts[1].filters[0].type",
    '"search" or "select"',
  ],
  [
    "SmartFilter select filter's selectType is list or query",
    doc(smart([{ ...search, type: "select", selectType: "free" }])),
    "charts[1].filters[0].selectType",
    '"list" or "query"',
  ],
  [
    "SmartFilter filter id has at most 200 characters",
    doc(smart([{ ...search, id: long(201) }])),
    "charts[1].filters[0].id",
    "at most 200",
  ],
  [
    "SmartFilter filter name is required (OpenAPI SmartFilterSearch; the live service refuses a search filter without one, axiomhq/axiom-go commit c0cd523 axiom/dashboards_integration_test.go)",
    doc(smart([without(search, "name")])),
    "charts[1].filters[0].name",
    "is required",
  ],
  [
    "SmartFilter filter name has at most 200 characters",
    doc(smart([{ ...search, name: long(201) }])),
    "charts[1].filters[0].name",
    "at most 200",
  ],
  [
    "SmartFilter active is a boolean",
    doc(smart([{ ...search, active: "yes" }])),
    "charts[1].filters[0].active",
    "boolean",
  ],
  [
    "SmartFilter select options have at most 200 items",
    doc(
      smart([
        {
          type: "select",
          selectType: "list",
          id: "s",
          name: "S",
          options: Array.from({ length: 201 }, () => ({ key: "k", value: "v" })),
        },
      ]),
    ),
    "charts[1].filters[0].options",
    "allowed shapes",
  ],
  [
    "SmartFilter select query filter's query has apl or mpl",
    doc(smart([{ type: "select", selectType: "query", id: "s", name: "S", query: {} }])),
    "charts[1].filters[0].query",
    "apl or an mpl",
  ],
  [
    "SmartFilter logo has at most 2000 characters",
    doc(smart([search], { logo: long(2001) })),
    "charts[1].logo",
    "at most 2000",
  ],
  [
    "SmartFilter logoDark has at most 2000 characters",
    doc(smart([search], { logoDark: long(2001) })),
    "charts[1].logoDark",
    "at most 2000",
  ],
  // Spacer, and the kinds beyond the document
  [
    "Spacer has only id, type and name",
    doc(chart("Spacer", { query: q })),
    "charts[1].query",
    "not a known field",
  ],
  [
    "Placeholder has only id and type",
    doc(chart("Placeholder", { name: "p" })),
    "charts[1].name",
    "not a known field",
  ],
  [
    "SectionHeader datasetId has at most 200 characters",
    doc(chart("SectionHeader", { datasetId: long(201) })),
    "charts[1].datasetId",
    "at most 200",
  ],
  // Cross-references and mutual exclusions
  [
    "each layout item's i names a chart",
    { ...doc(), layout: [place("n"), place("ghost", 1)] },
    "layout[1].i",
    'no chart has id "ghost"',
  ],
  [
    "each chart has a place in the layout",
    { ...doc(ts()), layout: [place("n")] },
    "charts[1].id",
    'no layout item has i "c"',
  ],
  [
    "chart ids are unique",
    { ...doc(), charts: [note, note], layout: [place("n")] },
    "charts[1].id",
    "duplicates charts[0].id",
  ],
  [
    "a chart has one place",
    { ...doc(), layout: [place("n"), place("n", 1)] },
    "layout[1].i",
    "duplicates layout[0].i",
  ],
  [
    "against and againstTimestamp are not both set",
    doc(undefined, { against: "-1d", againstTimestamp: "now-1d" }),
    "againstTimestamp",
    "together with against",
  ],
];

describe("check enforces every rule of the dashboard document, each reported on its path", () => {
  it.each(rows)("%s", async (_rule, dashboard, property, words) => {
    const { failures } = await check({ dashboard });
    const match = failures!.find((f) => f.property === `dashboard.${property}`);
    expect({ failures, match: match !== undefined }).toMatchObject({ match: true });
    expect(match!.reason).toContain(words);
  });

  it.each([
    ["uid matches ^[A-Za-z0-9_-]{1,128}$", { uid: "has space" }, "uid"],
    ["uid has at most 128 characters", { uid: long(129) }, "uid"],
    ["overwrite is a boolean", { overwrite: "yes" }, "overwrite"],
    ["message is a string", { message: 1 }, "message"],
    ["dashboard is required", { dashboard: undefined }, "dashboard"],
    ["an unknown input is refused", { folder: "x" }, "folder"],
  ])("the resource's own inputs: %s", async (_rule, patch, property) => {
    const { failures } = await check({ dashboard: doc(), ...patch });
    expect(failures!.map((f) => f.property)).toContain(property);
  });

  it("reports the brief's example exactly: a width of 13 at layout[2]", async () => {
    const charts = ["a", "b", "c"].map((id) => ({ id, type: "Note", text: id }));
    const layout = charts.map((c, k) => ({ ...place(c.id, k), w: k === 2 ? 13 : 4 }));
    const { failures } = await check({ dashboard: doc(undefined, { charts, layout }) });
    expect(failures).toEqual([{ property: "dashboard.layout[2].w", reason: "must be at most 12" }]);
  });
});

/** [what, document] — each passes: the limits are inclusive, and every kind's valid shape is accepted. */
const valid: [string, Props][] = [
  ["the minimal document", doc()],
  ["name of 100 characters", doc(undefined, { name: long(100) })],
  ["refreshTime 15", doc(undefined, { refreshTime: 15 })],
  ["refreshTime 300", doc(undefined, { refreshTime: 300 })],
  ["timeWindowStart in seconds, minutes, days, weeks", doc(undefined, { timeWindowStart: "qr-now-30s" })],
  [
    "an absolute window in epoch ms",
    doc(undefined, { timeWindowStart: "1704067200000", timeWindowEnd: "1704153600000" }),
  ],
  ["owner X-AXIOM-EVERYONE", doc(undefined, { owner: "X-AXIOM-EVERYONE" })],
  ["against -90d and an empty againstTimestamp", doc(undefined, { against: "-90d", againstTimestamp: "" })],
  ["againstTimestamp ISO 8601", doc(undefined, { againstTimestamp: "2024-01-02T00:00:00.000Z" })],
  [
    "layout at the bounds",
    {
      ...doc(),
      layout: [
        { i: "n", x: 11, y: null, w: 12, h: 100, minW: 1, minH: 0.5, maxW: 12, maxH: 100, static: true },
      ],
    },
  ],
  ["an empty dashboard", doc(undefined, { charts: [], layout: [] })],
  [
    "TimeSeries with mpl and every option",
    doc(
      ts({
        query: {
          mpl: "m",
          queryOptions: {
            displayNull: "zero",
            overlayCharts: "true",
            shownColumns: "a",
            timeSeriesVariant: "bars",
            timeSeriesView: "charts|resultsTable",
          },
        },
      }),
    ),
  ],
  ["Heatmap", doc(chart("Heatmap", { name: "h", query: { ...q, queryOptions: { timeSeriesView: "" } } }))],
  [
    "LogStream with settings",
    doc(
      chart("LogStream", {
        query: q,
        tableSettings: {
          columns: ["_time", { name: "msg", width: 300 }],
          settings: { fontSize: "12px", wrapLines: true },
        },
      }),
    ),
  ],
  [
    "Pie, Scatter, TopK",
    {
      ...doc(),
      charts: [
        note,
        chart("Pie", { query: q }),
        { ...chart("Scatter", { query: q }), id: "s" },
        { ...chart("TopK", { query: q }), id: "t" },
      ],
      layout: [place("n"), place("c", 1), place("s", 2), place("t", 3)],
    },
  ],
  ["Table", doc(chart("Table", { query: q, tableSettings: {} }))],
  [
    "Statistic with every field",
    doc(
      stat({
        colorScheme: "Teal",
        customUnits: "ms",
        showChart: "true",
        hideValue: false,
        chartHeight: 40,
        errorThreshold: "Above",
        errorThresholdValue: "9",
        warningThreshold: "AboveOrEqual",
        warningThresholdValue: "5",
        invertTheme: true,
        background: "#fff",
        textColor: "#000",
        labelColor: "red",
        chartFillColor: "blue",
        okColorProps: { background: "green" },
        warningColorProps: {},
        errorColorProps: { textColor: "white" },
      }),
    ),
  ],
  [
    "Note with its variant, 100000 characters",
    doc(chart("Note", { text: long(100_000), variant: "default" })),
  ],
  ["MonitorList", doc(monitorList({ name: "Monitors" }))],
  [
    "SmartFilter with search, list and query filters",
    doc(
      smart(
        [
          search,
          {
            type: "select",
            selectType: "list",
            id: "l",
            name: "L",
            options: [{ key: "All", value: "", unset: true }],
          },
          { type: "select", selectType: "query", id: "q", name: "Q", options: null, query: { apl: "x" } },
          { type: "select", selectType: "list", id: "e", name: "E", options: "" },
        ],
        { logo: "https://x.test/l.png" },
      ),
    ),
  ],
  ["Spacer", doc(chart("Spacer", { name: "gap" }))],
];

describe("what the document allows passes", () => {
  it.each(valid)("%s", async (_what, dashboard) => {
    expect((await check({ dashboard })).failures).toEqual([]);
  });
});

describe("values not known at preview are not judged", () => {
  it("an unknown monitor id, apl or chart id fails nothing", async () => {
    const dashboard = doc(undefined, {
      charts: [
        { id: UNKNOWN, type: "MonitorList", selectedMonitors: [UNKNOWN], columns },
        ts({ query: { apl: UNKNOWN } }),
      ],
      layout: [place("m"), place("c", 1)],
    });
    expect((await check({ dashboard })).failures).toEqual([]);
  });

  it("a whole unknown layout fails nothing", async () => {
    expect((await check({ dashboard: { ...doc(ts()), layout: UNKNOWN } })).failures).toEqual([]);
  });
});

describe("a dashboard exported from the UI passes the same checks", () => {
  it("as it is, server-managed keys, extra kinds and all", async () => {
    expect((await check({ dashboard: EXPORTED })).failures).toEqual([]);
  });

  it("and a mistake in it is still reported on its path", async () => {
    const layout = (EXPORTED.layout as Props[]).map((l, k) => (k === 2 ? { ...l, w: 13 } : l));
    const { failures } = await check({ dashboard: { ...EXPORTED, layout } });
    expect(failures).toEqual([{ property: "dashboard.layout[2].w", reason: "must be at most 12" }]);
  });
});

describe("the emulator enforces the same rules (422 naming the path)", () => {
  const em = useEmulator();
  it.each(rows)("%s", async (_rule, dashboard, property) => {
    const res = await api(em.current, "POST", "/v2/dashboards", { dashboard });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "invalid_dashboard" });
    expect(res.body.message).toContain(`dashboard.${property}`);
  });

  it("takes the exported document", async () => {
    const res = await api(em.current, "POST", "/v2/dashboards", { dashboard: EXPORTED });
    expect(res.status).toBe(201);
    // The service's keys inside the document are its own: the sent `id`, `version` and `uid` are not kept.
    expect(res.body.dashboard.dashboard).not.toHaveProperty("version");
    expect(res.body.dashboard.dashboard.uid).toBe(res.body.dashboard.uid);
    expect(res.body.dashboard.uid).not.toBe("server-generated");
  });
});
