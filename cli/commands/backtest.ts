/**
 * `observability backtest [FILE]`: runs monitors over a past period of the service's events, by the emulator's
 * rules, and prints what they would have done (runs, alerts, notifications per notifier); with `--base`, what a
 * change to them does. Nothing is sent to any notifier. docs/backtesting.md describes it and its JSON.
 */
import { writeFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import { Command, InvalidArgumentError, Option } from "commander";
import { parseDurationMs } from "../../emulator/clock";
import { parseRfc3339Ns } from "../../emulator/time";
import { FileProblems, formatProblem } from "../alert-test/source";
import {
  backtest,
  BacktestRefused,
  checkRuns,
  DEFAULT_MAX_RUNS,
  DEFAULT_MAX_EVENTS,
  type BacktestMonitor,
  type BacktestOptions,
  type MonitorBacktest,
  type Period,
} from "../backtest/run";
import { renderBacktestReport } from "../backtest/html";
import { diffReport, failsOn, formatMarkdown, formatText, report } from "../backtest/report";
import { loadMonitors, pickMonitors, type MonitorSource } from "../backtest/sources";
import { addConnectionOptions, connect, TOKEN_HELP, type ConnectionFlags } from "../connection";
import { action, CommandError, EXIT, UsageError, type ExitCode } from "../exit";
import { integer } from "../flags";
import type { ObservabilityClient } from "../../provider/client";

interface BacktestFlags extends ConnectionFlags {
  preview?: string;
  base?: string;
  monitor: string[];
  since?: string;
  from?: string;
  to?: string;
  format?: "text" | "markdown" | "json";
  maxEvents: number;
  maxRuns?: number;
  failOn?: "more-pages" | "any-change";
  report?: string;
}

const EXAMPLE = `
Examples:
  $ pulumi preview --json > head.json
  $ observability backtest --preview head.json --since 7d
  $ observability backtest --preview head.json --base base.json --since 7d --format markdown >> "$GITHUB_STEP_SUMMARY"
  $ observability backtest alerts.test.yaml --monitor high-error-rate --from 2026-01-01T00:00:00Z --to 2026-01-08T00:00:00Z

Decomposable monitors (a summarize of count, countif, sum, sumif, min, max or avg) are evaluated on the service
in a few requests; the others fetch only the events they read (see docs/backtesting.md).
${TOKEN_HELP}`;

/** The period the flags name, checked against `nowMs`. */
export function periodOf(flags: Pick<BacktestFlags, "since" | "from" | "to">, nowMs: number): Period {
  if (flags.since !== undefined && (flags.from !== undefined || flags.to !== undefined))
    throw new UsageError("give --since, or --from and --to, not both");
  if (flags.since !== undefined) {
    const ms = parseDurationMs(flags.since);
    if (ms === undefined || ms <= 0)
      throw new UsageError(`--since ${flags.since}: must be a duration such as 7d, 24h or 90m`);
    return { fromMs: nowMs - ms, toMs: nowMs };
  }
  if (flags.from === undefined || flags.to === undefined)
    throw new UsageError("give the period: --since 7d, or --from and --to (RFC 3339)");
  const time = (flag: string, text: string) => {
    const v = parseRfc3339Ns(text);
    if (v === undefined)
      throw new UsageError(`${flag} ${text}: must be an RFC 3339 time, e.g. 2026-01-01T00:00:00Z`);
    return Number(v / 1_000_000n);
  };
  const fromMs = time("--from", flags.from);
  const toMs = time("--to", flags.to);
  if (fromMs >= toMs) throw new UsageError(`--from ${flags.from}: must be before --to ${flags.to}`);
  if (toMs > nowMs)
    throw new UsageError(`--to ${flags.to}: is in the future; a backtest runs over events already stored`);
  return { fromMs, toMs };
}

/** The monitors of a source, problems of its file turned into one usage error naming each. */
async function monitorsOf(source: MonitorSource) {
  try {
    return await loadMonitors(source);
  } catch (err) {
    if (err instanceof FileProblems) throw new UsageError(err.problems.map(formatProblem).join("; "));
    throw err;
  }
}

/** The base's monitors: read as the head's kind of source, which its problems say, as a file of the other kind
 * (a preview given for a test file's base) gets a list of fields it should not have. */
async function baseMonitors(source: MonitorSource, file: string) {
  try {
    return await monitorsOf(source);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const kind = "preview" in source ? "a stack's preview (pulumi preview --json)" : "an alert-test file";
    // A preview's own problems name the file as --preview's; here it is --base's.
    const said = err.message.replace(`--preview ${file}: `, "");
    throw new UsageError(`--base ${file}: read as ${kind}, as the head is: ${said}`);
  }
}

/** Runs `observability backtest` with parsed flags; answers the exit code. */
export async function runBacktest(
  file: string | undefined,
  flags: BacktestFlags,
  io: {
    client?: ObservabilityClient;
    out?: (text: string) => void;
    nowMs?: number;
    progress?: (fetched: number, total: number) => void;
  } = {},
): Promise<ExitCode> {
  const out = io.out ?? ((text: string) => process.stdout.write(text));
  if ((file === undefined) === (flags.preview === undefined))
    throw new UsageError("give the monitors: an alert-test FILE or --preview FILE (pulumi preview --json)");
  if (flags.failOn !== undefined && flags.base === undefined)
    throw new UsageError("--fail-on compares with a base: give --base");
  const period = periodOf(flags, io.nowMs ?? Date.now());
  const source = (path: string): MonitorSource =>
    file === undefined ? { preview: path } : { testFile: path };
  const { head, base } = pickMonitors(
    await monitorsOf(source(file ?? flags.preview!)),
    flags.base === undefined ? undefined : await baseMonitors(source(flags.base), flags.base),
    flags.monitor,
  );
  const client = io.client ?? (await connect(flags));
  let headRuns: MonitorBacktest[];
  let baseRuns: MonitorBacktest[] | undefined;
  try {
    // One answer serves the base's and the head's equal queries: a diff's unchanged monitors cost one request.
    const options = {
      maxEvents: flags.maxEvents,
      maxRuns: flags.maxRuns,
      onProgress: io.progress,
      nowMs: io.nowMs,
      answers: new Map(),
    };
    // The base's runs are counted before the head's backtest starts, not after a month of it.
    if (base)
      checkRuns(
        base.filter((b) => !head.some((h) => sameInputs(h, b))),
        period,
        flags.maxRuns ?? DEFAULT_MAX_RUNS,
      );
    headRuns = await backtest(client, head, period, options);
    baseRuns = base ? await backtestBase(client, base, head, headRuns, period, options) : undefined;
  } catch (err) {
    if (err instanceof BacktestRefused) throw new CommandError(err.message);
    throw err;
  } finally {
    if (!io.client) await client.close();
  }
  const r = baseRuns ? diffReport(baseRuns, headRuns, period) : report(headRuns, period);
  const format = flags.format ?? (process.stdout.isTTY ? "text" : "json");
  if (format === "json") out(`${JSON.stringify(r, null, 2)}\n`);
  else out(`${(format === "markdown" ? formatMarkdown(r) : formatText(r)).join("\n")}\n`);
  if (flags.report !== undefined) {
    try {
      await writeFile(flags.report, renderBacktestReport(headRuns, period, baseRuns));
    } catch (err) {
      throw new CommandError(
        `--report ${flags.report}: cannot write it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  // A head monitor the service did not answer for (unreachable, a refused token, a dataset it lacks) is a backtest
  // that did not happen: the report says which and why, and a pipeline must not read it as "nothing changed". A
  // monitor a backtest cannot run by design (a let, a dataset pattern) is only reported, as is a base's failure: a
  // change that removes or mends a broken monitor must be able to pass.
  if (headRuns.some((m) => m.unanswered)) return EXIT.failed;
  if (flags.failOn !== undefined && failsOn(r, flags.failOn)) return EXIT.failed;
  return EXIT.ok;
}

/** Whether a base monitor is its head's in every input: the same resource, monitor, notifiers and mutes. */
function sameInputs(head: BacktestMonitor, base: BacktestMonitor): boolean {
  return (
    head.key === base.key &&
    isDeepStrictEqual(head.monitor, base.monitor) &&
    isDeepStrictEqual(head.notifiers, base.notifiers) &&
    isDeepStrictEqual(head.mutedUntil, base.mutedUntil)
  );
}

/**
 * The base's backtests. A base monitor equal to its head in every input (the monitor, its id included, and its
 * notifiers) judges exactly as the head did: one pure judge over the same answers. Its result is the head's,
 * not judged again, and says so (`reused`, no requests of its own); the others are backtested, sharing the
 * head's answers where their queries are equal.
 */
async function backtestBase(
  client: ObservabilityClient,
  base: readonly BacktestMonitor[],
  head: readonly BacktestMonitor[],
  headRuns: readonly MonitorBacktest[],
  period: Period,
  options: BacktestOptions,
): Promise<MonitorBacktest[]> {
  const sameAsHead = (b: BacktestMonitor): MonitorBacktest | undefined => {
    const i = head.findIndex((h) => sameInputs(h, b));
    return i < 0 ? undefined : headRuns[i];
  };
  const judged = await backtest(
    client,
    base.filter((b) => sameAsHead(b) === undefined),
    period,
    options,
  );
  let next = 0;
  return base.map((b) => {
    const same = sameAsHead(b);
    return same ? { ...same, ...b, requests: 0, rows: 0, reused: b.key } : judged[next++];
  });
}

/** A bar on stderr while events are fetched, when it is a terminal. */
function progressBar(): ((fetched: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return (fetched, total) => {
    const now = Date.now();
    if (now - last < 200 && fetched < total) return;
    last = now;
    const share = total === 0 ? 1 : Math.min(1, fetched / total);
    const width = 30;
    const filled = Math.round(share * width);
    process.stderr.write(
      `\r${"█".repeat(filled)}${"░".repeat(width - filled)} ${Math.round(share * 100)}% | ${fetched.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} events${fetched >= total ? "\n" : ""}`,
    );
  };
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds the `backtest` subcommand. */
export function registerBacktestCommand(program: Command): void {
  const command = program
    .command("backtest")
    .description(
      "Run monitors over a past period of the service's events and print what they would have done; nothing is sent.",
    )
    .argument("[file]", "an alert-test file whose monitors and notifiers to run")
    .option("--preview <file>", "the monitors of a stack's `pulumi preview --json` output")
    .option("--base <file>", "compare with these monitors (the same kind of source as the head)")
    .option("--monitor <name>", "run only this monitor (repeatable)", collect, [])
    .option(
      "--report <file.html>",
      "also write one self-contained HTML page: each monitor's values against its threshold, alerts shaded, notifications marked",
    )
    .option("--since <duration>", "the period up to now, e.g. 7d, 24h")
    .option("--from <time>", "start of the period (RFC 3339)")
    .option("--to <time>", "end of the period (RFC 3339)")
    .addOption(
      new Option("--format <format>", "text (default on a terminal), markdown or json").choices([
        "text",
        "markdown",
        "json",
      ]),
    )
    .option(
      "--max-events <n>",
      `refuse a backtest that would fetch more events (default ${DEFAULT_MAX_EVENTS.toLocaleString("en-US")})`,
      integer("--max-events", 0, Number.MAX_SAFE_INTEGER),
      DEFAULT_MAX_EVENTS,
    )
    .option(
      "--max-runs <n>",
      `refuse a backtest that would make more monitor runs, on each side of a diff (default ${DEFAULT_MAX_RUNS.toLocaleString("en-US")})`,
      integer("--max-runs", 0, Number.MAX_SAFE_INTEGER),
      DEFAULT_MAX_RUNS,
    )
    .addOption(
      new Option(
        "--fail-on <rule>",
        "exit 1 when, against --base, some notifier gets more pages or anything changes",
      )
        .choices(["more-pages", "any-change"])
        .argParser((v) => {
          if (v !== "more-pages" && v !== "any-change")
            throw new InvalidArgumentError("must be more-pages or any-change.");
          return v;
        }),
    );
  addConnectionOptions(command)
    .addHelpText("after", EXAMPLE)
    .action(
      action("backtest", async (file: string | undefined, flags: BacktestFlags) =>
        runBacktest(file, flags, { progress: progressBar() }),
      ),
    );
}
