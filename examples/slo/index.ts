/**
 * Service-level objectives as code, on a service that has no SLO object: each `Slo` makes the SRE workbook's
 * multiwindow, multi-burn-rate Threshold monitors (page at 14.4 over 1 h / 5 min and at 6 over 6 h / 30 min,
 * ticket at 1 over 3 days / 6 h, for a 30-day window), wires them to the page and ticket notifiers, and draws an
 * error-budget dashboard. docs/slo.md has the arithmetic.
 */
import * as pulumi from "@pulumi/pulumi";
import * as obs from "pulumi-observability";

const config = new pulumi.Config();
/** The objective of the availability SLO, in percent. */
const availabilityObjective = config.getNumber("availabilityObjective") ?? 99.9;

const requests = new obs.Dataset("checkout-requests", {
  name: "checkout-requests",
  description: "One event per request to the checkout API: status, route, duration_ms.",
  forceDestroy: config.getBoolean("datasetsForceDestroy") ?? false,
});

const pager = new obs.Notifier("checkout-pager", {
  name: "Checkout on-call (page)",
  properties: { slack: { slackUrl: config.requireSecret("slackWebhookUrl") } },
});
const tickets = new obs.Notifier("checkout-tickets", {
  name: "Checkout team (ticket)",
  properties: { email: { emails: [config.get("ticketEmail") ?? "checkout-team@example.com"] } },
});

/** 99.9% of requests answer without a server error, over a rolling 30 days. */
const availability = new obs.Slo(
  "checkout-availability",
  {
    displayName: "Checkout availability",
    dataset: "checkout-requests",
    events: { bad: "status >= 500" },
    objective: availabilityObjective,
    pageNotifierIds: [pager.id],
    ticketNotifierIds: [tickets.id],
  },
  { dependsOn: [requests] },
);

/** 99% of requests answer within 300 ms, per route, over a rolling 28 days; only a page, no ticket. */
const latency = new obs.Slo(
  "checkout-latency",
  {
    displayName: "Checkout latency",
    dataset: "checkout-requests",
    latency: { field: "duration_ms", thresholdMs: 300 },
    objective: 99,
    windowDays: 28,
    groupBy: ["route"],
    pageNotifierIds: [pager.id],
    alertWindows: { ticket: { enabled: false } },
  },
  { dependsOn: [requests] },
);

/** Each SLO's burn-rate monitors, by window pair, and its dashboard. */
export const availabilityMonitorIds = availability.monitorIds;
export const availabilityDashboardId = availability.dashboardId;
export const latencyMonitorIds = latency.monitorIds;
/** The burn rates each pair pages or tickets at. */
export const burnRates = { availability: availability.burnRates, latency: latency.burnRates };
export const notifierIds = { pager: pager.id, tickets: tickets.id };
