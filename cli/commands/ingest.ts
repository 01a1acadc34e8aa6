/** `observability ingest DATASET [FILE…|-]`: streams event files into a dataset through the client's ingest. */
import { fstatSync } from "node:fs";
import { Command, InvalidArgumentError } from "commander";
import { MAX_BATCH_EVENTS, type IngestSummary, type ObservabilityClient } from "../../provider/client";
import { addConnectionOptions, connect, TOKEN_HELP, type ConnectionFlags } from "../connection";
import { action, CommandError, EXIT, UsageError, type ExitCode } from "../exit";
import {
  checkCsvHeader,
  decoded,
  detectFormat,
  inputFormat,
  jsonArrayEvents,
  openInputs,
  type Input,
  type InputFormat,
} from "../input";
import { integer } from "../flags";
import { formatBytes, Progress } from "../progress";

interface IngestFlags extends ConnectionFlags {
  format?: string;
  timestampField?: string;
  timestampFormat?: string;
  csvDelimiter?: string;
  batchSize?: number;
  maxFailures?: number;
  /** `--label k=v`, repeatable: labels added to every event. */
  label?: Record<string, string>;
  /** `--csv-fields a,b,c`: the field names of CSV input without a header row. */
  csvFields?: string[];
}

/** Failure entries printed in the summary; the counts are always exact. */
const SHOWN_FAILURES = 10;

