/** A realistic dashboard document as the service's UI exports it, shared by the dashboard tests. */
const q = { apl: "['logs'] | summarize count()" };

/**
 * A dashboard as the UI exports it, parsed: the shape the live service stores and returns. The chart kinds and
 * `datasetId` keys are the ones axiom-go's live integration test creates and reads back
 * (axiom/dashboards_integration_test.go, TestAllChartTypes, lines 174-188: SectionHeader and Placeholder beyond
 * the document's twelve); the server-managed keys, the lower-case everyone owner, `overrides: {}` and a string
 * version inside the document are what terraform-provider-axiom's tests feed as the service's document
 * (axiom/resource_dashboard_test.go:37-147).
 */
export const EXPORTED: Record<string, unknown> = {
  id: "internal",
  uid: "server-generated",
  version: "5",
  createdAt: "2026-05-01T10:00:00Z",
  updatedAt: "2026-05-02T10:00:00Z",
  createdBy: "usr_1",
  updatedBy: "usr_1",
  name: "all chart types",
  owner: "x-axiom-everyone",
  description: "integration coverage for all chart types",
  overrides: {},
  refreshTime: 60,
  schemaVersion: 2,
  timeWindowStart: "qr-now-1h",
  timeWindowEnd: "qr-now",
  against: "",
  charts: [
    { id: "timeseries-1", datasetId: "logs", type: "TimeSeries", name: "Time Series", query: q },
    { id: "heatmap-1", datasetId: "logs", type: "Heatmap", name: "Heatmap", query: q },
    { id: "logstream-1", datasetId: "logs", type: "LogStream", name: "Log Stream", query: q },
    { id: "pie-1", datasetId: "logs", type: "Pie", name: "Pie", query: q },
    { id: "scatter-1", datasetId: "logs", type: "Scatter", name: "Scatter", query: q },
    { id: "table-1", datasetId: "logs", type: "Table", name: "Table", query: q },
    { id: "topk-1", datasetId: "logs", type: "TopK", name: "Top List", query: q },
    { id: "statistic-1", datasetId: "logs", type: "Statistic", name: "Statistic", query: q },
    { id: "sectionheader-1", datasetId: "logs", type: "SectionHeader", name: "Section Header", query: q },
    { id: "note-1", type: "Note", text: "Integration note" },
    {
      id: "monitorlist-1",
      type: "MonitorList",
      name: "Monitor List",
      selectedMonitors: ["mon_1"],
      columns: { status: true, history: false, dataset: false, type: false, notifiers: false },
    },
    {
      id: "smartfilter-1",
      type: "SmartFilter",
      name: "Filter Bar",
      filters: [{ type: "search", id: "sf-search", name: "Search" }],
    },
    { id: "spacer-1", type: "Spacer", name: "Spacer" },
    { id: "placeholder-1", type: "Placeholder" },
  ],
  layout: [
    "timeseries-1",
    "heatmap-1",
    "logstream-1",
    "pie-1",
    "scatter-1",
    "table-1",
    "topk-1",
    "statistic-1",
    "sectionheader-1",
    "note-1",
    "monitorlist-1",
    "smartfilter-1",
    "spacer-1",
    "placeholder-1",
  ].map((i, k) => ({ i, x: (k % 3) * 4, y: Math.floor(k / 3) * 4, w: 4, h: 4 })),
};
