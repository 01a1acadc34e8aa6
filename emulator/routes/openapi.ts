/**
 * The OpenAPI 3.1 document of what the emulator serves, served at `GET /openapi.json` and written at build time
 * to `dist/emulator/openapi.json` (scripts/build-openapi.mts).
 *
 * Its operations are the router's own routes (a route without an entry in {@link OPERATIONS}, or an entry without
 * a route, fails the build's test), and its request schemas are the very zod schemas the handlers validate with,
 * turned into JSON Schema by zod 4's `z.toJSONSchema`: the document cannot drift from the rules. Where the emulator
 * knowingly differs from the service's published document (axiomhq/docs `restapi/versions/v2.json`), the
 * operation says so in `x-differs-from-service`; where schemathesis must not run a check on an operation, the
 * reason is in `x-check-exceptions` (scripts/schemathesis.mts reads it).
 */
import { z } from "zod";
import {
  AnnotationCreateSchema,
  AnnotationSchema,
  AnnotationUpdateSchema,
  AplRequestSchema,
  ApiTokenSchema,
  DashboardChartPatchSchema,
  DashboardListSchema,
  DashboardUpsertSchema,
  DatasetCreateSchema,
  DatasetFieldUpdateSchema,
  DatasetSchema,
  DatasetUpdateSchema,
  DateTimeSchema,
  GroupCreateSchema,
  GroupSchema,
  INT64_SCHEMAS,
  LegacyQueryRequestSchema,
  MapFieldSchema,
  MapFieldsSchema,
  MonitorCreateSchema,
  MonitorSchema,
  NotifierCreateSchema,
  NotifierSchema,
  OrgCreateSchema,
  OrgProvisionSchema,
  OrgUpdateSchema,
  QueryFormatSchema,
  QueryTimeSchema,
  RELATIVE_TIME,
  RoleCreateSchema,
  RoleSchema,
  ServerOwnedFieldsSchema,
  StarredQueryCreateSchema,
  StarredQueryListSchema,
  StarredQuerySchema,
  TokenCreateSchema,
  TokenRegenerateSchema,
  TrimSchema,
  UserCreateSchema,
  UserNameUpdateSchema,
  UserRoleUpdateSchema,
  UserSchema,
  ViewCreateSchema,
  ViewSchema,
  VirtualFieldCreateSchema,
  VirtualFieldSchema,
} from "../../provider/schemas";
import { PUBLIC, type RouteAccess } from "../auth";
import { ClockMoveSchema } from "./emulator-control";
import { INVALID_FIELD_STATUS } from "../http";

type JsonSchema = Record<string, unknown>;

/** What the document says of one operation beyond what the router knows. */
export interface OperationSpec {
  summary: string;
  /** The JSON body's schema, as the handler validates it; `"ingest"` for the events formats. */
  body?: z.ZodType | "ingest";
  /** Whether the body may echo the server-owned fields (emulator/routes/common.ts checks, then drops them). */
  echoes?: boolean;
  /** The query string's schema (an object of its parameters). */
  query?: z.ZodObject;
  /** The success status; 200 unless given. */
  ok?: number;
  /** The success body's schema (a response schema of provider/schemas, or JSON Schema); none for a 204. */
  response?: z.ZodType | JsonSchema;
  /** Whether the success body is a list of `response`. */
  list?: boolean;
  /** Statuses beyond those every operation of its shape has (see {@link errorStatuses}). */
  statuses?: number[];
  /** Where the emulator knowingly differs from the published document. */
  differs?: string[];
  /** Spellings of a body field the handler also takes (what official clients send), beyond its schema. */
  alsoTakes?: Record<string, JsonSchema>;
  /** A schemathesis check that must not run on this operation, with the reason. */
  exceptions?: Record<string, string>;
}

/** Every operation, by `METHOD /path/:param` as the router registers it. */
export const OPERATIONS: Record<string, OperationSpec> = {};

const object = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: "object",
  properties,
  ...(required.length > 0 ? { required } : {}),
});

