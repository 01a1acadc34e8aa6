/** The typed API client: everything public about it. */
export { ObservabilityClient } from "./client";
export type { ClientOptions, RetryOptions, RetryEvent } from "./options";
export type { Clock } from "./clock";
export { REGION_URLS, isLoopback } from "./options";
export type { RequestOptions } from "./transport";
export {
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
  errorFromResponse,
  type RequestInfo,
} from "./errors";
export { path, PathParameterError } from "./path";
export type { IngestOptions, IngestProgress, IngestSource, IngestSummary } from "./ingest";
export { MAX_BATCH_EVENTS } from "./ingest";
export type { PaginateOptions, QueryOptions } from "./query";
export { PaginationStalledError, tabularRows } from "./query";
export type { AnnotationListParams } from "./resources/annotations";
export type { MonitorHistoryParams } from "./resources/monitors";
// The service's objects (api.Monitor, …): listed once, in objects.ts, which the build expands.
export type * from "./objects";
