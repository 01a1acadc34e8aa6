/**
 * Where a backtest's monitors come from: a stack's `pulumi preview --json` (`--preview FILE`, read as `test
 * alerts` reads `stack:`), or an alert-test file's `monitors:` and `notifiers:` (and its `stack:`). Each monitor is
 * parsed once into the typed monitor runs read (emulator/alerting/monitor.ts); its notifiers are named by their
 * resource names.
 */
import { readFile } from "node:fs/promises";
import { parseMonitor } from "../../emulator/alerting/monitor";
import { loadAlertTest } from "../alert-test/load";
import { buildModel, type TestModel } from "../alert-test/model";
import type { AlertTestFile } from "../alert-test/schema";
import { FileProblems, SourceDocument } from "../alert-test/source";
import { UsageError } from "../exit";
import type { BacktestMonitor } from "./run";

/** A source of monitors: a preview file or an alert-test file. */
export type MonitorSource = { preview: string } | { testFile: string };

/** The monitors of a model, typed; a monitor's id is its resource name, so its alert ids are stable across runs. */
function monitorsOf(model: TestModel): BacktestMonitor[] {
  const until = new Map<string, number>();
  for (const n of model.notifiers) {
    const ms = typeof n.inputs.disabledUntil === "string" ? Date.parse(n.inputs.disabledUntil) : NaN;
    if (Number.isFinite(ms)) until.set(n.key, ms);
  }
  return model.monitors.map((m) => {
    const notifiers = [...(m.inputs.notifierIds ?? [])];
    const muted = notifiers.filter((k) => until.has(k)).map((k) => [k, until.get(k)!] as const);
    return {
      key: m.key,
      monitor: parseMonitor({ ...m.inputs, id: m.key }),
      notifiers,
      ...(muted.length > 0 ? { mutedUntil: Object.fromEntries(muted) } : {}),
    };
  });
}

/** The monitors of a `pulumi preview --json` file; its problems are thrown as {@link FileProblems}. */
async function fromPreview(file: string): Promise<BacktestMonitor[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new UsageError(
      `--preview ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  const preview = SourceDocument.parse(file, text);
  // The preview alone: no test file's own monitors or notifiers replace the stack's.
  const none = SourceDocument.parse("(no test file)", "{}");
  const { model, problems } = buildModel({} as AlertTestFile, none, preview);
  if (problems.length > 0) throw new FileProblems(problems);
  if (model.monitors.length === 0)
    throw new UsageError(
      `--preview ${file}: the preview shows no monitor of this package; \`pulumi preview --json\` lists resources that do not change only with --show-sames: add it`,
    );
  return monitorsOf(model);
}

/** The monitors of an alert-test file (its `stack:` and its own `monitors:`). */
async function fromTestFile(file: string): Promise<BacktestMonitor[]> {
  // The file's own bounds (the datasets it creates, the runs its until makes) are its alert test's, not a backtest's.
  const test = await loadAlertTest(file, process.cwd(), { backtest: true });
  return monitorsOf(test.model);
}

/** Every monitor of `source`. */
export async function loadMonitors(source: MonitorSource): Promise<BacktestMonitor[]> {
  return "preview" in source ? await fromPreview(source.preview) : await fromTestFile(source.testFile);
}

/**
 * The monitors `names` pick (by resource name or `name`) on each side, all of them when none is given. A name may
 * pick a monitor the base has and the head does not (a removed one); a name neither side has is refused.
 */
export function pickMonitors(
  head: readonly BacktestMonitor[],
  base: readonly BacktestMonitor[] | undefined,
  names: readonly string[],
): { head: BacktestMonitor[]; base: BacktestMonitor[] | undefined } {
  if (names.length === 0) return { head: [...head], base: base && [...base] };
  const all = [...head, ...(base ?? [])];
  const keys = new Set<string>();
  for (const name of names) {
    const found = all.filter((m) => m.key === name || m.monitor.name === name);
    if (found.length === 0)
      throw new UsageError(
        `--monitor ${name}: no monitor of that name (the monitors: ${[...new Set(all.map((m) => m.key))].join(", ")})`,
      );
    for (const m of found) keys.add(m.key);
  }
  return { head: head.filter((m) => keys.has(m.key)), base: base?.filter((m) => keys.has(m.key)) };
}
