/**
 * `pulumi-observability`: Pulumi dynamic resources for the observability service, and the typed API client they
 * use. This root is the public surface: every resource with its Args and output types, the client with its
 * options and errors, and the service's object types under `api` (`api.Monitor`, since the resource class owns
 * the name `Monitor`). The emulator, the zod schemas and the dynamic-provider entry point are subpath exports:
 * `pulumi-observability/emulator`, `/schemas` and `/dynamic`.
 */
// First: checks Node.js and @pulumi/pulumi before undici or the SDK load, so an unsupported runtime gets one
// clear message instead of a crash deep inside a dependency.
import "./guard";

// The resources, their Args and output types: every kind registered in provider/resources/index.ts.
export * from "./resources";
// Components: resources made of the kinds above.
export {
  Slo,
  type SloArgs,
  type SloAlertWindowArgs,
  type SloEventsArgs,
  type SloLatencyArgs,
  type SloSeverity,
} from "./slo/component";
// Lookups of objects the program does not manage: getX, getXOutput and the plural getXs, for every kind.
export {
  getAnnotation,
  getAnnotationOutput,
  getAnnotations,
  getMonitor,
  getMonitorOutput,
  getMonitors,
  getNotifier,
  getNotifierOutput,
  getNotifiers,
  getOrganization,
  getOrganizationOutput,
  getOrganizations,
  getRole,
  getRoleOutput,
  getRoles,
  getStarredQueries,
  getStarredQuery,
  getStarredQueryOutput,
  getView,
  getViewOutput,
  getViews,
  getGroup,
  getGroupOutput,
  getGroups,
  getUser,
  getUserOutput,
  getUsers,
  getVirtualField,
  getVirtualFieldOutput,
  getVirtualFields,
  getApiToken,
  getApiTokenOutput,
  getApiTokens,
  getDashboard,
  getDashboardOutput,
  getDashboards,
  getDataset,
  getDatasetOutput,
  getDatasets,
  type LookupArgs,
  type LookupInputs,
  type NotifierChannelsWithoutCredentials,
  type NotifierWithoutCredentials,
  type VirtualFieldLookupArgs,
} from "./lookups";

export {
  ObservabilityClient,
  ApiError,
  AbortError,
  BadRequestError,
  ConfigError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  PreconditionFailedError,
  QuotaExceededError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnprocessableEntityError,
  PathParameterError,
  PaginationStalledError,
  MAX_BATCH_EVENTS,
} from "./client";
export type {
  ClientOptions,
  RetryOptions,
  RetryEvent,
  RequestOptions,
  RequestInfo,
  IngestOptions,
  IngestProgress,
  IngestSource,
  IngestSummary,
  PaginateOptions,
  QueryOptions,
  AnnotationListParams,
  MonitorHistoryParams,
} from "./client";
export type * as api from "./client/objects";