/** One management family's five CRUD operations. */
function crud(
  path: string,
  name: string,
  create: z.ZodType,
  response: z.ZodType,
  options: { update?: z.ZodType; createdStatus?: number; deletable?: boolean } = {},
): void {
  OPERATIONS[`GET ${path}`] = { summary: `List ${name}s`, response, list: true };
  OPERATIONS[`POST ${path}`] = {
    summary: `Create a ${name}`,
    body: create,
    echoes: true,
    ok: options.createdStatus,
    response,
    statuses: [409],
  };
  OPERATIONS[`GET ${path}/:id`] = { summary: `Get a ${name}`, response };
  OPERATIONS[`PUT ${path}/:id`] = {
    summary: `Replace a ${name}`,
    body: options.update ?? create,
    echoes: true,
    response,
    statuses: [409],
  };
  if (options.deletable ?? true) OPERATIONS[`DELETE ${path}/:id`] = { summary: `Delete a ${name}`, ok: 204 };
}

crud("/v2/annotations", "annotation", AnnotationCreateSchema, AnnotationSchema, {
  update: AnnotationUpdateSchema,
  createdStatus: 201,
});
OPERATIONS["GET /v2/annotations"].query = z.object({
  datasets: z.string().optional().describe("dataset names, comma-separated"),
  // Empty (and the zero time) means no bound.
  start: DateTimeSchema.or(z.literal("")).optional(),
  end: DateTimeSchema.or(z.literal("")).optional(),
});

crud("/v2/monitors", "monitor", MonitorCreateSchema, MonitorSchema);
OPERATIONS["GET /v2/monitors/:id/history"] = {
  summary: "A monitor's history: each alert's open and close",
  query: z.object({ startTime: QueryTimeSchema, endTime: QueryTimeSchema }),
  response: object(
    {
      checkId: { type: "string" },
      name: { type: "string" },
      state: { enum: ["open", "closed"] },
      timestamp: { type: "string", format: "date-time" },
    },
    ["checkId", "name", "state", "timestamp"],
  ),
  list: true,
};

// The emulator's own control routes (emulator/routes/emulator-control.ts): not the service's.
const MONITOR_RUN: JsonSchema = object(
  {
    monitorId: { type: "string" },
    monitorName: { type: "string" },
    time: { type: "string", format: "date-time" },
    windowStart: { type: "string", format: "date-time" },
    windowEnd: { type: "string", format: "date-time" },
    state: { enum: ["open", "closed", "ok", "error", "skipped"] },
    values: {
      type: "array",
      items: object({ group: { type: "object" }, value: { type: ["number", "null"] } }, ["group", "value"]),
    },
    error: { type: "string" },
    reason: { type: "string" },
    startedAt: { type: "string", format: "date-time" },
    notifications: { type: "integer", minimum: 0 },
    alerts: {
      type: "array",
      items: object(
        {
          action: { enum: ["Open", "Closed"] },
          groupValues: { type: ["array", "null"], items: { type: "string" } },
          value: { type: ["number", "null"] },
          body: { type: "string" },
        },
        ["action", "groupValues", "value", "body"],
      ),
    },
    suppressed: { type: "integer", minimum: 0 },
  },
  [
    "monitorId",
    "monitorName",
    "time",
    "windowStart",
    "windowEnd",
    "state",
    "values",
    "notifications",
    "alerts",
  ],
);
OPERATIONS["GET /_emulator/clock"] = {
  summary: "The emulator's clock: real or manual, and its now",
  response: object({ kind: { enum: ["real", "manual"] }, now: { type: "string", format: "date-time" } }, [
    "kind",
    "now",
  ]),
};
OPERATIONS["POST /_emulator/clock"] = {
  summary: "Move a manual clock, making the monitor runs that fall due; answers them",
  body: ClockMoveSchema,
  response: object(
    { now: { type: "string", format: "date-time" }, runs: { type: "array", items: MONITOR_RUN } },
    ["now", "runs"],
  ),
  statuses: [409],
  differs: ["the emulator's own route: the service has no clock to move"],
  exceptions: {
    positive_data_acceptance:
      "a valid move is refused 409 on a real clock (the emulator schemathesis runs is one; only a manual clock " +
      "moves), and on a manual clock a `to` before its now is refused 409 too; test/emulator/monitors-run-clock.test.ts " +
      "checks both answers",
  },
};

