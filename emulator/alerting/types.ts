/** What the monitor scheduler reports of each run, and the clock handle `startEmulator` answers. */
import type { Notifications } from "./notify";

/** One value a run computed: a group's (empty for an ungrouped result) value, or null when it had none. */
export interface RunValue {
  /** The group's values by column (the non-time `by` columns); `{}` without groups. */
  group: Record<string, unknown>;
  /** The value compared (a threshold's any-crossing value, an anomaly's observed value); null for no data. */
  value: number | null;
}

/** One alert event a run decided (each goes to every notifier of the monitor). */
export interface RunAlert {
  action: "Open" | "Closed";
  /** The group's values with `notifyByGroup`, else null. */
  groupValues: string[] | null;
  value: number | null;
  /** The notification's human line (the docs' `Body`). */
  body: string;
  /** The alert it is of: its stable id (emulator/alerting/judge.ts), as the outbox row's `alertId` and the
   * history's `checkId` carry it. */
  alertId?: string;
}

/**
 * What a run did to one alert: opened it or closed it, as judged (emulator/alerting/judge.ts). A close that
 * notifies nothing (`skipResolved`) is here too, so an alert's open period is exact from these alone.
 */
export interface RunTransition {
  /** The alert's stable id: its open and its close share it (the history's `checkId`, the outbox's `alertId`). */
  alertId: string;
  action: "open" | "close";
  /** The group's values with `notifyByGroup`, else null. */
  groupValues: string[] | null;
  value: number | null;
  /** Whether it notified (a close with `skipResolved` does not). */
  notifies: boolean;
}

/**
 * What a run found: an alert open (or kept open), one closed, nothing to report, or a query that failed; or a run
 * skipped, not made, because the monitor's previous run was still under way when it fell due.
 */
export type MonitorRunState = "open" | "closed" | "ok" | "error" | "skipped";

/** One run of one monitor. */
export interface MonitorRun {
  monitorId: string;
  monitorName: string;
  /** When it ran (RFC 3339, the clock's time). */
  time: string;
  /** The queried window, `[windowStart, windowEnd)` (RFC 3339). */
  windowStart: string;
  windowEnd: string;
  /**
   * `open` when an alert is open after this run (newly or still), `closed` when this run closed one, `ok` when
   * none is open, `error` when the query failed (see `error`; alert state is left as it was), `skipped` when the
   * run was not made (see `reason`; its window is not read, and alert state is left as it was).
   */
  state: MonitorRunState;
  values: RunValue[];
  /** Why the query failed (the engine's message, naming the budget a query went past), when `state` is `error`. */
  error?: string;
  /** Why the run was skipped, when `state` is `skipped`: the run still under way, and when it was due. */
  reason?: string;
  /**
   * On the real clock: when the run started (RFC 3339, to the millisecond), at or after `time` by however late it
   * started. Absent on a manual clock, where a run starts at its `time` by construction.
   */
  startedAt?: string;
  /** Alert events this run sent (each to every notifier of the monitor): `alerts.length`. */
  notifications: number;
  /** The alert events themselves, in the order sent. */
  alerts: RunAlert[];
  /** The alerts this run opened or closed, in the order judged (none for a failed or skipped run). */
  transitions: RunTransition[];
  /** A match monitor's matching events not notified because of its limits (10 a minute, 500 a day). */
  suppressed?: number;
}

/** The clock as a `startEmulator` handle shows it. */
export interface EmulatorClockHandle {
  /** `"real"` or `"manual"`. */
  readonly kind: "real" | "manual";
  /** The clock's now. */
  now(): Date;
  /**
   * Manual clock only: moves time forward by `spec` (ms, or text such as `90m`, `1h30m`), making every monitor
   * run that falls due, in time order; resolves with those runs.
   */
  advance(spec: string | number): Promise<MonitorRun[]>;
  /** Manual clock only: as {@link advance}, to an absolute time (RFC 3339 or a Date). */
  to(time: string | Date): Promise<MonitorRun[]>;
}

/**
 * What the control routes (`/_emulator/clock`, `/_emulator/notifications`) need of the emulator. Declared here,
 * beside the clock's handle, so the server's public typings (`pulumi-observability/emulator`) reach no zod schema.
 */
export interface EmulatorControl {
  clock: EmulatorClockHandle;
  /** The notifications and their outbox (`GET /_emulator/notifications`, emulator/routes/emulator-notifications.ts). */
  notifications: Notifications;
}
