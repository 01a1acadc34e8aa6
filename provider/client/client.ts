/** `ObservabilityClient`: the typed entry point, one transport shared by every resource family. */
import type { LegacyQueryRequest, LegacyResult, Match, TabularResult } from "../schemas";
import { ingest, type IngestOptions, type IngestSource, type IngestSummary } from "./ingest";
import { resolveOptions, type ClientOptions } from "./options";
import { paginate, queryApl, queryLegacy, type PaginateOptions, type QueryOptions } from "./query";
import { Annotations } from "./resources/annotations";
import { Dashboards } from "./resources/dashboards";
import { Datasets } from "./resources/datasets";
import { Monitors } from "./resources/monitors";
import { Notifiers } from "./resources/notifiers";
import { Orgs } from "./resources/orgs";
import { Roles } from "./resources/roles";
import { StarredQueries } from "./resources/starred-queries";
import { Views } from "./resources/views";
import { Groups } from "./resources/groups";
import { Users } from "./resources/users";
import { VirtualFields } from "./resources/virtual-fields";
import { Tokens } from "./resources/tokens";
import { Transport, type RequestOptions } from "./transport";

/** Builds the one transport. {@link ObservabilityClient}'s fields are initialized after this constructor has run,
 * so each resource family there is one line over `this.transport`. */
abstract class ClientBase {
  protected readonly transport: Transport;

  /** Reads env fallbacks once, validates options, and opens no connection until the first call. */
  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(resolveOptions(options));
  }
}

/** A client for the service: management resources, ingest and queries over one keep-alive pool. */
export class ObservabilityClient extends ClientBase {
  /** Annotations on dataset charts. */
  readonly annotations = new Annotations(this.transport);
  /** Monitors and their alert history. */
  readonly monitors = new Monitors(this.transport);
  /** Notification channels. */
  readonly notifiers = new Notifiers(this.transport);
  /** RBAC roles. */
  readonly roles = new Roles(this.transport);
  /** Organizations. */
  readonly orgs = new Orgs(this.transport);
  /** Saved APL queries. */
  readonly starredQueries = new StarredQueries(this.transport);
  /** Views: saved APL queries, addressed by name. */
  readonly views = new Views(this.transport);
  /** RBAC groups. */
  readonly groups = new Groups(this.transport);
  /** The organization's users and their roles, and the caller. */
  readonly users = new Users(this.transport);
  /** Datasets' virtual fields. */
  readonly virtualFields = new VirtualFields(this.transport);
  /** API tokens: create, regenerate, delete (no update). */
  readonly tokens = new Tokens(this.transport);
  /** Dashboards, addressed by uid. */
  readonly dashboards = new Dashboards(this.transport);
  /** Datasets, their fields and map fields, trim and vacuum. */
  readonly datasets = new Datasets(this.transport);

  /** Retries made so far by this client (all calls); see also `retry.onRetry`. */
  get retryCount(): number {
    return this.transport.retries;
  }

  /** Sends events to a dataset in gzip batches of at most 10,000 and returns the summed result.
   * @see POST /v1/datasets/{dataset_name}/ingest */
  ingest(dataset: string, events: IngestSource, options?: IngestOptions): Promise<IngestSummary> {
    return ingest(this.transport, dataset, events, options);
  }

  /** Runs one APL query and returns one page.
   * @see POST /v1/datasets/_apl */
  query(apl: string, options: QueryOptions & { format: "tabular" }): Promise<TabularResult>;
  query(apl: string, options?: QueryOptions & { format?: "legacy" }): Promise<LegacyResult>;
  query(apl: string, options?: QueryOptions): Promise<LegacyResult | TabularResult>;
  query(apl: string, options: QueryOptions = {}): Promise<LegacyResult | TabularResult> {
    return queryApl(this.transport, apl, options);
  }

  /** Runs one query on the legacy endpoint and returns one page.
   * @see POST /v1/datasets/{dataset_name}/query */
  queryLegacy(dataset: string, request: LegacyQueryRequest, options?: RequestOptions): Promise<LegacyResult> {
    return queryLegacy(this.transport, dataset, request, options);
  }

  /** Every row of an APL query over all pages. Timestamp paging by default; `mode: "cursor"` is a preview
   * of the service's cursor paging. `sort by _time` and `limit` are appended to the APL when absent.
   * @see POST /v1/datasets/_apl */
  paginate(apl: string, options: PaginateOptions): AsyncIterable<Match> {
    return paginate(this.transport, apl, options);
  }

  /** Closes the connection pool the client created (an injected dispatcher is left open). */
  close(): Promise<void> {
    return this.transport.close();
  }
}