OPERATIONS["GET /_emulator/notifications"] = {
  summary: "The outbox: every notification the monitors attempted, oldest first",
  query: z.object({
    monitorId: z.string().optional(),
    notifierId: z.string().optional(),
    channel: z.string().optional(),
    action: z.string().optional(),
    outcome: z.string().optional(),
  }),
  response: object(
    {
      id: { type: "string" },
      time: { type: "string", format: "date-time" },
      monitorId: { type: "string" },
      monitorName: { type: "string" },
      notifierId: { type: "string" },
      notifierName: { type: "string" },
      channel: { type: "string" },
      action: { enum: ["Open", "Closed"] },
      groupValues: { type: ["array", "null"], items: { type: "string" } },
      value: { type: ["number", "null"] },
      targetHost: { type: ["string", "null"] },
      outcome: { enum: ["delivered", "held", "failed", "recorded"] },
      status: { type: "integer" },
      reason: { type: "string" },
      request: { type: ["object", "null"] },
      body: {},
    },
    ["id", "time", "monitorId", "notifierId", "channel", "action", "outcome"],
  ),
  list: true,
  differs: ["the emulator's own route: the service has no outbox"],
};

// The live console (emulator/console/): its page and assets are for a browser, its data routes for the page.
const CONSOLE_ASSET: Pick<OperationSpec, "differs" | "exceptions"> = {
  differs: ["the emulator's own console, not the service's API"],
  exceptions: {
    content_type_conformance:
      "the console's page and assets are HTML, CSS and JavaScript for a browser, not the API's JSON; " +
      "test/emulator/console.test.ts checks their types and their Content-Security-Policy",
  },
};
OPERATIONS["GET /"] = { summary: "The live console's page (HTML)", ...CONSOLE_ASSET };
OPERATIONS["GET /favicon.ico"] = { summary: "No icon: an empty answer", ok: 204, ...CONSOLE_ASSET };
OPERATIONS["GET /_emulator/console/app.js"] = { summary: "The console's script", ...CONSOLE_ASSET };
OPERATIONS["GET /_emulator/console/app.css"] = { summary: "The console's styles", ...CONSOLE_ASSET };
const consoleData = (summary: string, response: JsonSchema): OperationSpec => ({
  summary,
  response,
  differs: ["the emulator's own console, not the service's API; the rights of the API route it mirrors"],
});
OPERATIONS["GET /_emulator/console/datasets"] = consoleData(
  "The console's datasets: events, the latest event's time, ingest in the last minute, fields",
  { type: "array", items: { type: "object" } },
);
OPERATIONS["GET /_emulator/console/monitors"] = consoleData(
  "The console's monitors: type, state with open groups, last run, notifiers",
  { type: "array", items: { type: "object" } },
);
OPERATIONS["GET /_emulator/console/monitors/:id"] = consoleData(
  "One monitor for the console: its chart of the last runs, history and runs",
  { type: "object" },
);
OPERATIONS["GET /_emulator/console/notifications"] = consoleData(
  "The console's outbox: the newest notifications first, as the outbox answers them",
  object({ total: { type: "integer" }, entries: { type: "array", items: { type: "object" } } }, [
    "total",
    "entries",
  ]),
);

crud("/v2/notifiers", "notifier", NotifierCreateSchema, NotifierSchema);
// provider/schemas/monitor.ts and notifier.ts `tolerateClientSpellings`: an empty string is how Go and
// Terraform clients send "unset" for these.
for (const key of ["POST /v2/monitors", "PUT /v2/monitors/:id"])
  OPERATIONS[key].alsoTakes = { disabledUntil: { const: "" }, operator: { const: "" } };
for (const key of ["POST /v2/notifiers", "PUT /v2/notifiers/:id"])
  OPERATIONS[key].alsoTakes = { disabledUntil: { const: "" } };
