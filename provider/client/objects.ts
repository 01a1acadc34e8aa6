/**
 * The objects the client sends and receives, as plain types: what `pulumi-observability` exports as the `api`
 * namespace (`api.Monitor` is a monitor as the service returns it). Each is declared once, in provider/schemas;
 * the build (scripts/build-typings.mts) replaces this file's typings with the expanded object types, so the
 * package's root typings never reach zod, whose own typings do not compile under a default TypeScript setup.
 */
export type {
  Annotation,
  AnnotationCreate,
  AnnotationUpdate,
  Dataset,
  DatasetCreate,
  DatasetField,
  DatasetFieldUpdate,
  DatasetUpdate,
  EdgeDeployment,
  MapField,
  TrimOptions,
  IngestResult,
  LegacyQueryRequest,
  LegacyResult,
  Match,
  Monitor,
  MonitorCreate,
  MonitorHistoryEntry,
  MonitorUpdate,
  Notifier,
  NotifierCreate,
  NotifierProperties,
  NotifierUpdate,
  Org,
  OrgUpdate,
  Role,
  RoleCreate,
  RoleUpdate,
  StarredQuery,
  StarredQueryCreate,
  StarredQueryListParams,
  StarredQueryUpdate,
  TabularResult,
} from "../schemas";
