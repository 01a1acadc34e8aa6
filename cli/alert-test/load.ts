/**
 * Reading an alert-test file into what a run needs: the checked file, its model (monitors, notifiers, datasets),
 * its events and its expectations resolved to the model's monitors and notifiers. Every problem in the file (or in
 * the stack's preview) is thrown at once, as {@link FileProblems}, each naming its file, line and field.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseRfc3339Ns } from "../../provider/time";
import { formatOffset } from "./compare";
import { MAX_TOTAL_EVENT_BYTES, testEvents, type TestEvent } from "./generate";
import { readReplay } from "./replay";
import { checkMonitor, checkNotifier, checkVirtualField, standInWarning, type RunWarning } from "./check";
import { buildModel, refusedMessage, type TestModel } from "./model";
import {
  AlertTestFileSchema,
  DEFAULT_START,
  EventEntrySchema,
  ExpectationSchema,
  type AlertTestFile,
  type Allowance,
  type Expectation,
} from "./schema";
import { didYouMean } from "./suggest";
import { FileProblems, SourceDocument, type DocPath, type Problem } from "./source";
import { issuePath } from "../../provider/schemas/common";
import type { MonitorCreate } from "../../provider/schemas/monitor";

/** An expectation with its monitor and notifier found in the model. */
export interface ResolvedExpectation extends Expectation {
  /** Its place in `expect:` (0-based) and its line, for the printed rows. */
  index: number;
  line: number | undefined;
  monitorKey: string;
  notifierKey?: string;
}

/** A test ready to run. */
export interface LoadedTest {
  /** The file as named on the command line. */
  file: string;
  startMs: number;
  untilMs: number;
  deliver: "receiver" | "declared";
  unexpected: "fail" | "ignore";
  /** What the file's `allow:` lets pass (a warning instead of a failure). */
  allow: ReadonlySet<Allowance>;
  model: TestModel;
  events: TestEvent[];
  expectations: ResolvedExpectation[];
  /** What the checks found worth saying that fails nothing: stand-ins, bin_auto. */
  warnings: RunWarning[];
}

/**
 * The most monitor runs a test may make, every monitor's runs from start to until counted. Ours: each run queries
 * its window and is kept for the comparison and the report, so the runs bound the test's time and memory as the
 * events' bytes bound its data. A 1-minute monitor for a month is 44,640 runs.
 */
export const MAX_RUNS = 50_000;

/** How many runs a monitor every `intervalMs` makes over `(startMs, startMs + untilMs]`: its grid since the epoch. */
export function runsOf(startMs: number, untilMs: number, intervalMs: number): number {
  return Math.floor((startMs + untilMs) / intervalMs) - Math.floor(startMs / intervalMs);
}

/** How long `stack.command` may run before it is stopped (a preview of a large stack takes minutes). */
export const STACK_COMMAND_TIMEOUT_MS = 10 * 60_000;

/** Runs `command` through the shell in `cwd` and answers its standard output; a failure is a problem. */
async function runPreviewCommand(command: string, cwd: string, at: () => Problem): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, { cwd, shell: true, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGTERM"), STACK_COMMAND_TIMEOUT_MS);
    const problem = (message: string) => fail(new FileProblems([{ ...at(), message }]));
    child.once("error", (e) => {
      clearTimeout(timer);
      problem(`could not run ${JSON.stringify(command)}: ${e.message}`);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return done(Buffer.concat(out).toString("utf8"));
      const tail = err.trim().split("\n").slice(-3).join(" | ");
      problem(
        `${JSON.stringify(command)} ${signal ? `was stopped (${signal})` : `exited with ${code}`}${tail ? `: ${tail}` : ""}`,
      );
    });
  });
}