OPERATIONS["POST /v2/notifiers"].differs = [
  "`properties.*.disabledUntil` may be null here (the provider's unset value); the document types it a date-time",
];
crud("/v2/rbac/roles", "role", RoleCreateSchema, RoleSchema);
crud("/v2/apl-starred-queries", "starred query", StarredQueryCreateSchema, StarredQuerySchema);
OPERATIONS["GET /v2/apl-starred-queries"].query = StarredQueryListSchema;
crud("/v2/views", "view", ViewCreateSchema, ViewSchema);
crud("/v2/rbac/groups", "group", GroupCreateSchema, GroupSchema);
crud("/v2/vfields", "virtual field", VirtualFieldCreateSchema, VirtualFieldSchema);
OPERATIONS["GET /v2/vfields"].query = z.object({ dataset: z.string().min(1) });

crud("/v2/orgs", "organization", OrgCreateSchema, z.looseObject({ id: z.string(), name: z.string() }), {
  update: OrgUpdateSchema,
  deletable: false,
});
OPERATIONS["POST /v2/orgs"].differs = [
  "the new organization is a record: requests are still served from the emulator's one organization's data",
];
OPERATIONS["POST /v2/orgs/provision"] = {
  summary: "Provision a temporary organization",
  body: OrgProvisionSchema,
  response: object(
    Object.fromEntries(
      ["id", "name", "defaultEdgeDeployment", "expiresAt", "claimUrl", "token"].map((k) => [
        k,
        { type: "string" },
      ]),
    ),
    ["id", "name", "defaultEdgeDeployment", "expiresAt", "claimUrl", "token"],
  ),
  differs: [
    "the organization is a record and its token works on the emulator's one organization; it is not deleted at " +
      "expiresAt (only its token stops working), and claimUrl leads nowhere",
  ],
};

crud("/v2/users", "user", UserCreateSchema, UserSchema, { update: UserNameUpdateSchema });
OPERATIONS["PUT /v2/users/:id"].differs = [
  "not in the document: axiom-go `Users.Update` and terraform-provider-axiom send it, so the service serves it " +
    "(it renames only)",
];
OPERATIONS["PUT /v2/users/:id/role"] = {
  summary: "Set a user's role",
  body: UserRoleUpdateSchema,
  response: UserSchema,
};
OPERATIONS["GET /v2/user"] = { summary: "The caller", response: UserSchema };
OPERATIONS["GET /v1/user"] = { summary: "The caller (v1)", response: UserSchema };
OPERATIONS["PUT /v2/user"] = {
  summary: "Rename the caller",
  body: UserNameUpdateSchema,
  response: UserSchema,
};

OPERATIONS["GET /v2/tokens"] = { summary: "List API tokens", response: ApiTokenSchema, list: true };
OPERATIONS["POST /v2/tokens"] = {
  summary: "Create an API token",
  body: TokenCreateSchema,
  response: ApiTokenSchema,
};
OPERATIONS["GET /v2/tokens/:id"] = { summary: "Get an API token", response: ApiTokenSchema };
OPERATIONS["DELETE /v2/tokens/:id"] = { summary: "Delete an API token", ok: 204 };
OPERATIONS["POST /v2/tokens/:id/regenerate"] = {
  summary: "Regenerate an API token",
  body: TokenRegenerateSchema,
  response: ApiTokenSchema,
};

const dashboardWrite = object({ status: { type: "string" }, dashboard: { type: "object" } }, ["dashboard"]);
OPERATIONS["GET /v2/dashboards"] = {
  summary: "List dashboards",
  query: DashboardListSchema,
  response: object({}),
  list: true,
};
OPERATIONS["POST /v2/dashboards"] = {
  summary: "Create a dashboard",
  body: DashboardUpsertSchema,
  ok: 201,
  response: dashboardWrite,
  statuses: [200, 409, 412],
};
OPERATIONS["GET /v2/dashboards/uid/:uid"] = { summary: "Get a dashboard", response: object({}) };
OPERATIONS["PUT /v2/dashboards/uid/:uid"] = {
  summary: "Replace a dashboard",
  body: DashboardUpsertSchema,
  response: dashboardWrite,
  statuses: [201, 412],
};
OPERATIONS["DELETE /v2/dashboards/uid/:uid"] = { summary: "Delete a dashboard", ok: 204 };
OPERATIONS["PATCH /v2/dashboards/uid/:uid/charts/:chartId"] = {
  summary: "Patch one chart of a dashboard",
  body: DashboardChartPatchSchema,
  response: dashboardWrite,
  statuses: [412],
};

