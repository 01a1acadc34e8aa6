/**
 * The custom webhook's body: the notifier's Go text/template rendered over the documented variables
 * (axiomhq/docs `content/docs/(documentation)/monitor-data/custom-webhook-notifier.mdx`), and the plain webhook's
 * body, which is that page's default template rendered the same way.
 */
import type { AlertEvent } from "./types";
import { GoNil, GoStruct, GoTime, fromJson, type GoValue } from "../../../provider/go-template/go-fmt";
import { TemplateError, type RenderLimits } from "../../../provider/go-template/go-template";
import { WEBHOOK_FUNCS, parseWebhookTemplate } from "../../../provider/go-template/webhook";

/** The default template, as the custom webhook page gives it. */
export const DEFAULT_WEBHOOK_TEMPLATE = `{
  "action": "{{.Action}}",
  "event": {
    "monitorID": "{{.MonitorID}}",
    "body": "{{.Body}}",
    "description": "{{.Description}}",
    "queryEndTime": "{{.QueryEndTime}}",
    "queryStartTime": "{{.QueryStartTime}}",
    "timestamp": "{{.Timestamp}}",
    "title": "{{.Title}}",
    "value": {{.Value}},
    "matchedEvent": {{jsonObject .MatchedEvent}},
    "groupKeys": {{jsonArray .GroupKeys}},
    "groupValues": {{jsonArray .GroupValues}}
  }
}`;

/**
 * The template's data. Types as the service's Go program would hold them (inferred from the sample): strings,
 * `Value` a float64, the three times `time.Time` in UTC (printed by `Time.String()`; the sample's `timestamp` has
 * whole seconds while the query times carry nanoseconds, so `.Timestamp` is the event time truncated to the
 * second), `MatchedEvent` a `map[string]interface {}`, the group keys and values `[]string`, nil when absent.
 */
export function templateData(event: AlertEvent): GoStruct {
  const matched =
    event.matchedEvent === null ? new GoNil("map", "map[string]interface {}") : fromJson(event.matchedEvent);
  const strings = (xs: string[] | null): GoValue => (xs === null ? new GoNil("slice", "[]string") : [...xs]);
  return new GoStruct(
    "notify.WebhookData",
    new Map<string, GoValue>([
      ["Action", event.action],
      ["MonitorID", event.monitor.id],
      ["Title", event.monitor.name],
      ["Description", event.monitor.description ?? ""],
      ["Body", event.body],
      ["Value", event.value ?? 0],
      ["QueryStartTime", new GoTime(event.queryStartTime)],
      ["QueryEndTime", new GoTime(event.queryEndTime)],
      [
        "Timestamp",
        new GoTime(event.time - (((event.time % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n)),
      ],
      ["MatchedEvent", matched],
      ["GroupKeys", strings(event.groupKeys)],
      ["GroupValues", strings(event.groupValues)],
    ]),
  );
}

/** Renders `source` over the event: the body as the service would send it, or a {@link TemplateError} (one past
 * the emulator's bounds names the bound; tests may pass `limits` of their own, a clock for instance). */
export function renderWebhookBody(source: string, event: AlertEvent, limits?: Partial<RenderLimits>): string {
  return parseWebhookTemplate(source).execute(templateData(event), WEBHOOK_FUNCS, limits);
}

export { TemplateError, parseWebhookTemplate };
