/** `observability emulator`: serves the whole API locally until Ctrl-C. */
import { Command, InvalidArgumentError } from "commander";
import {
  APL_LIMITS,
  DEFAULT_ORG_ID,
  DEFAULT_PERSONAL_TOKEN,
  DEFAULT_PORT,
  DEFAULT_INGEST_QUOTA_BYTES,
  DEFAULT_QUERY_QUOTA,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_TOKEN,
  MAX_BODY_BYTES,
  MAX_HEADER_BYTES,
  exposedHostProblem,
  serveUntilSignal,
  startEmulator,
  type RecoveryReport,
} from "../../emulator";
import { parseTimeMs } from "../../emulator/clock";
import { parseFaultSpec } from "../../emulator/faults";
import { datasetNameRuleProblem } from "../../provider/schemas/dataset";
import { integer } from "../flags";

function faultSpec(value: string): string {
  try {
    parseFaultSpec(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  return value;
}

/** `--clock`: real or manual. */
function clockFlag(value: string): "real" | "manual" {
  if (value !== "real" && value !== "manual")
    throw new InvalidArgumentError(`must be "real" or "manual", not ${JSON.stringify(value)}`);
  return value;
}

/** `--now`: an RFC 3339 time. */
function nowFlag(value: string): string {
  if (parseTimeMs(value) === undefined)
    throw new InvalidArgumentError(
      `must be an RFC 3339 time such as 2026-01-01T00:00:00Z, not ${JSON.stringify(value)}`,
    );
  return value;
}

/** One `--deliver-to` host (name or name:port), added to those before it. */
function deliverToFlag(value: string, previous: string[] = []): string[] {
  const host = value.trim();
  if (host === "" || /[\s/]/.test(host))
    throw new InvalidArgumentError(`must be a host name or name:port, not ${JSON.stringify(value)}`);
  return [...previous, host];
}

/** One `--dataset` value added to those before it; a name the dataset name rule refuses is a usage error. */
function datasetFlag(value: string, previous: string[] = []): string[] {
  const problem = datasetNameRuleProblem(value);
  if (problem) throw new InvalidArgumentError(`dataset name ${JSON.stringify(value)} ${problem}`);
  return [...previous, value];
}

const FAULTS_HELP = `
Datasets (--dataset NAME, repeatable): created at start unless they exist (with --data, they may). Ingest and
  queries into a dataset that was never created answer 404, as the service does; create datasets with this flag,
  POST /v2/datasets, or a Dataset resource.

Fault spec (--faults): comma-separated kind=rate pairs, rates are per-request probabilities from a seeded PRNG:
  429=R 500=R 502=R 503=R drop=R   decided before processing: the request has no effect
                                   (429 carries Retry-After: 1; drop closes the connection without a response)
  500after=R                       the request IS processed, then answered with 500 ("maybe processed")
  latency=R:MS                     adds MS milliseconds of delay to a fraction R of requests
  seed=N                           PRNG seed (default 1); the same seed gives the same faults
  e.g. --faults 429=0.05,500=0.02,502=0.02,503=0.02,drop=0.01,latency=0.1:50,seed=42

Data file (--data FILE): FILE holds a snapshot; FILE.journal.N the changes since, one line per request, each
  synced to disk before its reply, so a 2xx is never lost, not even to kill -9. The journal is compacted into
  FILE as it grows and on exit. A start replays it; a torn last line (a write never acknowledged) is skipped
  and counted in the banner.

Rate limit (--rate-limit N): N requests per window of a minute, then 429 with Retry-After; X-RateLimit-Limit,
  -Remaining and -Reset report the window. Without it nothing is limited and those three headers are not sent.

Quotas (--ingest-quota, --query-quota): monthly, per UTC calendar month, in memory only.
  Ingest responses carry X-IngestLimit-Limit/-Remaining/-Reset (bytes, gzip-decoded bodies), query responses
  X-QueryLimit-* (query requests answered 200; the service itself counts GB-hours). A request that would
  pass its quota gets 430 {"code":430,"message":...} and has no effect.
  Defaults: ingest ${DEFAULT_INGEST_QUOTA_BYTES} bytes (the license's 500 GB), query ${DEFAULT_QUERY_QUOTA} queries.

Size limits: a request body over --max-body-bytes (default ${MAX_BODY_BYTES}, 32 MiB), on the wire or once
  gunzipped, gets 413 JSON without being buffered; request headers over ${MAX_HEADER_BYTES} bytes get 431 JSON.
  An APL query over ${APL_LIMITS.maxChars} characters, ${APL_LIMITS.maxTokens} tokens or ${APL_LIMITS.maxDepth} levels of nesting gets 400 naming
  the limit.

Queries run in slices and let other requests through between them. One that runs past --query-timeout (default
  ${DEFAULT_QUERY_TIMEOUT_MS} ms) gets 504; one running when the emulator stops gets 503.

Monitors run (--clock, --now, --deliver-to): every enabled monitor runs every intervalMinutes over its window,
  opening and closing alerts (GET /v2/monitors/{id}/history) and notifying its notifiers. --clock real (the
  default) runs them as time passes. --clock manual holds time still (at --now, an RFC 3339 time, or the start
  time) until POST /_emulator/clock moves it: {"advance":"90m"} or {"to":"2026-01-01T12:00:00Z"} makes every run
  that falls due, in time order, and answers them; GET /_emulator/clock reads it. Notifications go only to
  loopback addresses unless --deliver-to names the host (repeatable); others are held and recorded in the outbox,
  GET /_emulator/notifications.

Development defaults (published here, so not secrets), taken on a loopback host only (127.0.0.1, ::1,
localhost):
  API token            ${DEFAULT_TOKEN}
  personal token       ${DEFAULT_PERSONAL_TOKEN}  (also send X-Axiom-Org-Id or x-service-org-id: ${DEFAULT_ORG_ID})
On any other host (0.0.0.0 and :: included) other machines can reach the emulator: it starts only with
  --token of your own, and takes personal tokens only with a --personal-token of your own.
`;

/** The banner's account of what a start found in the data file. */
function describeRecovery(r: RecoveryReport | undefined): string {
  if (!r || (!r.snapshot && r.replayed === 0 && r.skipped === 0)) return "new";
  const torn = r.skipped === 1 ? "1 torn entry" : `${r.skipped} torn entries`;
  return `loaded; ${r.replayed} journal entries replayed, ${torn} skipped`;
}

interface EmulatorFlags {
  port: number;
  host: string;
  token?: string;
  personalToken?: string;
  orgId?: string;
  data?: string;
  compactBytes?: number;
  faults?: string;
  rateLimit?: number;
  ingestQuota?: number;
  queryQuota?: number;
  maxBodyBytes?: number;
  queryTimeout?: number;
  quiet?: boolean;
  dataset?: string[];
  clock?: "real" | "manual";
  now?: string;
  deliverTo?: string[];
}

/** Adds the `emulator` subcommand. */
export function registerEmulatorCommand(program: Command): void {
  program
    .command("emulator")
    .description("Serve a local emulator of the whole service API until Ctrl-C.")
    .option(
      "--port <port>",
      "port to listen on (0 picks a free port)",
      integer("--port", 0, 65535),
      DEFAULT_PORT,
    )
    .option(
      "--host <host>",
      "interface to listen on; any but a loopback one needs --token (see below)",
      "127.0.0.1",
    )
    .option("--token <token>", `API token to accept (default on a loopback host: ${DEFAULT_TOKEN})`)
    .option(
      "--personal-token <token>",
      `personal access token to accept (default on a loopback host: ${DEFAULT_PERSONAL_TOKEN}; elsewhere none)`,
    )
    .option("--org-id <id>", `organization id (default: ${DEFAULT_ORG_ID})`)
    .option(
      "--data <file>",
      "keep state in this file: every change is journalled and synced before its reply (see below)",
    )
    .option(
      "--compact-bytes <n>",
      "compact the --data journal into the file past N bytes (default 16 MiB, or the file's size if larger)",
      integer("--compact-bytes", 1, Number.MAX_SAFE_INTEGER),
    )
    .option("--faults <spec>", "inject faults; see below", faultSpec)
    .option(
      "--rate-limit <n>",
      "enforce N requests per minute (429 + Retry-After)",
      integer("--rate-limit", 1, 1e9),
    )
    .option(
      "--ingest-quota <bytes>",
      "monthly ingest quota in bytes; past it, 430 (see below)",
      integer("--ingest-quota", 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      "--query-quota <n>",
      "monthly query quota in queries; past it, 430 (see below)",
      integer("--query-quota", 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      "--max-body-bytes <n>",
      "largest request body in bytes; larger gets 413 (see below)",
      integer("--max-body-bytes", 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      "--query-timeout <ms>",
      `how long one query may run before it is stopped and answered 504 (default ${DEFAULT_QUERY_TIMEOUT_MS})`,
      integer("--query-timeout", 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      "--dataset <name>",
      "create this dataset at start unless it exists; repeatable (see below)",
      datasetFlag,
    )
    .option(
      "--clock <kind>",
      "real (default): monitors run as time passes; manual: only when moved (see below)",
      clockFlag,
    )
    .option("--now <time>", "with --clock manual: where time starts, RFC 3339 (default: now)", nowFlag)
    .option(
      "--deliver-to <host...>",
      "hosts notifications may be sent to besides loopback addresses; repeatable (see below)",
      deliverToFlag,
    )
    .option("--quiet", "do not log one line per request")
    .addHelpText("after", FAULTS_HELP)
    .action(async (flags: EmulatorFlags, command: Command) => {
      const exposed = exposedHostProblem(flags.host, flags, {
        token: "--token",
        personalToken: "--personal-token",
      });
      if (exposed !== undefined)
        command.error(`error: ${exposed}`, { exitCode: 2, code: "observability.host" });
      if (flags.now !== undefined && flags.clock !== "manual")
        command.error("error: --now needs --clock manual (a real clock reads the machine's time)", {
          exitCode: 2,
          code: "observability.now",
        });
      const log = (line: string) => process.stdout.write(`${line}\n`);
      const em = await startEmulator({
        port: flags.port,
        host: flags.host,
        token: flags.token,
        personalToken: flags.personalToken,
        orgId: flags.orgId,
        dataFile: flags.data,
        compactBytes: flags.compactBytes,
        faults: flags.faults,
        rateLimit: flags.rateLimit,
        ingestQuotaBytes: flags.ingestQuota,
        queryQuota: flags.queryQuota,
        maxBodyBytes: flags.maxBodyBytes,
        queryTimeoutMs: flags.queryTimeout,
        datasets: flags.dataset,
        clock: flags.clock,
        now: flags.now,
        deliverTo: flags.deliverTo,
        logger: flags.quiet ? undefined : log,
      });
      log(`Observability emulator listening on ${em.url}`);
      // The page asks for a token itself where it may not use the development one (see docs/emulator.md).
      log(`  console:         ${em.url}/ (open it in a browser: datasets, monitors, alerts, notifications)`);
      // A token given on the command line is the user's own, and may guard an emulator other machines reach: it
      // is not printed again. The published defaults are.
      const shown = flags.token ? "<the one given with --token>" : em.token;
      log(`  API token:       ${flags.token ? shown : `${em.token} (development default)`}`);
      if (em.personalToken === undefined) log("  personal token:  off (give --personal-token to accept one)");
      else {
        const personal = flags.personalToken ? "<the one given with --personal-token>" : em.personalToken;
        log(`  personal token:  ${personal}  with header X-Axiom-Org-Id or x-service-org-id: ${em.orgId}`);
      }
      if (flags.data) log(`  data file:       ${flags.data} (${describeRecovery(em.recovery)})`);
      if (flags.dataset) log(`  datasets:        ${flags.dataset.join(", ")}`);
      if (flags.faults) log(`  faults:          ${flags.faults}`);
      if (flags.rateLimit) log(`  rate limit:      ${flags.rateLimit} requests/minute`);
      if (flags.ingestQuota) log(`  ingest quota:    ${flags.ingestQuota} bytes/month`);
      if (flags.queryQuota) log(`  query quota:     ${flags.queryQuota} queries/month`);
      if (em.clock.kind === "manual")
        log(`  clock:           manual, at ${em.clock.now().toISOString()} (move it: POST /_emulator/clock)`);
      if (flags.deliverTo) log(`  deliver to:      ${flags.deliverTo.join(", ")} (and loopback addresses)`);
      log("");
      log("Use it from another shell:");
      log(`  export OBSERVABILITY_URL=${em.url}`);
      log(`  export OBSERVABILITY_TOKEN=${shown}`);
      log("Press Ctrl-C to stop.");
      await serveUntilSignal(em, log, flags.data);
    });
}