for (const v of ["v1", "v2"]) {
  crud(`/${v}/datasets`, "dataset", DatasetCreateSchema, DatasetSchema, { update: DatasetUpdateSchema });
  OPERATIONS[`POST /${v}/datasets/:id/trim`] = {
    summary: "Trim a dataset",
    body: TrimSchema,
    response: object({}),
  };
}
OPERATIONS["POST /v2/datasets"].statuses = [409];
OPERATIONS["POST /v1/datasets"].statuses = [409];
OPERATIONS["POST /v2/datasets/:id/vacuum"] = { summary: "Vacuum a dataset", response: object({}) };
OPERATIONS["GET /v2/datasets/:id/fields"] = {
  summary: "A dataset's fields",
  response: object({}),
  list: true,
};
OPERATIONS["GET /v2/datasets/:id/fields/:field"] = {
  summary: "One field of a dataset",
  response: object({}),
};
OPERATIONS["PUT /v2/datasets/:id/fields/:field"] = {
  summary: "Describe one field of a dataset",
  body: DatasetFieldUpdateSchema,
  response: object({}),
};
OPERATIONS["GET /v2/datasets/:id/mapfields"] = {
  summary: "A dataset's map fields",
  response: { type: "string" },
  list: true,
};
OPERATIONS["PUT /v2/datasets/:id/mapfields"] = {
  summary: "Set a dataset's map fields",
  body: MapFieldsSchema,
  response: { type: "string" },
  list: true,
};
OPERATIONS["POST /v2/datasets/:id/mapfields"] = {
  summary: "Add a map field",
  body: MapFieldSchema,
  response: object({}),
};
OPERATIONS["DELETE /v2/datasets/:id/mapfields/:name"] = { summary: "Remove a map field", ok: 204 };

OPERATIONS["POST /v1/datasets/:name/ingest"] = {
  summary: "Ingest events",
  body: "ingest",
  query: z.object({
    "timestamp-field": z.string().optional(),
    "timestamp-format": z.string().optional(),
    "csv-delimiter": z.string().optional(),
  }),
  response: object({ ingested: { type: "integer" }, failed: { type: "integer" } }, ["ingested", "failed"]),
  statuses: [430],
};
OPERATIONS["POST /v1/datasets/_apl"] = {
  summary: "Run an APL query",
  body: AplRequestSchema,
  query: z.object({ format: QueryFormatSchema.optional() }),
  response: object({}),
  // 404: the query names a dataset that does not exist.
  statuses: [404, 430],
};
OPERATIONS["POST /v1/datasets/:name/query"] = {
  summary: "Run a legacy query",
  body: LegacyQueryRequestSchema,
  // axiom-go's zero value: `limit: 0` is the default page (provider/schemas/query.ts).
  alsoTakes: { limit: { const: 0 } },
  response: object({}),
  statuses: [430],
};
OPERATIONS["GET /openapi.json"] = { summary: "This document", response: object({}) };

/**
 * Operations where a body valid by its JSON Schema may still be refused with a 422 (or a 400), for a rule JSON
 * Schema cannot state: schemathesis's `positive_data_acceptance` does not run on them, for this reason. Every
 * other check does, and the rules themselves have their tests (test/emulator/management-rules.test.ts, …).
 */