function delimiter(value: string): string {
  if (value === "\\t" || value === "tab") return "\t";
  if ([...value].length !== 1 || /["\r\n]/.test(value)) {
    throw new InvalidArgumentError(
      "--csv-delimiter must be one character other than a quote or a line break.",
    );
  }
  return value;
}

/** Collects `--label k=v` flags into one object; a later label of the same name wins, as with axiom-go's
 * ingest.SetEventLabel. */
function label(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const eq = value.indexOf("=");
  if (eq <= 0) throw new InvalidArgumentError("--label must be name=value, with a name before the =.");
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** Splits `--csv-fields a,b,c` into names; each must be non-empty and appear once. */
function csvFields(value: string): string[] {
  const names = value.split(",").map((n) => n.trim());
  const empty = names.findIndex((n) => n === "");
  if (empty !== -1) throw new InvalidArgumentError(`--csv-fields: field ${empty + 1} has no name.`);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new InvalidArgumentError(`--csv-fields: "${twice}" appears twice.`);
  return names;
}

const EXAMPLE = `
Formats: ndjson (one object a line), json (an array of objects) or csv (a header line, then records);
guessed from the extension (.ndjson .jsonl .json .csv), else from the first character. Gzipped files
(.gz, or any file starting with the gzip magic bytes) are decompressed as they stream.

Exit codes: 0 every event landed; 1 some failed (more than --max-failures, when given) or the input or the
service failed; 2 a usage error (a flag, a missing token, a file that cannot be opened).

Examples:
  $ observability ingest http-logs access.ndjson.gz
  $ gunzip -c big.csv.gz | observability ingest http-logs --format csv --timestamp-field ts -
  $ observability ingest http-logs --csv-fields time,ip,status --label region=eu-west-1 rows.csv
${TOKEN_HELP}`;

/** True when standard input is a pipe, a file or a socket: a terminal, or /dev/null as in many CI runners,
 * is not taken for an (empty) input, so a forgotten file name is a usage error rather than 0 events. */
function stdinIsPiped(): boolean {
  try {
    const stat = fstatSync(0);
    return stat.isFIFO() || stat.isFile() || stat.isSocket();
  } catch {
    return false;
  }
}

/** Totals over every input. */
interface Totals {
  ingested: number;
  failed: number;
  failures: IngestSummary["failures"];
  /** Uncompressed bytes sent. */
  bytesSent: number;
  /** Bytes read from the inputs (compressed, for a gzip file). */
  bytesRead: number;
  /** Reading stopped before the end of the input, past --max-failures. */
  cut: boolean;
}

/** The event source one input gives the client: raw NDJSON/CSV chunks, or the objects of a JSON array. */
async function sourceOf(
  input: Input,
  given: InputFormat | undefined,
  csvDelimiter: string,
  headerless: boolean,
  onRead: (bytes: number) => void,
  stopped: () => boolean,
  onCut: () => void,
): Promise<{ format: InputFormat; source: AsyncIterable<Buffer | Record<string, unknown>> }> {
  const detected = await detectFormat(await decoded(input.read(onRead), input.name), input.name, given);
  let data = detected.data;
  // Header-less CSV (--csv-fields) has no first line to check: its names were checked as the flag was read.
  if (detected.format === "csv" && !headerless) data = await checkCsvHeader(data, input.name, csvDelimiter);
  const items = detected.format === "json" ? jsonArrayEvents(data, input.name) : data;
  // Ending the source early (past --max-failures) lets the client send what it holds and return its summary.
  async function* untilStopped() {
    for await (const item of items) {
      if (stopped()) {
        onCut();
        return;
      }
      yield item;
    }
  }
  return { format: detected.format, source: untilStopped() };
}

/** Sends every input in turn, summing the results; stops reading once more than `maxFailures` failed. */
async function ingestAll(
  client: ObservabilityClient,
  dataset: string,
  inputs: readonly Input[],
  flags: IngestFlags,
  progress: Progress,
): Promise<Totals> {
  const totals: Totals = { ingested: 0, failed: 0, failures: [], bytesSent: 0, bytesRead: 0, cut: false };
  const stopped = () => flags.maxFailures !== undefined && totals.failed > flags.maxFailures;
  const given =
    flags.format === undefined ? (flags.csvFields ? "csv" : undefined) : inputFormat(flags.format);
  for (const input of inputs) {
    if (stopped()) {
      totals.cut = true;
      break;
    }
    const before = { ...totals };
    const { format, source } = await sourceOf(
      input,
      given,
      flags.csvDelimiter ?? ",",
      flags.csvFields !== undefined,
      (bytes) => {
        totals.bytesRead += bytes;
        progress.update({ bytesRead: totals.bytesRead });
      },
      stopped,
      () => (totals.cut = true),
    );
    let summary: IngestSummary;
    try {
      summary = await client.ingest(dataset, source, {
        format: format === "csv" ? "csv" : "ndjson",
        timestampField: flags.timestampField,
        timestampFormat: flags.timestampFormat,
        csvDelimiter: format === "csv" ? flags.csvDelimiter : undefined,
        csvFields: flags.csvFields,
        labels: flags.label,
        batchSize: flags.batchSize,
        maxFailures: SHOWN_FAILURES,
        onProgress: (p) => {
          totals.ingested = before.ingested + p.ingested;
          totals.failed = before.failed + p.failed;
          totals.bytesSent = before.bytesSent + p.bytes;
          progress.update({ events: totals.ingested + totals.failed });
        },
      });
    } catch (err) {
      // Earlier batches landed: say how many, so a rerun can be judged.
      const landed =
        totals.ingested > 0 ? ` (${totals.ingested.toLocaleString("en-US")} events had been ingested)` : "";
      if (err instanceof CommandError) throw new CommandError(`${err.message}${landed}`);
      if (err instanceof Error && landed) err.message += landed;
      throw err;
    }
    totals.ingested = before.ingested + summary.ingested;
    totals.failed = before.failed + summary.failed;
    for (const f of summary.failures) if (totals.failures.length < SHOWN_FAILURES) totals.failures.push(f);
  }
  return totals;
}

/** The summary lines: counts, bytes, time, and the first failures with their reasons. */
function summaryText(dataset: string, totals: Totals, ms: number, maxFailures: number | undefined): string {
  const seconds = Math.max(ms / 1000, 0.001);
  const lines = [
    `ingested ${totals.ingested.toLocaleString("en-US")} events into ${dataset}, ${totals.failed.toLocaleString("en-US")} failed; ` +
      `${formatBytes(totals.bytesRead)} read, ${formatBytes(totals.bytesSent)} sent in ${seconds.toFixed(1)} s ` +
      `(${formatBytes(totals.bytesRead / seconds)}/s)`,
  ];
  if (totals.cut) {
    lines.push(
      `stopped reading: more than ${maxFailures} events failed (--max-failures); the rest was not sent`,
    );
  }
  if (totals.failures.length > 0) {
    lines.push(
      totals.failed > totals.failures.length ? `first ${totals.failures.length} failures:` : "failures:",
    );
    for (const f of totals.failures) lines.push(`  ${f.timestamp}  ${f.error}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Adds the `ingest` subcommand. */
export function registerIngestCommand(program: Command): void {
  const command = program
    .command("ingest")
    .description(
      "Stream NDJSON, JSON or CSV files (or standard input) into a dataset, with a summary at the end.",
    )
    .argument("<dataset>", "dataset to ingest into")
    .argument("[files...]", 'files to read, in turn; "-" is standard input (the default when it is piped)')
    .option(
      "--format <format>",
      "ndjson, json or csv (default: from the extension, else the first character)",
    )
    .option(
      "--timestamp-field <field>",
      "field that becomes _time (default: _time, else the time of arrival)",
    )
    .option("--timestamp-format <layout>", "Go-style layout of that field, e.g. 2006-01-02 15:04:05")
    .option(
      "--csv-delimiter <char>",
      'field separator of CSV input (default: ","; "tab" for a tab)',
      delimiter,
    )
    .option(
      "--csv-fields <names>",
      "comma-separated field names of CSV input without a header row (implies --format csv; every line is an event)",
      csvFields,
    )
    .option(
      "--label <name=value>",
      "a label added to every event as a field (repeatable); sent in the X-Axiom-Event-Labels header",
      label,
    )
    .option(
      "--batch-size <n>",
      `events per request (default: ${MAX_BATCH_EVENTS})`,
      integer("--batch-size", 1, MAX_BATCH_EVENTS),
    )
    .option(
      "--max-failures <n>",
      "tolerate up to N failed events (exit 0), and stop reading once more fail (default: fail on any)",
      integer("--max-failures", 0, Number.MAX_SAFE_INTEGER),
    );
  addConnectionOptions(command)
    .addHelpText("after", EXAMPLE)
    .action(
      action("ingest", async (dataset: string, files: string[], flags: IngestFlags): Promise<ExitCode> => {
        if (flags.format !== undefined) inputFormat(flags.format);
        if (flags.csvFields && flags.format !== undefined && inputFormat(flags.format) !== "csv") {
          throw new UsageError(`--csv-fields is for CSV input, but --format is ${flags.format}`);
        }
        if (files.length === 0) {
          if (!stdinIsPiped()) {
            throw new UsageError('no input: name one or more files, or "-" to read standard input');
          }
          files = ["-"];
        }
        if (files.filter((f) => f === "-").length > 1) {
          throw new UsageError('"-" (standard input) can be read only once');
        }
        const client = await connect(flags, { stdinInUse: files.includes("-") });
        const inputs = await openInputs(files).catch(async (err: unknown) => {
          await client.close();
          throw err;
        });
        // A bar with a percentage needs every size; standard input has none.
        const total = inputs.every((i) => i.size !== undefined)
          ? inputs.reduce((sum, i) => sum + (i.size ?? 0), 0)
          : undefined;
        const progress = new Progress(process.stderr, total);
        const started = Date.now();
        try {
          const totals = await ingestAll(client, dataset, inputs, flags, progress);
          progress.stop();
          const allowed = flags.maxFailures ?? 0;
          process.stdout.write(summaryText(dataset, totals, Date.now() - started, flags.maxFailures));
          return totals.failed > allowed ? EXIT.failed : EXIT.ok;
        } finally {
          progress.stop();
          await Promise.all(inputs.map((i) => i.close()));
          await client.close();
        }
      }),
    );
}
