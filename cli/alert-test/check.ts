/**
 * What can be checked of a test's monitors and notifiers before the clock starts, with the emulator's own parts: a
 * monitor's APL parsed and compiled by its engine (a query that does not compile would fail every run), the datasets
 * a query reads against the ones the test creates, a custom webhook's body parsed as its Go template, and a
 * threshold monitor binned by `bin_auto`, which means whatever bin the service picks (a warning, not a problem).
 * Each problem is placed where the mistake is written: inside the query or the template, at its line and column.
 */
import { AplError, compileQuery, parseApl, type Query } from "../../emulator/apl";
import { autoBinNs } from "../../emulator/apl/compile";
import { parseWebhookTemplate, TemplateError } from "../../provider/go-template/webhook";
import { formatOffset } from "./compare";
import { compileFieldExpression } from "../../emulator/query/legacy";
import { problemAt, type Place, type TestMonitor, type TestNotifier } from "./model";
import { offsetOf, type Problem } from "./source";
import { didYouMean } from "./suggest";

/**
 * Something the run wants its reader to know without failing the test: a notifier that runs as a stand-in, a
 * monitor whose meaning rests on the emulator's choice, a failure a file's `allow:` let pass. The command prints
 * each; the report and `--format json` show them.
 */
export interface RunWarning {
  /** `stand-in`: a notifier does not run as declared. `bin-auto`: a threshold monitor binned by `bin_auto`.
   * `allowed`: a failed query or send that the file's `allow:` lets pass. */
  kind: "stand-in" | "bin-auto" | "allowed";
  /** The whole warning, in words, naming what it is about. */
  message: string;
  /** The monitor's key, when it is about one. */
  monitor?: string;
  /** The notifier's key, when it is about one. */
  notifier?: string;
  /** Where it is declared (the test file, or the stack's preview). */
  file?: string;
  line?: number;
  column?: number;
}

const NS_PER_MINUTE = 60_000_000_000n;

/** Whether the query calls `name` anywhere (its syntax tree walked, so a string that spells it does not count). */
function callsFunction(query: Query, name: string): boolean {
  const seen = new Set<unknown>();
  const walk = (node: unknown): boolean => {
    if (node === null || typeof node !== "object" || seen.has(node)) return false;
    seen.add(node);
    const n = node as { kind?: unknown; name?: unknown };
    if (n.kind === "call" && n.name === name) return true;
    return Object.values(node).some(walk);
  };
  return walk(query.body) || walk(query.lets);
}

/** A bin size as text: `5s`, `1m`, `1h`. */
function binText(ns: bigint): string {
  return formatOffset(Number(ns / 1_000_000n)).slice(1);
}

/**
 * A monitor's query, parsed and compiled as a run would (over its range), and the datasets it reads against the
 * test's (undefined: any dataset, as a backtest reads the service's); a threshold monitor binned by `bin_auto` is
 * warned of, naming the bin the emulator picks.
 */