const NOT_IN_JSON_SCHEMA: [keys: string[], reason: string][] = [
  [
    ["POST /v2/monitors", "PUT /v2/monitors/:id"],
    "cross-field rules: `operator` and `threshold` are required when `type` is Threshold, and so on",
  ],
  [["POST /v2/notifiers", "PUT /v2/notifiers/:id"], "`properties` must configure exactly one channel"],
  [
    ["POST /v1/datasets", "POST /v2/datasets", "POST /v2/orgs", "POST /v2/orgs/provision"],
    "`edgeDeployment` must be one of the organization's edge deployments",
  ],
  [
    ["POST /v1/datasets/:id/trim", "POST /v2/datasets/:id/trim"],
    "`maxDuration` must be a Go duration (`1h30m`)",
  ],
  [["POST /v2/rbac/groups", "PUT /v2/rbac/groups/:id"], "each of `roles` must name an existing role"],
  [["POST /v2/users", "PUT /v2/users/:id/role"], "`role` must name a built-in role or an existing one"],
  [["POST /v2/vfields", "PUT /v2/vfields/:id"], "`dataset` must name an existing dataset"],
  [
    ["POST /v2/dashboards", "PUT /v2/dashboards/uid/:uid", "PATCH /v2/dashboards/uid/:uid/charts/:chartId"],
    "the layout must name the document's charts, and each chart kind has its own fields",
  ],
  [["POST /v1/datasets/_apl"], "`apl` must be an APL query that parses"],
  [["POST /v1/datasets/:name/query"], "`startTime` must not be after `endTime`"],
  [["PUT /v2/views/:id"], "`name` must be the view's name in the path (a view's name is its id)"],
  [["POST /v1/datasets/:name/ingest"], "a text/csv body must be CSV (RFC 4180 quoting), or it is a 400"],
];
for (const [keys, reason] of NOT_IN_JSON_SCHEMA) {
  for (const key of keys) {
    const spec = OPERATIONS[key];
    if (!spec) throw new Error(`x-check-exceptions names ${key}, which is not an operation`);
    spec.exceptions = { ...spec.exceptions, positive_data_acceptance: reason };
  }
}

/**
 * Checks that do not run at all, with the reason (scripts/schemathesis.mts turns them off). schemathesis 4.32's
 * `missing_required_header` expects a 401 for a missing `Authorization`, whatever its configuration says
 * (specs/openapi/checks.py); the only header our document requires is that one.
 */
export const GLOBAL_CHECK_EXCEPTIONS: Record<string, string> = {
  missing_required_header:
    "a request without Authorization is a 403 here, as the project's spec decides (the published document names " +
    "401 once, on v1); schemathesis expects 401 for that header and cannot be told otherwise, and Authorization " +
    "is the only header the document requires. test/emulator/auth.test.ts checks the 403.",
};

/** The `{code, message}` body of every refusal (dashboards answer a word as their `code`). */
const ERROR_BODY: JsonSchema = object(
  { code: { type: ["integer", "string"] }, message: { type: "string" } },
  ["code", "message"],
);

/** Every response carries the trace id under both names (emulator/server.ts). */
const TRACE_HEADERS: JsonSchema = {
  "X-Axiom-Trace-Id": { required: true, schema: { type: "string" } },
  "X-Trace-Id": { required: true, schema: { type: "string" } },
};

/** Words for the statuses the document lists. */
const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  204: "No Content",
  400: "Bad request: a malformed body or query parameter",
  403: "Forbidden: no token, a wrong one, or one without the capability (our spec: 403, not the 401 the document names)",
  404: "Not found",
  409: "Conflict",
  412: "Version mismatch",
  413: "Request body too large",
  415: "Unsupported Content-Type or Content-Encoding",
  422: "A body field missing or invalid (the service's live answer; the document omits it)",
  429: "Rate limited (with --rate-limit)",
  430: "Monthly quota exceeded",
};

/** The error statuses an operation has by its shape: a body, a query string, a path parameter, authentication. */
function errorStatuses(pattern: string, spec: OperationSpec, open: boolean): number[] {
  const out = new Set<number>([413, 429]);
  if (!open) out.add(403);
  if (spec.body) [400, 415, INVALID_FIELD_STATUS].forEach((s) => out.add(s));
  if (spec.query) out.add(400);
  // A path parameter names something that may not exist; ingest and queries name a dataset.
  if (pattern.includes("/:")) out.add(404);
  if (pattern.includes("/:")) out.add(400);
  for (const s of spec.statuses ?? []) out.add(s);
  return [...out].sort((a, b) => a - b);
}