/** The stack's preview as a document, from the saved file or the command's output. */
async function readStackPreview(
  doc: SourceDocument,
  stack: NonNullable<AlertTestFile["stack"]>,
  baseDir: string,
): Promise<SourceDocument> {
  if (stack.preview !== undefined) {
    const path = resolve(baseDir, stack.preview);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (err) {
      throw new FileProblems([
        doc.problem(
          ["stack", "preview"],
          `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        ),
      ]);
    }
    return SourceDocument.parse(stack.preview, text);
  }
  const cwd = resolve(baseDir, stack.cwd ?? ".");
  const text = await runPreviewCommand(stack.command!, cwd, () => doc.problem(["stack", "command"], ""));
  return SourceDocument.parse(`the output of ${JSON.stringify(stack.command)}`, text);
}

/** The monitor (or notifier) an expectation names: by resource name first, then by `name`, refusing a tie. */
function findByName<T extends { key: string; inputs: { name: string } }>(
  items: readonly T[],
  name: string,
): T | T[] | undefined {
  const byKey = items.find((i) => i.key === name);
  if (byKey) return byKey;
  const byName = items.filter((i) => i.inputs.name === name);
  return byName.length === 1 ? byName[0] : byName.length > 1 ? byName : undefined;
}

/** The file's fields that parsed; an entry of `events` or `expect` that did not is `undefined`, keeping its place. */
type PartialFile = Partial<Omit<AlertTestFile, "events" | "expect">> & {
  events?: (AlertTestFile["events"] extends (infer E)[] | undefined ? E | undefined : never)[];
  expect?: (Expectation | undefined)[];
};

/**
 * The file checked against its schema, every problem in `problems`, and what parsed of it: each top-level field on
 * its own and each entry of `events` and `expect` on its own, so that one mistake does not hide the checks of the
 * rest (the monitors, the names, the expectations).
 */
function parseFile(doc: SourceDocument, problems: Problem[]): PartialFile {
  try {
    return doc.parseWith(AlertTestFileSchema);
  } catch (err) {
    if (!(err instanceof FileProblems)) throw err;
    problems.push(...err.problems);
  }
  const value = doc.value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const ok = <T>(schema: { safeParse: (v: unknown) => { success: boolean; data?: T } }, v: unknown) => {
    const r = schema.safeParse(v);
    return r.success ? r.data : undefined;
  };
  for (const [key, schema] of Object.entries(AlertTestFileSchema.shape)) {
    if (!(key in value)) continue;
    const v = value[key];
    if (key === "events" && Array.isArray(v)) out.events = v.map((e) => ok(EventEntrySchema, e));
    else if (key === "expect" && Array.isArray(v)) out.expect = v.map((e) => ok(ExpectationSchema, e));
    else out[key] = ok(schema as never, v);
  }
  return out as PartialFile;
}

/** Every name an entry answers to: its resource name and its `name`. */
const namesOf = (items: readonly { key: string; inputs: { name: string } }[]) =>
  items.flatMap((i) => [i.key, i.inputs.name]);

/** How a file is read. */
export interface LoadOptions {
  /**
   * For a backtest (cli/backtest): its monitors run over the service's events, not the test's, so the bounds of a
   * test's own run (the datasets it creates, the runs its `until` makes) do not apply; everything else does.
   */
  backtest?: boolean;
}

/**
 * Reads, checks and resolves one alert-test file. `file` is resolved against `cwd` (default: the process's).
 * Everything that can be checked before the clock starts is, and every problem is thrown at once: the file's
 * fields, the stack's preview, every monitor's query (compiled by the emulator's engine) and every custom webhook's
 * template, the names that lead nowhere (with the nearest name), and the bounds.
 */
export async function loadAlertTest(
  file: string,
  cwd = process.cwd(),
  options: LoadOptions = {},
): Promise<LoadedTest> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new FileProblems([
      {
        file,
        field: "",
        message: code === "ENOENT" ? "no such file" : `cannot read it (${code ?? (err as Error).message})`,
      },
    ]);
  }
  const doc = SourceDocument.parse(file, text);
  if (doc.value === null || typeof doc.value !== "object" || Array.isArray(doc.value))
    throw new FileProblems([
      doc.problem(
        [],
        "must be a map with until:, expect: and the monitors to test (see docs/testing-alerts.md)",
      ),
    ]);
  const problems: Problem[] = [];
  const parsed = parseFile(doc, problems);
  const startMs = Number(parseRfc3339Ns(parsed.start ?? DEFAULT_START)! / 1_000_000n);
  const stackGiven = "stack" in (doc.value as object);

  let preview: SourceDocument | undefined;
  if (parsed.stack) {
    try {
      preview = await readStackPreview(doc, parsed.stack, dirname(path));
    } catch (err) {
      if (!(err instanceof FileProblems)) throw err;
      problems.push(...err.problems);
    }
  }
  const built = buildModel(parsed as AlertTestFile, doc, preview);
  const { model, refused } = built;
  problems.push(...built.problems);
  // A stack that could not be read (or was refused) declares nothing that can be told apart.
  if (stackGiven && preview === undefined) refused.everything = true;
  if (model.monitors.length === 0 && problems.length === 0) {
    // Every expectation would name a missing monitor: the one cause is said once.
    refused.everything = true;
    problems.push(
      parsed.stack
        ? doc.problem(
            ["stack"],
            "the preview shows no monitor of this package; `pulumi preview --json` lists resources that do not change only with --show-sames: add it",
          )
        : doc.problem([], "declares no monitor: give stack: or monitors:"),
    );
  }

  // Each replay's file, read before the events are laid out (the reading is the only part that waits).
  const replayed = new Map<number, { events: TestEvent[]; bytes: number }>();
  for (const [index, entry] of (parsed.events ?? []).entries()) {
    if (entry === undefined || !("replay" in entry)) continue;
    const r = await readReplay(entry.replay, dirname(path), startMs, MAX_TOTAL_EVENT_BYTES);
    if ("problem" in r)
      problems.push(doc.problem(["events", index, "replay", r.problem.field], r.problem.message));
    else replayed.set(index, r);
  }
  const { events, problems: eventProblems } = testEvents(
    parsed.events ?? [],
    startMs,
    (p, m) => doc.problem(p, m),
    replayed,
  );
  problems.push(...eventProblems);

  // The monitors' queries and the notifiers' templates, as the emulator will read them.
  const warnings: RunWarning[] = [];
  // The datasets the test creates, and those its refused events name (their own problems are said).
  const rawEvents = (doc.value as { events?: unknown }).events;
  const datasets = [
    ...new Set([
      ...model.datasets.map((d) => d.name),
      ...(Array.isArray(rawEvents) ? rawEvents : []).flatMap((e: unknown) => {
        const entry = e as {
          dataset?: unknown;
          generate?: { dataset?: unknown };
          replay?: { dataset?: unknown };
        } | null;
        const name = entry?.generate?.dataset ?? entry?.replay?.dataset ?? entry?.dataset;
        return typeof name === "string" ? [name] : [];
      }),
    ]),
  ];
  /** Each monitor's group columns, where its query says them plainly, to check the expectations' groups. */
  const groupColumns = new Map<string, string[]>();
  for (const m of [...model.monitors]) {
    const checked = checkMonitor(m, options.backtest ? undefined : datasets);
    warnings.push(...checked.warnings);
    if (checked.groupColumns) groupColumns.set(m.key, checked.groupColumns);
    if (checked.problems.length === 0) continue;
    problems.push(...checked.problems);
    // Refused: an expectation naming it says why, rather than that no monitor has its name.
    for (const name of [m.key, m.inputs.name])
      if (!refused.monitors.has(name)) refused.monitors.set(name, checked.problems[0]);
    model.monitors.splice(model.monitors.indexOf(m), 1);
  }
  for (const [key, vf] of Object.entries(parsed.virtualFields ?? {})) {
    const expression = (vf as { expression?: unknown } | null)?.expression;
    if (typeof expression !== "string" || expression.trim() === "") continue; // its own schema says why
    const path = ["virtualFields", key];
    problems.push(...checkVirtualField(expression, { doc, path, field: (f) => issuePath([...path, ...f]) }));
  }
  // A monitor of the file refused for another field still has its query checked, so that its every problem is
  // said at once (its warnings are not: it does not run).
  for (const [key, inputs] of Object.entries(parsed.monitors ?? {})) {
    const m = inputs as Record<string, unknown>;
    if (model.monitors.some((x) => x.key === key) || typeof m?.aplQuery !== "string") continue;
    const place = { doc, path: ["monitors", key], field: (f: DocPath) => issuePath(["monitors", key, ...f]) };
    const origin = `${doc.file}:${doc.lineOf(["monitors", key])}`;
    const monitor = { key, inputs: m as unknown as MonitorCreate, origin, place };
    if (refused.monitors.get(key)?.field !== place.field(["aplQuery"]))
      problems.push(...checkMonitor(monitor, options.backtest ? undefined : datasets).problems);
  }
  for (const n of model.notifiers) {
    problems.push(...checkNotifier(n));
    const standIn = standInWarning(n);
    if (standIn) warnings.push(standIn);
  }

  if (parsed.until !== undefined && !options.backtest) {
    const runs = model.monitors.map((m) => ({
      key: m.key,
      intervalMs: Number(m.inputs.intervalMinutes ?? 1) * 60_000,
    }));
    const totalRuns = runs.reduce((n, m) => n + runsOf(startMs, parsed.until!, m.intervalMs), 0);
    if (totalRuns > MAX_RUNS) {
      const each = runs
        .map((m) => `${m.key} every ${formatOffset(m.intervalMs).slice(1)}`)
        .slice(0, 5)
        .join(", ");
      problems.push(
        doc.problem(
          ["until"],
          `makes ${totalRuns.toLocaleString("en-US")} monitor runs (${each}${runs.length > 5 ? ", …" : ""}), past the ${MAX_RUNS.toLocaleString("en-US")} a test may make; shorten until or lengthen intervalMinutes`,
        ),
      );
    }
  }

  const expectations: ResolvedExpectation[] = [];
  (parsed.expect ?? []).forEach((e, index) => {
    if (e === undefined) return; // its own problems are said
    const monitor = findByName(model.monitors, e.monitor);
    const describe = (items: { key: string }[]) => items.map((i) => i.key).join(", ");
    if (monitor === undefined) {
      const why = refused.monitors.get(e.monitor);
      if (why === undefined && refused.everything) return; // the one cause is said already
      problems.push(
        doc.problem(
          ["expect", index, "monitor"],
          why
            ? refusedMessage("monitor", e.monitor, why)
            : `names no monitor of this test (${describe(model.monitors) || "none"})${didYouMean(e.monitor, [...namesOf(model.monitors), ...refused.monitors.keys()])}`,
        ),
      );
      return;
    }
    if (Array.isArray(monitor)) {
      problems.push(
        doc.problem(
          ["expect", index, "monitor"],
          `is the name of several monitors (${describe(monitor)}); use the resource name`,
        ),
      );
      return;
    }
    let notifierKey: string | undefined;
    if (e.notifier !== undefined) {
      const notifier = findByName(model.notifiers, e.notifier);
      if (notifier === undefined) {
        const why = refused.notifiers.get(e.notifier);
        if (why === undefined && refused.everything) return;
        problems.push(
          doc.problem(
            ["expect", index, "notifier"],
            why
              ? refusedMessage("notifier", e.notifier, why)
              : `names no notifier of this test (${describe(model.notifiers) || "none declared"})${didYouMean(e.notifier, [...namesOf(model.notifiers), ...refused.notifiers.keys()])}`,
          ),
        );
        return;
      }
      if (Array.isArray(notifier)) {
        problems.push(
          doc.problem(
            ["expect", index, "notifier"],
            `is the name of several notifiers (${describe(notifier)}); use the resource name`,
          ),
        );
        return;
      }
      notifierKey = notifier.key;
    }
    const columns = groupColumns.get(monitor.key);
    if (e.group !== undefined && columns !== undefined) {
      const by = columns.length ? `its query groups by ${columns.join(", ")}` : "its query groups by nothing";
      if (Array.isArray(e.group) && e.group.length !== columns.length)
        problems.push(
          doc.problem(
            ["expect", index, "group"],
            `gives ${e.group.length} ${e.group.length === 1 ? "value" : "values"}, but monitor ${monitor.key} has ${columns.length} group ${columns.length === 1 ? "column" : "columns"} (${by})`,
          ),
        );
      else if (!Array.isArray(e.group))
        for (const column of Object.keys(e.group))
          if (!columns.includes(column))
            problems.push(
              doc.problem(
                ["expect", index, "group", column],
                `is not a group column of monitor ${monitor.key} (${by})${didYouMean(column, columns)}`,
              ),
            );
    }
    for (const bound of ["at", "after", "by"] as const) {
      const v = e[bound];
      if (v !== undefined && parsed.until !== undefined && v > parsed.until)
        problems.push(
          doc.problem(
            ["expect", index, bound],
            `is after until (the run ends there), so nothing can happen by then`,
          ),
        );
    }
    expectations.push({
      ...e,
      index,
      line: doc.lineOf(["expect", index]),
      monitorKey: monitor.key,
      notifierKey,
    });
  });
  if (problems.length > 0) throw new FileProblems(problems);

  return {
    file,
    startMs,
    untilMs: parsed.until!,
    deliver: parsed.deliver ?? "receiver",
    unexpected: parsed.unexpected ?? "fail",
    allow: new Set(parsed.allow ?? []),
    model,
    events,
    expectations,
    warnings,
  };
}