export function checkMonitor(
  m: TestMonitor,
  datasets: readonly string[] | undefined,
): { problems: Problem[]; warnings: RunWarning[]; groupColumns?: string[] } {
  const apl = m.inputs.aplQuery;
  const problems: Problem[] = [];
  const warnings: RunWarning[] = [];
  const rangeMinutes = Number(
    (m.inputs.type === "MatchEvent" ? m.inputs.intervalMinutes : m.inputs.rangeMinutes) ?? 1,
  );
  // A run queries [end - range, end - 1ns] (run-query.ts): the range bin_auto sizes its bins from.
  const endNs = BigInt(rangeMinutes) * NS_PER_MINUTE - 1n;
  const ctx = { now: endNs, startNs: 0n, endNs, source: apl };
  let query: Query;
  try {
    query = parseApl(apl);
    compileQuery(query, ctx);
  } catch (err) {
    if (!(err instanceof AplError)) throw err;
    problems.push(
      problemAt(
        m.place,
        ["aplQuery"],
        `${err.errorType === "syntax" ? "does not parse" : "does not compile"}: ${err.message} (the query's line ${err.line}, column ${err.column}); every run would fail`,
        offsetOf(apl, err.line, err.column),
      ),
    );
    return { problems, warnings };
  }
  for (const name of query.datasets) {
    if (datasets === undefined || name === "" || name.includes("*") || datasets.includes(name)) continue;
    problems.push(
      problemAt(
        m.place,
        ["aplQuery"],
        `reads dataset ${name}, which this test does not create (it creates ${datasets.join(", ") || "none"}): every run would fail; list it under datasets:, or send it events${didYouMean(name, datasets)}`,
        Math.max(0, apl.indexOf(name)),
      ),
    );
  }
  if (m.inputs.type === "Threshold" && callsFunction(query, "bin_auto")) {
    const bin = autoBinNs(ctx);
    // A Threshold monitor has both (the resource's rule), but the text does not lean on it.
    const rule = [m.inputs.operator, m.inputs.threshold].filter((v) => v !== undefined).join(" ");
    const at = problemAt(m.place, ["aplQuery"], "", Math.max(0, apl.indexOf("bin_auto")));
    warnings.push({
      kind: "bin-auto",
      monitor: m.key,
      file: at.file,
      line: at.line,
      column: at.column,
      message:
        `${m.key} bins by bin_auto, which the emulator makes ${binText(bin)} bins over its ${rangeMinutes}-minute range, so its threshold` +
        `${rule ? ` (${rule})` : ""} is compared with ${binText(bin)} of data at a time. ` +
        "The service documents only that bin_auto's size follows the query's range, not which size, so the monitor means whatever the service's steps are: " +
        `bin by an explicit size (bin(_time, ${rangeMinutes}m) for the whole range), or not at all, to say what it counts`,
    });
  }
  return { problems, warnings, groupColumns: groupColumnsOf(query) };
}

/**
 * The columns a monitor's alerts are grouped by, when the query says them plainly: it ends in a `summarize`, whose
 * `by` columns other than the binned `_time` are the group (as the runs report them). Undefined when anything
 * follows the summarize (a `project` may rename them), so nothing is refused on a guess.
 */
function groupColumnsOf(query: Query): string[] | undefined {
  const last = query.ops.at(-1);
  if (last?.op !== "summarize") return undefined;
  return last.by.flatMap((b) => b.names ?? [b.name]).filter((name) => name !== "_time");
}

/**
 * A virtual field's expression compiled as the emulator computes it in every query of its dataset: one that does not
 * compile fails each of those queries, so every run of a monitor reading the dataset would fail.
 */
export function checkVirtualField(expression: string, place: Place): Problem[] {
  try {
    compileFieldExpression(expression, 0n);
    return [];
  } catch (err) {
    if (!(err instanceof AplError)) throw err;
    // The expression is compiled inside `['_'] | extend __virtual = …`: its own column is past that prefix.
    const prefix = "['_'] | extend __virtual = ".length;
    const column = err.line === 1 ? Math.max(1, err.column - prefix) : err.column;
    return [
      problemAt(
        place,
        ["expression"],
        `does not compile: ${err.message}; every query of its dataset would fail, and every run of a monitor reading it`,
        offsetOf(expression, err.line, column),
      ),
    ];
  }
}

/** A custom webhook's body parsed as the service's Go template; its error placed on the template's line. */
export function checkNotifier(n: TestNotifier): Problem[] {
  const hook = n.inputs.properties?.customWebhook;
  if (!hook || typeof hook.body !== "string") return [];
  try {
    parseWebhookTemplate(hook.body);
    return [];
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    // Go names the line only: `template: webhook:3: unexpected "}" in operand`.
    const line = Number(/^template: [^:]*:(\d+):/.exec(err.message)?.[1] ?? 1);
    const lineStart = offsetOf(hook.body, line, 1);
    const indent = /^[ \t]*/.exec(hook.body.slice(lineStart))![0].length;
    return [
      problemAt(
        n.place,
        ["properties", "customWebhook", "body"],
        `does not parse as a Go template: ${err.message}; every notification would fail`,
        lineStart + indent,
      ),
    ];
  }
}

/** A notifier that runs as a stand-in, as a warning. */
export function standInWarning(n: TestNotifier): RunWarning | undefined {
  if (n.standIn === undefined) return undefined;
  const at = n.place.doc.positionOf(n.place.path);
  return {
    kind: "stand-in",
    notifier: n.key,
    file: n.place.doc.file,
    ...at,
    message: `notifier ${n.key} runs as a stand-in: ${n.standIn}`,
  };
}