/** JSON Schema of a request schema: the input the handler accepts, int64s and times as the document types them. */
export function requestJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      const bounds = INT64_SCHEMAS.get(zodSchema);
      if (bounds) {
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
        // zod copies its result through JSON, which holds no bigint: marked here, made bigints again below, and
        // written as their exact digits (emulator/http/exact-json.ts).
        Object.assign(jsonSchema, {
          type: "integer",
          format: "int64",
          minimum: `${BIGINT_MARK}${bounds.min}`,
          maximum: `${BIGINT_MARK}${bounds.max}`,
        });
      } else if (zodSchema === DateTimeSchema) {
        Object.assign(jsonSchema, { format: "date-time" });
      } else if (zodSchema === QueryTimeSchema) {
        delete (jsonSchema as JsonSchema).type;
        Object.assign(jsonSchema, {
          anyOf: [
            { type: "string", format: "date-time" },
            { type: "string", pattern: RELATIVE_TIME.source },
          ],
        });
      }
    },
  }) as JsonSchema;
  delete json.$schema;
  return withBigints(json) as JsonSchema;
}

const BIGINT_MARK = "\u0000bigint:";

/** `value` with every {@link BIGINT_MARK}ed string a bigint again. */
function withBigints(value: unknown): unknown {
  if (typeof value === "string" && value.startsWith(BIGINT_MARK))
    return BigInt(value.slice(BIGINT_MARK.length));
  if (Array.isArray(value)) return value.map(withBigints);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withBigints(v)]));
  return value;
}

/**
 * The response schema, from the client's response schema: loose, as a response may carry more than it promises,
 * and an optional field may be null, which the client reads as absent (provider/schemas/common.ts
 * `absentWhenUnset`; a token without expiry answers `"expiresAt": null`).
 */
function responseJsonSchema(schema: z.ZodType | JsonSchema): JsonSchema {
  if (!(schema instanceof z.ZodType)) return schema;
  const json = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return optionalMayBeNull(json) as JsonSchema;
}

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const SUBSCHEMA = new Set(["items", "additionalProperties", "not", "contains", "propertyNames"]);
const SUBSCHEMA_LISTS = new Set(["anyOf", "allOf", "oneOf", "prefixItems"]);
const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions"]);

/**
 * `schema` with every optional property, and every map entry, allowed to be null: how both sides read "unset"
 * (provider/schemas/common.ts `absentWhenUnset`: the emulator drops such a null from a request, the client from
 * a response). It walks schemas by their keywords: a `properties` map is names to schemas, never a schema itself
 * (a field may be called `properties`, as a notifier's is).
 */
export function optionalMayBeNull(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA.has(key)) out[key] = optionalMayBeNull(value);
    else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(optionalMayBeNull);
    else if (SUBSCHEMA_MAPS.has(key) && typeof value === "object" && value !== null)
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, optionalMayBeNull(v)]));
    else out[key] = value;
  }
  if (typeof out.properties === "object" && out.properties !== null) {
    const required = new Set((out.required as string[] | undefined) ?? []);
    const properties = out.properties as Record<string, JsonSchema>;
    for (const [k, v] of Object.entries(properties)) if (!required.has(k)) properties[k] = nullable(v);
  }
  const entries = out.additionalProperties;
  if (typeof entries === "object" && entries !== null && Object.keys(entries).length > 0)
    out.additionalProperties = nullable(entries as JsonSchema);
  return out;
}

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });

/** The body schema, with the server-owned fields a body may echo when the route takes them. */
function bodySchema(spec: OperationSpec): JsonSchema {
  if (spec.body === "ingest") return {};
  const json = optionalMayBeNull(requestJsonSchema(spec.body as z.ZodType)) as JsonSchema;
  if (json.type !== "object") return json;
  const properties = { ...(json.properties as Record<string, JsonSchema>) };
  for (const [k, also] of Object.entries(spec.alsoTakes ?? {}))
    properties[k] = { anyOf: [properties[k] ?? {}, also] };
  const echoed = spec.echoes ? (requestJsonSchema(ServerOwnedFieldsSchema).properties as JsonSchema) : {};
  return { ...json, properties: { ...echoed, ...properties } };
}

