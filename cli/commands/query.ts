/** `observability query APL`: runs an APL query and prints its rows as a table, JSON, NDJSON or CSV. */
import { Command } from "commander";
import { PaginationStalledError, tabularRows, type ObservabilityClient } from "../../provider/client";
import { QueryTimeSchema } from "../../provider/schemas/query";
import { addConnectionOptions, connect, TOKEN_HELP, type ConnectionFlags } from "../connection";
import { action, CommandError, UsageError } from "../exit";
import { integer } from "../flags";
import {
  createRowWriter,
  defaultOutputFormat,
  LAYOUT_ROWS,
  OUTPUT_FORMATS,
  outputFormat,
  type RowWriter,
} from "../output";

interface QueryFlags extends ConnectionFlags {
  start: string;
  end: string;
  limit?: number;
  format?: string;
  cursorPaging?: boolean;
}

/** Rows per request when the whole result is walked page by page. */
const PAGE_ROWS = 1000;

/**
 * Queries whose result is not a list of events (an aggregation) or is already cut by the APL itself
 * (`limit`/`take`) are answered in one request; the rest are walked page by page by `_time`.
 */
const ONE_REQUEST = /\|\s*(?:summarize|count|distinct|top|limit|take)\b/i;

const EXAMPLE = `
Output: a table on a terminal, NDJSON otherwise; --format table|json|ndjson|csv chooses. Events are read a
page at a time, so a large result streams; an aggregation (summarize, count, …) or an APL limit is one request.
A table or CSV takes its columns from the first ${LAYOUT_ROWS} rows.

Examples:
  $ observability query "['http-logs'] | where status >= 500" --start now-1h
  $ observability query "['http-logs'] | summarize count() by status" --format csv > by-status.csv
${TOKEN_HELP}`;

/** `--start`/`--end` checked with the schema the client's query request uses. */
function checkTime(flag: string, value: string): void {
  const parsed = QueryTimeSchema.safeParse(value);
  if (!parsed.success)
    throw new UsageError(`${flag} ${JSON.stringify(value)}: ${parsed.error.issues[0].message}`);
}

/** Writes up to `limit` rows of the query; resolves when done or when the reader has gone. */
async function writeRows(
  client: ObservabilityClient,
  apl: string,
  flags: QueryFlags,
  writer: RowWriter,
): Promise<void> {
  const limit = flags.limit ?? Infinity;
  let written = 0;
  if (ONE_REQUEST.test(apl)) {
    const result = await client.query(apl, { startTime: flags.start, endTime: flags.end, format: "tabular" });
    for (const row of tabularRows(result)) {
      if (written++ >= limit || !(await writer.row(row))) break;
    }
    return;
  }
  // Full pages even under a small --limit: timestamp paging stalls when a page holds only rows of one _time.
  const rows = client.paginate(apl, {
    startTime: flags.start,
    endTime: flags.end,
    pageSize: PAGE_ROWS,
    mode: flags.cursorPaging ? "cursor" : "timestamp",
  });
  try {
    // Leaving the loop (limit reached, pipe closed) stops the walk: no further page is requested.
    for await (const match of rows) {
      if (written++ >= limit || !(await writer.row({ _time: match._time, ...match.data }))) break;
    }
  } catch (err) {
    if (err instanceof PaginationStalledError) {
      throw new CommandError(
        `more than ${PAGE_ROWS} rows share one _time, so paging by time cannot move on; rerun with --cursor-paging, or narrow or aggregate the query`,
      );
    }
    throw err;
  }
}

/** Adds the `query` subcommand. */
export function registerQueryCommand(program: Command): void {
  const command = program
    .command("query")
    .description("Run an APL query and print the rows: a table on a terminal, NDJSON otherwise.")
    .argument("<apl>", "the APL query, e.g. \"['http-logs'] | where status >= 500\"")
    .option("--start <time>", "start of the window: RFC 3339 or relative, e.g. now-1h", "now-1h")
    .option("--end <time>", "end of the window: RFC 3339 or relative", "now")
    .option("--limit <n>", "print at most N rows", integer("--limit", 1, Number.MAX_SAFE_INTEGER))
    .option(
      "--cursor-paging",
      `page by row id (a preview of the service's cursor paging), for results where more than ${PAGE_ROWS} rows share one _time`,
    )
    .option("--format <format>", `${OUTPUT_FORMATS.join(", ")} (default: table on a terminal, else ndjson)`);
  addConnectionOptions(command)
    .addHelpText("after", EXAMPLE)
    .action(
      action("query", async (apl: string, flags: QueryFlags) => {
        let format;
        try {
          format =
            flags.format === undefined ? defaultOutputFormat(process.stdout) : outputFormat(flags.format);
        } catch (err) {
          throw new UsageError((err as Error).message.replace(/\.$/, ""));
        }
        if (apl.trim() === "") throw new UsageError("the APL query is empty");
        checkTime("--start", flags.start);
        checkTime("--end", flags.end);
        const client = await connect(flags);
        const writer = createRowWriter(format, process.stdout, (line) =>
          process.stderr.write(`observability query: ${line}\n`),
        );
        try {
          await writeRows(client, apl, flags, writer);
          await writer.end();
        } finally {
          await client.close();
        }
      }),
    );
}
