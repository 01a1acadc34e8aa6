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
import { testEvents, type TestEvent } from "./generate";
import { buildModel, EVERYTHING, type TestModel } from "./model";
import { AlertTestFileSchema, DEFAULT_START, type AlertTestFile, type Expectation } from "./schema";
import { FileProblems, SourceDocument, type Problem } from "./source";

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
  model: TestModel;
  events: TestEvent[];
  expectations: ResolvedExpectation[];
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

/** Reads, checks and resolves one alert-test file. `file` is resolved against `cwd` (default: the process's). */
export async function loadAlertTest(file: string, cwd = process.cwd()): Promise<LoadedTest> {
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
  const parsed = doc.parseWith(AlertTestFileSchema);
  const startMs = Number(parseRfc3339Ns(parsed.start ?? DEFAULT_START)! / 1_000_000n);

  const preview = parsed.stack ? await readStackPreview(doc, parsed.stack, dirname(path)) : undefined;
  const { model, problems, leftOut } = buildModel(parsed, doc, preview);
  /** Names of entries the model left out for their own problems: an expectation naming one is not blamed too. */
  const refused = new Set([
    ...leftOut,
    ...Object.keys(parsed.monitors ?? {}),
    ...Object.keys(parsed.notifiers ?? {}),
  ]);
  if (model.monitors.length === 0 && problems.length === 0) {
    // Every expectation would name a missing monitor: the one cause is said once.
    refused.add(EVERYTHING);
    problems.push(
      parsed.stack
        ? doc.problem(
            ["stack"],
            "the preview shows no monitor of this package; `pulumi preview --json` lists resources that do not change only with --show-sames: add it",
          )
        : doc.problem([], "declares no monitor: give stack: or monitors:"),
    );
  }
  const runs = model.monitors.map((m) => ({
    key: m.key,
    intervalMs: Number(m.inputs.intervalMinutes ?? 1) * 60_000,
  }));
  const totalRuns = runs.reduce((n, m) => n + runsOf(startMs, parsed.until, m.intervalMs), 0);
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
  const { events, problems: eventProblems } = testEvents(parsed.events ?? [], startMs, (p, m) =>
    doc.problem(p, m),
  );
  problems.push(...eventProblems);

  const expectations: ResolvedExpectation[] = [];
  parsed.expect.forEach((e, index) => {
    const monitor = findByName(model.monitors, e.monitor);
    const describe = (items: { key: string }[]) => items.map((i) => i.key).join(", ");
    if (monitor === undefined && (refused.has(e.monitor) || refused.has(EVERYTHING)) && problems.length > 0)
      return;
    if (monitor === undefined || Array.isArray(monitor)) {
      problems.push(
        doc.problem(
          ["expect", index, "monitor"],
          monitor === undefined
            ? `names no monitor of this test (${describe(model.monitors)})`
            : `is the name of several monitors (${describe(monitor)}); use the resource name`,
        ),
      );
      return;
    }
    let notifierKey: string | undefined;
    if (e.notifier !== undefined) {
      const notifier = findByName(model.notifiers, e.notifier);
      if (
        notifier === undefined &&
        (refused.has(e.notifier) || refused.has(EVERYTHING)) &&
        problems.length > 0
      )
        return;
      if (notifier === undefined || Array.isArray(notifier)) {
        problems.push(
          doc.problem(
            ["expect", index, "notifier"],
            notifier === undefined
              ? `names no notifier of this test (${describe(model.notifiers) || "none declared"})`
              : `is the name of several notifiers (${describe(notifier)}); use the resource name`,
          ),
        );
        return;
      }
      notifierKey = notifier.key;
    }
    for (const bound of ["at", "after", "by"] as const) {
      const v = e[bound];
      if (v !== undefined && v > parsed.until)
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
    untilMs: parsed.until,
    deliver: parsed.deliver ?? "receiver",
    unexpected: parsed.unexpected ?? "fail",
    model,
    events,
    expectations,
  };
}