/** The route of the router's list that an operation is about. */
export interface RouteInfo {
  method: string;
  pattern: string;
  access?: RouteAccess;
}

/** `/v2/monitors/:id` as OpenAPI writes it, `/v2/monitors/{id}`. */
export const openApiPath = (pattern: string) => pattern.replace(/:([A-Za-z]+)/g, "{$1}");

/** The document for these routes; a route without an entry in {@link OPERATIONS} is an Error naming it. */
export function openApiDocument(routes: readonly RouteInfo[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const key = `${route.method} ${route.pattern}`;
    const spec = OPERATIONS[key];
    if (!spec)
      throw new Error(`the OpenAPI document has no entry for the route ${key} (emulator/routes/openapi.ts)`);
    const open = route.access === PUBLIC;
    const parameters: unknown[] = [];
    for (const m of route.pattern.matchAll(/:([A-Za-z]+)/g)) {
      parameters.push({ name: m[1], in: "path", required: true, schema: { type: "string" } });
    }
    if (spec.query) {
      const json = requestJsonSchema(spec.query);
      const required = new Set((json.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((json.properties as Record<string, JsonSchema>) ?? {})) {
        const { default: _default, ...rest } = schema;
        parameters.push({ name, in: "query", required: required.has(name), schema: rest });
      }
    }
    const ok = spec.ok ?? 200;
    const responses: Record<string, unknown> = {};
    const success =
      spec.response === undefined || ok === 204
        ? undefined
        : spec.list
          ? { type: "array", items: responseJsonSchema(spec.response) }
          : responseJsonSchema(spec.response);
    responses[String(ok)] = {
      description: STATUS_TEXT[ok] ?? "OK",
      headers: TRACE_HEADERS,
      ...(success ? { content: { "application/json": { schema: success } } } : {}),
    };
    for (const status of errorStatuses(route.pattern, spec, open)) {
      if (responses[String(status)]) continue;
      const body = status >= 400 ? ERROR_BODY : success;
      responses[String(status)] = {
        description: STATUS_TEXT[status] ?? String(status),
        headers:
          status === 429
            ? { ...TRACE_HEADERS, "Retry-After": { schema: { type: "string" } } }
            : TRACE_HEADERS,
        ...(body ? { content: { "application/json": { schema: body } } } : {}),
      };
    }
    const operation: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.pattern.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? "").toUpperCase())}`,
      summary: spec.summary,
      ...(open ? { security: [] } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      responses,
      ...(spec.differs ? { "x-differs-from-service": spec.differs } : {}),
      ...(spec.exceptions ? { "x-check-exceptions": spec.exceptions } : {}),
    };
    if (spec.body) {
      operation.requestBody = {
        // No events is an empty batch: ingest takes an empty body.
        required: spec.body !== "ingest",
        content:
          spec.body === "ingest"
            ? {
                // Any bytes: what is not an event of the format is counted in `failed`, not refused (but CSV
                // must parse: its exception below).
                "application/x-ndjson": { schema: {} },
                "application/json": { schema: {} },
                "text/csv": { schema: {} },
              }
            : { "application/json": { schema: bodySchema(spec) } },
      };
    }
    (paths[openApiPath(route.pattern)] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Observability emulator",
      version,
      description:
        "What the local emulator serves, generated from the zod schemas that validate its requests. Where it " +
        "differs from the service's published document, an operation says so in x-differs-from-service; these " +
        "differ everywhere: a body with a field missing or invalid is a 422 (the service's live answer; the " +
        "document names none), and a missing or wrong token is a 403 (our spec decides it; the document names 401).",
    },
    servers: [{ url: "/" }],
    "x-check-exceptions": GLOBAL_CHECK_EXCEPTIONS,
    components: { securitySchemes: { Auth: { type: "http", scheme: "bearer" } } },
    security: [{ Auth: [] }],
    paths,
  };
}
