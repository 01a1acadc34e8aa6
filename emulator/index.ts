/**
 * The local emulator of the observability service: `startEmulator(options)` serves the whole API on
 * 127.0.0.1 with documented development tokens. Package export `pulumi-observability/emulator`.
 *
 * The development tokens are published, so they guard nothing: the emulator takes them only on a loopback
 * interface, which no other machine can reach. On any other interface it needs tokens of its own
 * ({@link exposedHostProblem}).
 */
// First: an old Node gets one clear message, not a crash in whatever module needs a newer one.
import "../provider/guard-node";
import { BlockList, isIP, type AddressInfo } from "node:net";
import { createClock, parseDurationMs, parseTimeMs, type ClockKind, type EmulatorClock } from "./clock";
import type { EmulatorContext } from "./context";
import type { EmulatorClockHandle, MonitorRun } from "./alerting/types";
import { Notifications, type OutboxEntry } from "./alerting/notify";
import { MonitorScheduler } from "./alerting/scheduler";
import { parseFaultSpec, type FaultOptions } from "./faults";
import { DEFAULT_INGEST_QUOTA_BYTES, DEFAULT_QUERY_QUOTA, Quota } from "./quota";
import { DEFAULT_QUERY_TIMEOUT_MS } from "./query/budget";
import { COLLECTION_FAMILIES } from "./routes";
import { ensureDataset } from "./routes/datasets";
import { datasetNameRuleProblem } from "../provider/schemas/dataset";
import { createEmulatorServer, type EmulatorStats, type RecordedRequest } from "./server";
import { RecentRuns } from "./console";
import { State } from "./state";
import { EventStore } from "./store/events";
import { Persistence, type RecoveryReport } from "./store/persistence";

export type { FaultOptions } from "./faults";
export type { RecordedRequest, EmulatorStats } from "./server";
export type { RecoveryReport } from "./store/persistence";
export type {
  EmulatorClockHandle,
  MonitorRun,
  RunAlert,
  RunTransition,
  RunValue,
  MonitorRunState,
} from "./alerting/types";
export type { OutboxEntry } from "./alerting/notify";
export type { ClockKind } from "./clock";
export { MAX_BODY_BYTES, MAX_HEADER_BYTES } from "./server";
export { DEFAULT_INGEST_QUOTA_BYTES, DEFAULT_QUERY_QUOTA, QUOTA_EXCEEDED_STATUS } from "./quota";
export { DEFAULT_QUERY_TIMEOUT_MS } from "./query/budget";
export { APL_LIMITS } from "./apl/parser";
export { serveUntilSignal } from "./lifecycle";

/**
 * How long {@link RunningEmulator.close} lets requests in flight finish (a query stops at its next checkpoint and
 * answers 503) before it cuts their connections.
 */
export const CLOSE_GRACE_MS = 250;

/** Development API token accepted when none is configured. Not a secret: the emulator is local. */
export const DEFAULT_TOKEN = "xaat-local-development-token";
/** Development personal access token; it also needs `X-Axiom-Org-Id: local-org` (or `x-service-org-id`). */
export const DEFAULT_PERSONAL_TOKEN = "xapt-local-development-token";
/** The emulator organization's id. */
export const DEFAULT_ORG_ID = "local-org";
/** The port the CLI listens on by default. */
export const DEFAULT_PORT = 8787;

/**
 * The loopback blocks: 127.0.0.0/8 and ::1 (RFC 6890, tables 4 and 17). A BlockList also matches an IPv4-mapped
 * IPv6 address (`::ffff:127.0.0.1`) against the IPv4 block (Node.js docs, `net.BlockList`).
 */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/**
 * Whether listening on `host` keeps the emulator on this machine: a loopback address, or the name `localhost`
 * (which resolves to loopback, RFC 6761 section 6.3). Every other name or address is taken as reachable from
 * elsewhere, `0.0.0.0` and `::` (every interface) included.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost") return true;
  const family = isIP(h);
  return family !== 0 && LOOPBACK.check(h, family === 4 ? "ipv4" : "ipv6");
}

/** How a caller names the token settings in a refusal: the option names, or the CLI's flags. */
export interface TokenSettingNames {
  token: string;
  personalToken: string;
}

