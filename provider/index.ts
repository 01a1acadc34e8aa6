/**
 * `pulumi-observability`: Pulumi dynamic resources for the observability service, the typed API client they
 * use, and the zod schemas that hold every validation rule. The emulator is `pulumi-observability/emulator`.
 *
 * The resource classes own the plain names (`Monitor`, `Notifier`, ...); the service's object types of the same
 * names are under `schemas` (`schemas.Monitor`), as the client returns them.
 */
export * from "./resources";
export {
  ObservabilityClient,
  REGION_URLS,
  isLoopback,
  ApiError,
  AbortError,
  BadRequestError,
  ConfigError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  QuotaExceededError,
  RateLimitError,
  ServerError,
  TimeoutError,
  PathParameterError,
  PaginationStalledError,
  MAX_BATCH_EVENTS,
  path,
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
export * as schemas from "./schemas";
