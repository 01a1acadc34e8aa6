/**
 * `pulumi-observability`: Pulumi dynamic resources for the observability service, and the typed API client they
 * use. This root is the public surface: the six resources with their Args and output types, the client with its
 * options and errors, and the service's object types under `api` (`api.Monitor`, since the resource class owns
 * the name `Monitor`). The emulator, the zod schemas and the dynamic-provider entry point are subpath exports:
 * `pulumi-observability/emulator`, `/schemas` and `/dynamic`.
 */
// First: checks Node.js and @pulumi/pulumi before undici or the SDK load, so an unsupported runtime gets one
// clear message instead of a crash deep inside a dependency.
import "./guard";

export { Annotation, type AnnotationArgs } from "./resources/annotation";
export { Monitor, type MonitorArgs, type MonitorOperator, type MonitorType } from "./resources/monitor";
export {
  Notifier,
  type NotifierArgs,
  type NotifierPropertiesArgs,
  type NotifierPropertiesOutput,
  type CustomWebhookChannel,
} from "./resources/notifier";
export {
  OrganizationName,
  type OrganizationNameArgs,
  type OrganizationPaymentStatus,
  type OrganizationPlan,
} from "./resources/organization-name";
export { Role, type RoleArgs, type RoleAction, type CapabilityArgs } from "./resources/role";
export {
  StarredQuery,
  type StarredQueryArgs,
  type StarredQueryRequestArgs,
  type StarredQueryOptionsArgs,
  type StarredQueryRequestOutput,
  type StarredQueryOptionsOutput,
} from "./resources/starred-query";

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
  QuotaExceededError,
  RateLimitError,
  ServerError,
  TimeoutError,
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
