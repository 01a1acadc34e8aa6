/** What every route family shares: the state, the event store and the mutation hook. */
import type { Quotas } from "./quota";
import type { EventStoreApi } from "./store/events";
import type { State } from "./state";

/** Shared by every route handler of one emulator. */
export interface EmulatorContext {
  state: State;
  store: EventStoreApi;
  /** The organization id requests are served for. */
  orgId: string;
  /** The ingest and query quotas (`X-IngestLimit-*`, `X-QueryLimit-*`, 430). */
  quotas: Quotas;
  /** Call after every mutation, so `--data` is written. */
  changed(): void;
}
