/**
 * A monitor as runs read it: the provider's typed `Monitor` (provider/schemas/monitor.ts), parsed once from what
 * the emulator stored (or what a backtest read from a stack or a test file), with the service's defaults filled
 * in, so nothing downstream reads a field of a `Record<string, unknown>` and guesses its type.
 */
import { MONITOR_DEFAULTS, MonitorSchema, type Monitor } from "../../provider/schemas/monitor";

/** The fields every run reads, each present (the service's default when the monitor left it out). */
type Filled =
  | "name"
  | "aplQuery"
  | "type"
  | "alertOnNoData"
  | "columnName"
  | "compareDays"
  | "description"
  | "disabled"
  | "disabledUntil"
  | "intervalMinutes"
  | "notifierIds"
  | "notifyByGroup"
  | "notifyEveryRun"
  | "rangeMinutes"
  | "secondDelay"
  | "skipResolved"
  | "tolerance"
  | "triggerAfterNPositiveResults"
  | "triggerFromNRuns";

/** A monitor ready to run: `operator` and `threshold` stay optional (a match monitor has neither). */
export type RunnableMonitor = Required<Pick<Monitor, "id" | Filled>> &
  Pick<Monitor, "operator" | "threshold">;

type NumberField =
  | "compareDays"
  | "intervalMinutes"
  | "rangeMinutes"
  | "secondDelay"
  | "tolerance"
  | "triggerAfterNPositiveResults"
  | "triggerFromNRuns";
type BooleanField = "alertOnNoData" | "disabled" | "notifyByGroup" | "notifyEveryRun" | "skipResolved";

/**
 * Parses a monitor once. The service's shape schema keeps a field of an unexpected type as sent (it reads what
 * a server answers), so each field a run reads is checked here too and falls back to the service's default.
 */
export function parseMonitor(stored: Record<string, unknown>): RunnableMonitor {
  const m = MonitorSchema.parse({ id: "", ...stored }) as Monitor;
  const d = MONITOR_DEFAULTS;
  const number = (key: NumberField): number => {
    const v = m[key];
    return typeof v === "number" && Number.isFinite(v) ? v : (d[key] as number);
  };
  const bool = (key: BooleanField): boolean => {
    const v = m[key];
    return typeof v === "boolean" ? v : (d[key] as boolean);
  };
  const text = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);
  return {
    id: text(m.id),
    name: text(m.name),
    aplQuery: text(m.aplQuery),
    type: text(m.type),
    description: text(m.description),
    columnName: text(m.columnName),
    disabledUntil: typeof m.disabledUntil === "string" && m.disabledUntil !== "" ? m.disabledUntil : null,
    notifierIds: Array.isArray(m.notifierIds) ? m.notifierIds.map(String) : [],
    ...(typeof m.operator === "string" ? { operator: m.operator } : {}),
    ...(typeof m.threshold === "number" && Number.isFinite(m.threshold) ? { threshold: m.threshold } : {}),
    compareDays: number("compareDays"),
    intervalMinutes: number("intervalMinutes"),
    rangeMinutes: number("rangeMinutes"),
    secondDelay: number("secondDelay"),
    tolerance: number("tolerance"),
    triggerAfterNPositiveResults: number("triggerAfterNPositiveResults"),
    triggerFromNRuns: number("triggerFromNRuns"),
    alertOnNoData: bool("alertOnNoData"),
    disabled: bool("disabled"),
    notifyByGroup: bool("notifyByGroup"),
    notifyEveryRun: bool("notifyEveryRun"),
    skipResolved: bool("skipResolved"),
  };
}