/**
 * Why the emulator must not start on `host` with these tokens, or undefined. On a host other machines can reach
 * ({@link isLoopbackHost}), the published development tokens would let anyone in: the API token must be given,
 * and not be {@link DEFAULT_TOKEN}; a personal token is accepted only when given, and not
 * {@link DEFAULT_PERSONAL_TOKEN}. `names` words the message for the caller (options, or the CLI's flags).
 */
export function exposedHostProblem(
  host: string,
  tokens: { token?: string; personalToken?: string },
  names: TokenSettingNames = { token: "`token`", personalToken: "`personalToken`" },
): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  const published =
    tokens.token === undefined || tokens.token === DEFAULT_TOKEN
      ? names.token
      : tokens.personalToken === DEFAULT_PERSONAL_TOKEN
        ? names.personalToken
        : undefined;
  if (published === undefined) return undefined;
  return (
    `refusing to listen on ${host} with the public development tokens: other machines can reach that ` +
    "interface, and those tokens are published with this package, so anyone who reaches it could use them. " +
    `Give a token of your own with ${names.token} (and with ${names.personalToken}, to accept a personal ` +
    "token; without it, personal tokens are off), or listen on a loopback interface (127.0.0.1, ::1, localhost)"
  );
}

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** Port to listen on; 0 picks a free one. Defaults to 8787. */
  port?: number;
  /**
   * Interface to listen on. Defaults to 127.0.0.1. Any interface but a loopback one needs `token` (see
   * {@link exposedHostProblem}).
   */
  host?: string;
  /** API token. Defaults to {@link DEFAULT_TOKEN}, on a loopback interface only. */
  token?: string;
  /**
   * Personal access token (needs `X-Axiom-Org-Id` or `x-service-org-id`). Defaults to {@link DEFAULT_PERSONAL_TOKEN} on a loopback
   * interface; on any other, personal tokens are off unless one is given.
   */
  personalToken?: string;
  /** Organization id. Defaults to {@link DEFAULT_ORG_ID}. */
  orgId?: string;
  /**
   * State file: loaded at start (with its journal replayed); every change is journalled and on disk before its
   * reply is sent, and compacted into the file as the journal grows and on close.
   */
  dataFile?: string;
  /** Journal bytes after which `dataFile`'s journal is compacted (never before it outgrows the file). Default 16 MiB. */
  compactBytes?: number;
  /** Fault injection, as a spec string (see emulator/faults.ts) or parsed options. */
  faults?: string | FaultOptions;
  /** Requests per minute; exceeding it gets 429 with `Retry-After`. Unenforced when unset. */
  rateLimit?: number;
  /**
   * Length of the rate-limit window in ms; defaults to a minute, as the service counts. A shorter window lets a
   * test exhaust `rateLimit` and see it reset in seconds.
   */
  rateLimitWindowMs?: number;
  /**
   * The emulator's one clock (emulator/clock.ts), which monitor runs, rate-limit windows and their
   * `Retry-After`, API tokens' expiry, the quotas' month and queries' `now` all read. `"real"` (the default): the
   * machine's time, monitors run on their own. `"manual"`: time moves only through the handle's `clock.advance` /
   * `clock.to` or `POST /_emulator/clock`, which make the monitor runs that fall due. A function answering ms since
   * the epoch is still taken, as a real clock that reads it (a test holds rate-limit windows or token expiry still).
   */
  clock?: ClockKind | (() => number);
  /** With `clock: "manual"`: where time starts, RFC 3339 or a Date. Defaults to the machine's time at start. */
  now?: string | Date;
  /**
   * Hosts (a name, or name:port) notifications may be sent to besides loopback addresses. Sends to any other host
   * are held and recorded in the outbox, naming why.
   */
  deliverTo?: readonly string[];
  /** Called with every monitor run, on either clock (a manual clock's moves also answer their runs). */
  onMonitorRun?: (run: MonitorRun) => void;
  /**
   * Monthly ingest quota in bytes (gzip-decoded bodies); a request that would pass it gets 430. Reported in
   * `X-IngestLimit-*`. Defaults to {@link DEFAULT_INGEST_QUOTA_BYTES} (the license's 500 GB).
   */
  ingestQuotaBytes?: number;
  /**
   * Monthly query quota, counted in query requests (the service counts GB-hours); past it, 430. Reported in
   * `X-QueryLimit-*`. Defaults to {@link DEFAULT_QUERY_QUOTA}.
   */
  queryQuota?: number;
  /**
   * Largest request body in bytes, on the wire and once gunzipped; larger ones get 413 without being buffered.
   * Defaults to {@link MAX_BODY_BYTES} (32 MiB).
   */
  maxBodyBytes?: number;
  /**
   * Datasets to create at start unless they exist (the service refuses ingest and queries into a dataset that
   * was never created, and so does the emulator). Each name follows the dataset name rule.
   */
  datasets?: readonly string[];
  /**
   * How long one query may run, in ms, before it is stopped and answered 504. Defaults to
   * {@link DEFAULT_QUERY_TIMEOUT_MS}.
   */
  queryTimeoutMs?: number;
  /**
   * Awaited between slices of every running query (a test seam: it shows a query in progress, or holds it there
   * while the test does something else). Queries run without it.
   */
  onQuerySlice?: () => void | Promise<void>;
  /** Keep every received request in `received`. */
  record?: boolean;
  /** Receives one line per request; silent when unset. Tokens are never logged. */
  logger?: (line: string) => void;
}

