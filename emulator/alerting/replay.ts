/**
 * Runs one monitor over a past period without a clock: each run time of its grid in `(fromMs, toMs]`, its
 * queries answered by `query`, judged by ./judge.ts from the state the run before left. The emulator's scheduler
 * makes the same runs one timer at a time; a backtest makes them here, over events fetched from the service or
 * over the service's own finer bins, and sends nothing.
 */
import { copyAlerts, readAlerts, type MonitorAlerts } from "./alert-state";
import {
  disabledAt,
  judge,
  NONE,
  runQueries,
  runTimes,
  type Judged,
  type QueryOutcome,
  type QueryWindow,
} from "./judge";
import type { RunnableMonitor } from "./monitor";
import type { MonitorRunState, RunValue } from "./types";

/** One run made by {@link replay}. */
export interface ReplayedRun {
  runMs: number;
  /** What the judge decided, without the alert state it left (the next run's input) or its history entries (the
   * emulator's store keeps those, and a replay stores nothing): a month of runs would otherwise hold a month of
   * each. */
  judged: Omit<Judged, "alerts" | "history">;
}

/**
 * What a quiet run judged (no transition, notification, failure or suppressed match), shared by every quiet run of
 * the same state and the same shared values list: most runs of a month are quiet and repeat a value their group
 * had, and each kept its own record of it. Only a frozen values list (judge.ts `valueList`, a list that runs share)
 * keys them, and they are frozen too. By state in a plain object: a quiet run is "ok" or "open", and a Map for each
 * of a month of lists cost more than the records it saved.
 */
const quietRuns = new WeakMap<readonly RunValue[], Partial<Record<MonitorRunState, ReplayedRun["judged"]>>>();

function quietJudged(state: MonitorRunState, values: RunValue[]): ReplayedRun["judged"] {
  let byState = quietRuns.get(values);
  if (byState === undefined) quietRuns.set(values, (byState = {}));
  return (byState[state] ??= Object.freeze({ state, values, transitions: NONE, events: NONE }));
}

/** What a run keeps of its judgement: a quiet run's shared record, else its own, its empty lists shared. */
function recordOf(j: Judged): ReplayedRun["judged"] {
  const quiet =
    j.transitions.length === 0 &&
    j.events.length === 0 &&
    j.suppressed === undefined &&
    j.error === undefined &&
    Object.isFrozen(j.values);
  if (quiet) return quietJudged(j.state, j.values);
  const judged: ReplayedRun["judged"] = {
    state: j.state,
    values: j.values,
    transitions: j.transitions.length === 0 ? NONE : j.transitions,
    events: j.events.length === 0 ? NONE : j.events,
  };
  if (j.suppressed !== undefined) judged.suppressed = j.suppressed;
  if (j.error !== undefined) judged.error = j.error;
  return judged;
}

/** Answers one query of a run: at once, or later (a query sent somewhere). */
export type WindowQuery = (window: QueryWindow) => QueryOutcome | Promise<QueryOutcome>;

/**
 * Every run of `monitor` in `(fromMs, toMs]`, in time order, starting from `prior` (no alert open by default).
 * A disabled run is skipped, as the scheduler skips it. `onRun` sees each run as it is made (a progress bar).
 */
export async function replay(
  monitor: RunnableMonitor,
  fromMs: number,
  toMs: number,
  query: WindowQuery,
  options: { prior?: MonitorAlerts; onRun?: (run: ReplayedRun, done: number, total: number) => void } = {},
): Promise<{ runs: ReplayedRun[]; alerts: MonitorAlerts }> {
  // The caller's state is copied once; each run's is handed over to the next judgement (judge's `handedOver`).
  let alerts = options.prior !== undefined ? copyAlerts(options.prior) : readAlerts(undefined);
  const times = runTimes(monitor, fromMs, toMs);
  // Sized once, cut to the runs made (a disabled one is skipped).
  const runs = new Array<ReplayedRun>(times.length);
  let made = 0;
  for (let i = 0; i < times.length; i++) {
    const runMs = times[i];
    if (disabledAt(monitor, runMs)) continue;
    const windows = runQueries(monitor, runMs);
    const outcomes = new Array<QueryOutcome>(windows.length);
    for (let k = 0; k < windows.length; k++) {
      const answer = query(windows[k]);
      // Answered at once (a backtest's rebuilt window): no turn of the event loop for each of a month of runs.
      const outcome = answer instanceof Promise ? await answer : answer;
      outcomes[k] = outcome;
      // A failed query fails the run: the baselines after it are not asked for.
      if (!outcome.ok) {
        outcomes.length = k + 1;
        break;
      }
    }
    const j = judge(monitor, outcomes, alerts, runMs, true);
    alerts = j.alerts;
    const run = { runMs, judged: recordOf(j) };
    runs[made++] = run;
    options.onRun?.(run, i + 1, times.length);
  }
  runs.length = made;
  return { runs, alerts };
}
