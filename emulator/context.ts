/** What every route family shares: the state, the event store and the mutation hook. */
import type { EmulatorClock } from "./clock";
import type { QueryBudgetOptions } from "./query/budget";
import type { Quotas } from "./quota";
import type { EventStoreApi } from "./store/events";
import type { State } from "./state";

/** Shared by every route handler of one emulator. */
export interface EmulatorContext {
  state: State;
  store: EventStoreApi;
  /**
   * The emulator's one clock (emulator/clock.ts): what every handler reads as now (ingest's `_sysTime`, queries'
   * `now`, creation stamps, retention), real or moved by hand.
   */
  clock: EmulatorClock;
  /** The organization id requests are served for. */
  orgId: string;
  /** The ingest and query quotas (`X-IngestLimit-*`, `X-QueryLimit-*`, 430). */
  quotas: Quotas;
  /**
   * Every query's time budget and the emulator's shutdown signal (emulator/query/budget.ts); a route passes it to
   * each query it runs, which then yields between slices and stops when over budget or shutting down.
   */
  queries: QueryBudgetOptions;
  /** Call after each request's changes: with `--data`, they become one journal transaction, replayed whole. */
  changed(): void;
  /**
   * With `--data`: undefined when every change made so far is on disk, else a promise that settles once it is.
   * The server waits for it before sending any reply. Unset without `--data`.
   */
  durable?(): Promise<void> | undefined;
}