/** A running emulator. */
export interface RunningEmulator {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  token: string;
  /** Undefined when personal tokens are off (a non-loopback host, none given). */
  personalToken: string | undefined;
  orgId: string;
  /** Every received request when `record` is on (authorization redacted). */
  received: RecordedRequest[];
  stats: EmulatorStats;
  /** With `dataFile`: what the start found in it (snapshot, journal transactions replayed, torn ones skipped). */
  recovery?: RecoveryReport;
  /** The emulator's clock; a manual one is moved from here, answering the monitor runs made. */
  clock: EmulatorClockHandle;
  /** Every notification attempted so far, oldest first (also `GET /_emulator/notifications`). */
  notifications(): readonly OutboxEntry[];
  /**
   * Stops listening; stops every running query (answered 503 at its next checkpoint), lets requests in flight
   * finish for up to {@link CLOSE_GRACE_MS}, closes connections and compacts the data file's journal into it.
   */
  close(): Promise<void>;
}

/** Starts an emulator; resolves once it is listening. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? "127.0.0.1";
  const exposed = exposedHostProblem(host, options);
  if (exposed !== undefined) throw new Error(exposed);
  const token = options.token ?? DEFAULT_TOKEN;
  const personalToken = options.personalToken ?? (isLoopbackHost(host) ? DEFAULT_PERSONAL_TOKEN : undefined);
  const orgId = options.orgId ?? DEFAULT_ORG_ID;
  if (token === "" || personalToken === "") throw new Error("emulator tokens must not be empty");
  if (token === personalToken) throw new Error("the API token and the personal token must differ");
  if (options.rateLimit !== undefined && !(Number.isInteger(options.rateLimit) && options.rateLimit > 0)) {
    throw new Error("rateLimit must be a positive integer (requests per minute)");
  }
  for (const key of [
    "ingestQuotaBytes",
    "queryQuota",
    "maxBodyBytes",
    "rateLimitWindowMs",
    "compactBytes",
    "queryTimeoutMs",
  ] as const) {
    const v = options[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v > 0))
      throw new Error(`${key} must be a positive integer`);
  }
  const clock = createClock(options);
  if (options.onMonitorRun !== undefined && typeof options.onMonitorRun !== "function")
    throw new Error("onMonitorRun: must be a function taking each monitor run");
  const deliverTo = deliverToOption(options.deliverTo);
  const faults = typeof options.faults === "string" ? parseFaultSpec(options.faults) : options.faults;
  for (const name of options.datasets ?? []) {
    const problem = typeof name === "string" ? datasetNameRuleProblem(name) : "must be a string";
    if (problem) throw new Error(`datasets: ${JSON.stringify(name)} ${problem}`);
  }

  const state = new State(COLLECTION_FAMILIES, orgId);
  const store = new EventStore();
  const persistence = options.dataFile
    ? new Persistence(options.dataFile, state, store, {
        compactBytes: options.compactBytes,
        logger: options.logger,
      })
    : undefined;
  const recovery = await persistence?.open();
  const readNow = () => clock.nowMs();
  const quotas = {
    ingest: new Quota(options.ingestQuotaBytes ?? DEFAULT_INGEST_QUOTA_BYTES, readNow),
    query: new Quota(options.queryQuota ?? DEFAULT_QUERY_QUOTA, readNow),
  };
  const shutdown = new AbortController();
  const context: EmulatorContext = {
    state,
    store,
    clock,
    orgId,
    quotas,
    queries: {
      timeoutMs: options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
      signal: shutdown.signal,
      onSlice: options.onQuerySlice,
    },
    changed: () => persistence?.seal(),
    durable: persistence ? () => persistence.durable() : undefined,
  };
  // Datasets and events agree by name: events an older data file holds without a dataset get one.
  for (const name of store.names()) ensureDataset(context, name, true);
  for (const name of options.datasets ?? []) ensureDataset(context, name);
  context.changed();
  await context.durable?.();
  const notifications = new Notifications({ deliverTo, logger: options.logger });
  /** The runs of the clock move under way, collected for its answer; moves take turns, so there is one at most. */
  let collecting: MonitorRun[] | undefined;
  /** The last runs of each monitor, for the console's charts. */
  const recentRuns = new RecentRuns();
  const scheduler = new MonitorScheduler({
    em: context,
    clock,
    notifications,
    onRun: (run) => {
      collecting?.push(run);
      recentRuns.record(run);
      options.onMonitorRun?.(run);
    },
    logger: options.logger,
  });
  let moves: Promise<unknown> = Promise.resolve();
  /** Moves the clock (one move at a time) and answers the runs it made, once their changes are on disk. */
  const move = (go: () => Promise<void>): Promise<MonitorRun[]> => {
    const turn = moves.then(async () => {
      const runs: MonitorRun[] = [];
      collecting = runs;
      try {
        await go();
      } finally {
        collecting = undefined;
      }
      await context.durable?.();
      return runs;
    });
    moves = turn.catch(() => undefined);
    return turn;
  };
  const clockHandle = clockHandleOf(clock, move);
  const { server, received, stats } = createEmulatorServer(context, {
    token,
    personalToken,
    orgId,
    faults,
    rateLimit: options.rateLimit,
    rateLimitWindowMs: options.rateLimitWindowMs,
    clock: () => clock.nowMs(),
    record: options.record ?? false,
    maxBodyBytes: options.maxBodyBytes,
    logger: options.logger,
    control: { clock: clockHandle, notifications },
    // The console at `/` may use the development token by itself only where the emulator takes it: on loopback.
    console: {
      runs: recentRuns,
      developmentToken: token === DEFAULT_TOKEN && isLoopbackHost(host) ? token : undefined,
      isLoopbackHost,
    },
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? DEFAULT_PORT, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    // Nothing was served, so nothing new to save: only the journal's open segment is released.
    await persistence?.close().catch(() => undefined);
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  scheduler.start();

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    token,
    personalToken,
    orgId,
    received,
    stats,
    recovery,
    clock: clockHandle,
    notifications: () => notifications.entries(),
    close() {
      closing ??= (async () => {
        shutdown.abort();
        // No run starts from now on; one under way stops at its query's next checkpoint, its changes saved.
        const stopping = scheduler.stop();
        await new Promise<void>((resolve) => {
          const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
          server.close(() => {
            clearTimeout(cut);
            resolve();
          });
          server.closeIdleConnections();
        });
        await stopping;
        await persistence?.close();
      })();
      return closing;
    },
  };
}

/** `deliverTo` checked: a list of non-empty host names (name or name:port). */
function deliverToOption(value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((h) => typeof h !== "string" || h.trim() === "")) {
    throw new Error(
      'deliverTo: must be a list of host names (name or name:port), e.g. ["hooks.example.com"]',
    );
  }
  return value.map((h: string) => h.trim().toLowerCase());
}

/** The handle's view of the clock: `advance` and `to` move a manual clock and answer the runs made meanwhile. */
function clockHandleOf(
  clock: EmulatorClock,
  move: (go: () => Promise<void>) => Promise<MonitorRun[]>,
): EmulatorClockHandle {
  return {
    kind: clock.kind,
    now: () => new Date(clock.nowMs()),
    advance(spec) {
      const ms = parseDurationMs(spec);
      if (ms === undefined) {
        return Promise.reject(
          new Error(
            `advance: must be a duration such as "90m", "1h30m" or a number of ms, not ${JSON.stringify(spec)}`,
          ),
        );
      }
      return move(() => clock.advance(ms));
    },
    to(time) {
      const ms = parseTimeMs(time);
      if (ms === undefined) {
        return Promise.reject(
          new Error(`to: must be an RFC 3339 time or a Date, not ${JSON.stringify(time)}`),
        );
      }
      return move(() => clock.advanceTo(ms));
    },
  };
}
