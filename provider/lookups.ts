/**
 * Lookups: objects a program uses but does not manage, read by id or by name, or listed. Pulumi's convention is a
 * `getX` function with an `Output` twin; dynamic providers have no invokes, so these run in the program itself,
 * with the same configuration as the resources: the stack's `observability:*` keys (the token from secret
 * config), then the `OBSERVABILITY_*` environment variables.
 *
 * - `getMonitor({ id })` / `getMonitor({ name })`: a promise of the object; by name it must match exactly one.
 * - `getMonitorOutput(args)`: takes Inputs, returns an Output; secret when the kind holds credentials, and unknown
 *   during a preview that has no credentials (a fork's pull request), so the preview still completes.
 * - `getMonitors(filters?)`: every object, with the filters the service offers.
 *
 * One listing per family serves every lookup by name in one program run, and only that run: a process that runs
 * the program again (an Automation API `preview`, then `up`) lists afresh, so it sees what changed in between.
 * The listings are the provider's shared listings (resources/listings.ts), scoped to the run.
 *
 * The promise forms of a kind that holds credentials (a notifier's channel) leave the credentials out: a plain
 * value cannot be marked secret, and a value printed, logged or exported from the program would show them. The
 * `Output` forms return them, secret.
 */
import type * as pulumi from "@pulumi/pulumi";
import { NotFoundError, ObservabilityClient } from "./client";
import { scrub } from "./client/errors";
import type { AnnotationListParams } from "./client/resources/annotations";
import type * as api from "./client/objects";
import { resolveSettings, type ProviderSettings } from "./config";
import { pick } from "./resources/values";
import { sharedListing } from "./resources/listings";
import { CHANNEL_KEYS, ChannelSchemas, SECRET_CHANNEL_FIELDS, type ChannelKey } from "./schemas/notifier";

/** How a lookup finds its object: by id, or by name (exactly one of them). */
export type LookupArgs = { id: string; name?: undefined } | { name: string; id?: undefined };

/** A lookup's args (by default {@link LookupArgs}) as Inputs, for the `Output` forms. */
export type LookupInputs<A extends LookupArgs = LookupArgs> = { [K in keyof A]: pulumi.Input<A[K]> };

/** A virtual field is found by id, or by name within its dataset (names are unique only there). */
export type VirtualFieldLookupArgs =
  { id: string; name?: undefined; dataset?: string } | { name: string; dataset: string; id?: undefined };

/** How one family is looked up. */
interface LookupSpec<T, F> {
  /** The kind, as errors name it. */
  kind: string;
  /** What a lookup by id takes, and what an ambiguous name lists; `id` unless the kind is addressed otherwise. */
  idOf?(obj: T): string;
  get(client: ObservabilityClient, id: string): Promise<T>;
  list(client: ObservabilityClient, filters: F | undefined): Promise<T[]>;
  /**
   * For a family listed only within a scope (virtual fields, by dataset): the filters a lookup by name lists with,
   * and the key its listing is cached under; an error message when the args lack the scope.
   */
  scope?(args: LookupArgs & Record<string, unknown>): { key: string; filters: F } | string;
  /** The name a lookup by name compares. */
  nameOf(obj: T): string | undefined;
  /** Whether the object holds credentials: its `Output` form is then secret (its promise forms leave them out). */
  secret?: boolean;
}

/** The three lookup functions of one kind; `P` is what the promise forms return (`T` unless it holds credentials). */
export interface Lookup<T, F, A extends LookupArgs = LookupArgs, P = T> {
  one(args: A): Promise<P>;
  output(args: LookupInputs<A>): pulumi.Output<pulumi.Unwrap<T>>;
  many(filters?: F): Promise<P[]>;
  /**
   * {@link one} through a given connection, returning the whole object: the native provider's, configured by its
   * Configure, which marks a credential secret itself.
   */
  oneWith(connection: Connection, args: A): Promise<T>;
  /** {@link many} through a given connection, returning whole objects. */
  manyWith(connection: Connection, filters?: F): Promise<T[]>;
  /** The id a lookup by id takes for `obj`. */
  idOf(obj: T): string;
}

/** A client for one configuration. */
export interface Connection {
  client: ObservabilityClient;
  secrets: string[];
  /** Whether a program made it (its listings are then shared by the program's run); the plugin's are not. */
  program?: boolean;
}

/**
 * @pulumi/pulumi, loaded by the program's forms only: the native plugin calls `oneWith` and `manyWith` through its
 * own connection and never loads it, so its released bundle leaves the SDK out (scripts/release-plugin.mts).
 */
function sdk(): typeof pulumi {
  return require("@pulumi/pulumi") as typeof pulumi;
}

/**
 * Connections by configuration. The configuration is read at every lookup, so a process that runs several
 * programs (Automation API inline programs, tests) never answers one stack's lookup with another's service.
 */
const connections = new Map<string, Connection>();

/**
 * What the listings of one program run are shared under, per client: the run is known by its root stack
 * resource, which the Node SDK makes anew for every run of the program (`runInPulumiStack`, and
 * `getStackResource`, in pulumi/pulumi sdk/nodejs/runtime/stack.ts; an Automation API inline program is run
 * once per operation, in a store of its own: sdk/nodejs/automation/server.ts, `run`). Held weakly: a run's
 * listings go with it.
 */
const runScopes = new WeakMap<object, WeakMap<ObservabilityClient, object>>();

/**
 * The scope of the current program run's listings through `client`; undefined outside a program run (a script,
 * a unit test under mocks), where no listing outlives its own answer.
 */
function runScope(client: ObservabilityClient): object | undefined {
  const run = sdk().runtime.getStackResource();
  if (run === undefined) return undefined;
  let scopes = runScopes.get(run);
  if (!scopes) runScopes.set(run, (scopes = new WeakMap()));
  let scope = scopes.get(client);
  if (!scope) scopes.set(client, (scope = {}));
  return scope;
}

/** The connection for the stack config and the environment in force (read as the provider reads them). */
function programConnection(): Connection {
  const settings: ProviderSettings = resolveSettings({ get: (key) => sdk().runtime.getConfig(key) });
  const key = JSON.stringify([settings.url, settings.region, settings.orgId, settings.token]);
  let connection = connections.get(key);
  if (!connection) {
    connection = {
      client: new ObservabilityClient({ ...settings }),
      secrets: [settings.token],
      program: true,
    };
    connections.set(key, connection);
  }
  return connection;
}

/** Whether the program can reach the service; false in a preview without a token. */
function configured(): boolean {
  try {
    programConnection();
    return true;
  } catch {
    return false;
  }
}

/** Forgets the clients (and so every listing made through them); for tests that run programs in one process. */
export async function resetLookups(): Promise<void> {
  const old = [...connections.values()];
  connections.clear();
  await Promise.all(old.map((c) => c.client.close()));
}

/** The error of a lookup: what it did (naming the kind, which the cause does not repeat), and why it failed. */
function lookupError(what: string, e: unknown, secrets: readonly string[]): Error {
  const message = e instanceof Error ? e.message : String(e);
  return new Error(scrub(`observability: ${what} failed: ${message}`, secrets));
}

/** The lookups of a kind whose objects hold no credentials: every form returns the object as the service does. */
function makeLookup<T, F = undefined, A extends LookupArgs = LookupArgs>(
  spec: LookupSpec<T, F>,
): Lookup<T, F, A> {
  return makeLookupWith<T, F, A, T>(spec, (obj) => obj);
}

/** The lookups of a kind; the promise forms return `plain` of each object (for a kind that holds credentials). */
function makeLookupWith<T, F, A extends LookupArgs, P>(
  spec: LookupSpec<T, F>,
  plain: (obj: T) => P,
): Lookup<T, F, A, P> {
  const byName = async ({ client, program }: Connection, name: string, args: A): Promise<T> => {
    const scope = spec.scope?.(args);
    if (typeof scope === "string") throw new Error(scope);
    const run = program ? runScope(client) : undefined;
    // Shared with the other lookups of this run through this client (listings.ts: coalesced, never kept when it
    // failed); outside a run, with those that arrive while it is in flight only.
    const listing = await sharedListing(run ?? client, {
      kind: spec.kind,
      key: `lookup\u0000${scope?.key ?? ""}`,
      list: () => spec.list(client, scope?.filters),
      fresh: (times) => run !== undefined || times.settledAt === undefined,
      // A program makes no writes through this client; the provider's own writes run in the host process.
      afterOwnWrites: false,
    });
    const matches = listing!.filter((obj) => spec.nameOf(obj) === name);
    if (matches.length === 1) return matches[0];
    const ids = matches.map((obj) => (spec.idOf ? spec.idOf(obj) : String((obj as { id?: unknown }).id)));
    // The caller's message names the kind and the name; this part says only what was found.
    throw new Error(
      ids.length === 0
        ? "nothing has that name"
        : `${ids.length} have that name (${ids.join(", ")}); look it up by id instead`,
    );
  };

  /** Whether `args` looks up by id; throws unless exactly one of `id` and `name` is given. */
  const byId = (args: A): boolean => {
    const hasId = typeof args?.id === "string" && args.id !== "";
    const hasName = typeof args?.name === "string" && args.name !== "";
    if (hasId === hasName) {
      throw new Error(`get${spec.kind}: give exactly one of \`id\` or \`name\`, as a non-empty string`);
    }
    return hasId;
  };
  const oneWith = async (connection: Connection, args: A): Promise<T> => {
    const hasId = byId(args);
    const { client, secrets } = connection;
    const what = `looking up the ${spec.kind} ${hasId ? `with id ${args.id}` : `named ${JSON.stringify(args.name)}`}`;
    try {
      if (!hasId) return await byName(connection, args.name!, args);
      try {
        return await spec.get(client, args.id!);
      } catch (e) {
        if (e instanceof NotFoundError) throw new Error("it does not exist");
        throw e;
      }
    } catch (e) {
      throw lookupError(what, e, secrets);
    }
  };

  const find = async (args: A): Promise<T> => {
    // Checked before the configuration is read, so a call without `id` or `name` says so first.
    byId(args);
    return oneWith(programConnection(), args);
  };
  const manyWith = async ({ client, secrets }: Connection, filters?: F): Promise<T[]> => {
    try {
      return await spec.list(client, filters);
    } catch (e) {
      throw lookupError(`listing every ${spec.kind}`, e, secrets);
    }
  };

  return {
    one: async (args) => plain(await find(args)),
    oneWith,
    manyWith,
    idOf: (obj) => (spec.idOf ? spec.idOf(obj) : String((obj as { id?: unknown }).id)),
    output(args) {
      // A preview with no credentials (a fork's pull request) cannot read the service; what the lookup returns is
      // then not known until an update, as any value computed by the engine would be. `unknown` is the SDK's
      // sentinel for that, typed as nothing in particular.
      const pulumi = sdk();
      if (pulumi.runtime.isDryRun() && !configured()) return pulumi.output(pulumi.unknown as unknown as T);
      const found = pulumi.output(args).apply((resolved) => find(resolved as A));
      return spec.secret ? pulumi.secret(found) : pulumi.output(found);
    },
    many: async (filters) => (await manyWith(programConnection(), filters)).map(plain),
  };
}

const named = (obj: { name?: string }) => obj.name;

const monitor = makeLookup<api.Monitor>({
  kind: "Monitor",
  get: (c, id) => c.monitors.get(id),
  list: (c) => c.monitors.list(),
  nameOf: named,
});
/**
 * A notifier's channels without their credentials: each channel keeps only its fields that are not credentials
 * (a custom webhook's `body`, a Discord bot's `discordChannel`, the email addresses, Opsgenie's `isEU`), and a
 * channel this version does not know keeps none.
 */
export interface NotifierChannelsWithoutCredentials {
  customWebhook?: { body: string } | null;
  discord?: { discordChannel: string } | null;
  discordWebhook?: Record<string, never> | null;
  email?: { emails: string[] } | null;
  microsoftTeams?: Record<string, never> | null;
  opsgenie?: { isEU?: boolean } | null;
  pagerduty?: Record<string, never> | null;
  slack?: Record<string, never> | null;
  webhook?: Record<string, never> | null;
  [channel: string]: Record<string, unknown> | null | undefined;
}

/**
 * A notifier as {@link getNotifier} and {@link getNotifiers} return it: as the service holds it, but for the
 * credentials of its channel, which are left out. {@link getNotifierOutput} returns them, as a secret.
 */
export type NotifierWithoutCredentials = Omit<api.Notifier, "properties"> & {
  properties?: NotifierChannelsWithoutCredentials;
};

/** The fields of each channel that are not credentials. */
const PLAIN_CHANNEL_FIELDS = new Map<string, readonly string[]>(
  CHANNEL_KEYS.map((key: ChannelKey) => [
    key,
    Object.keys(ChannelSchemas[key].shape).filter((field) => !SECRET_CHANNEL_FIELDS[key].includes(field)),
  ]),
);

/** `n` without the credentials of its channels (see {@link NotifierChannelsWithoutCredentials}). */
function withoutCredentials(n: api.Notifier): NotifierWithoutCredentials {
  const { properties, ...rest } = n;
  if (properties === undefined) return rest;
  const channels: NotifierChannelsWithoutCredentials = {};
  for (const [key, channel] of Object.entries(properties)) {
    channels[key] =
      channel === null || channel === undefined || typeof channel !== "object"
        ? null
        : pick(channel, PLAIN_CHANNEL_FIELDS.get(key) ?? []);
  }
  return { ...rest, properties: channels };
}

const notifier = makeLookupWith<api.Notifier, undefined, LookupArgs, NotifierWithoutCredentials>(
  {
    kind: "Notifier",
    get: (c, id) => c.notifiers.get(id),
    list: (c) => c.notifiers.list(),
    nameOf: named,
    secret: true,
  },
  withoutCredentials,
);
const annotation = makeLookup<api.Annotation, AnnotationListParams>({
  kind: "Annotation",
  get: (c, id) => c.annotations.get(id),
  list: (c, filters) => c.annotations.list(filters),
  // An annotation has no name; its title is what people call it by.
  nameOf: (obj) => obj.title,
});
const role = makeLookup<api.Role>({
  kind: "Role",
  get: (c, id) => c.roles.get(id),
  list: (c) => c.roles.list(),
  nameOf: named,
});
const starredQuery = makeLookup<api.StarredQuery, api.StarredQueryListParams>({
  kind: "StarredQuery",
  get: (c, id) => c.starredQueries.get(id),
  // Everyone's, not only the caller's: a program looks up what the organization shares.
  list: (c, filters) => c.starredQueries.list({ who: "all", limit: 1000, ...filters }),
  nameOf: named,
});
const organization = makeLookup<api.Org>({
  kind: "Organization",
  get: (c, id) => c.orgs.get(id),
  list: (c) => c.orgs.list(),
  nameOf: named,
});

const view = makeLookup<api.View>({
  kind: "View",
  // A view's id is its name (the service's views carry no other id).
  get: (c, id) => c.views.get(id),
  list: (c) => c.views.list(),
  nameOf: named,
});
const group = makeLookup<api.Group>({
  kind: "Group",
  get: (c, id) => c.groups.get(id),
  list: (c) => c.groups.list(),
  nameOf: named,
});

const user = makeLookup<api.User>({
  kind: "User",
  get: (c, id) => c.users.get(id),
  list: (c) => c.users.list(),
  nameOf: named,
});
const virtualField = makeLookup<api.VirtualField, api.VirtualFieldListParams, VirtualFieldLookupArgs>({
  kind: "VirtualField",
  get: (c, id) => c.virtualFields.get(id),
  list: (c, filters) =>
    filters ? c.virtualFields.list(filters) : Promise.reject(new Error("a `dataset` is required")),
  nameOf: named,
  scope: (args) =>
    typeof args.dataset === "string" && args.dataset !== ""
      ? { key: args.dataset, filters: { dataset: args.dataset } }
      : "a lookup by `name` needs the `dataset` it belongs to",
});

const apiToken = makeLookup<api.ApiToken>({
  kind: "ApiToken",
  // The service never returns a token's value after its creation: a lookup gives its id and capabilities.
  get: (c, id) => c.tokens.get(id),
  list: (c) => c.tokens.list(),
  nameOf: named,
});

const dashboard = makeLookup<api.Dashboard, { limit?: number; offset?: number }>({
  kind: "Dashboard",
  // A dashboard is addressed by its uid; its name is the document's.
  idOf: (obj) => obj.uid,
  get: (c, uid) => c.dashboards.get(uid),
  list: (c, page) => (page ? c.dashboards.list(page) : c.dashboards.listAll()),
  nameOf: (obj) => (obj.dashboard as { name?: string } | undefined)?.name,
});

const dataset = makeLookup<api.Dataset>({
  kind: "Dataset",
  // A dataset's id is its name.
  get: (c, id) => c.datasets.get(id),
  list: (c) => c.datasets.list(),
  nameOf: named,
});

/** A monitor by id or by name. */
export const getMonitor = monitor.one;
/** {@link getMonitor} taking Inputs and returning an Output. */
export const getMonitorOutput = monitor.output;
/** Every monitor. */
export const getMonitors = monitor.many;

/** A notifier by id or by name, without the credentials of its channel ({@link NotifierWithoutCredentials}). */
export const getNotifier = notifier.one;
/**
 * {@link getNotifier} taking Inputs and returning an Output: the whole notifier, credentials included, as a secret
 * since `properties` holds them.
 */
export const getNotifierOutput = notifier.output;
/** Every notifier, each without the credentials of its channel ({@link NotifierWithoutCredentials}). */
export const getNotifiers = notifier.many;

/** An annotation by id, or by its title as `name`. */
export const getAnnotation = annotation.one;
/** {@link getAnnotation} taking Inputs and returning an Output. */
export const getAnnotationOutput = annotation.output;
/** Annotations, filtered by datasets and time as the service offers. */
export const getAnnotations = annotation.many;

/** A role by id or by name. */
export const getRole = role.one;
/** {@link getRole} taking Inputs and returning an Output. */
export const getRoleOutput = role.output;
/** Every role. */
export const getRoles = role.many;

/** A starred query by id or by name. */
export const getStarredQuery = starredQuery.one;
/** {@link getStarredQuery} taking Inputs and returning an Output. */
export const getStarredQueryOutput = starredQuery.output;
/** Starred queries (everyone's by default), filtered as the service offers. */
export const getStarredQueries = starredQuery.many;

/** An organization (what `OrganizationName` renames) by id or by name. */
export const getOrganization = organization.one;
/** {@link getOrganization} taking Inputs and returning an Output. */
export const getOrganizationOutput = organization.output;
/** The organizations the token can see. */
export const getOrganizations = organization.many;

/** A view by name (its id). */
export const getView = view.one;
/** {@link getView} taking Inputs and returning an Output. */
export const getViewOutput = view.output;
/** Every view. */
export const getViews = view.many;

/** An RBAC group by id or by name. */
export const getGroup = group.one;
/** {@link getGroup} taking Inputs and returning an Output. */
export const getGroupOutput = group.output;
/** Every group. */
export const getGroups = group.many;

/** A user by id or by name. */
export const getUser = user.one;
/** {@link getUser} taking Inputs and returning an Output. */
export const getUserOutput = user.output;
/** Every user of the organization. */
export const getUsers = user.many;

/** A virtual field by id, or by name within its `dataset`. */
export const getVirtualField = virtualField.one;
/** {@link getVirtualField} taking Inputs and returning an Output. */
export const getVirtualFieldOutput = virtualField.output;
/** A dataset's virtual fields (`dataset` is required, as the service requires it). */
export const getVirtualFields = virtualField.many;

/** An API token (its id, name and capabilities; never its value) by id or by name. */
export const getApiToken = apiToken.one;
/** {@link getApiToken} taking Inputs and returning an Output. */
export const getApiTokenOutput = apiToken.output;
/** Every API token. */
export const getApiTokens = apiToken.many;

/** A dashboard by uid (as `id`), or by the name in its document. */
export const getDashboard = dashboard.one;
/** {@link getDashboard} taking Inputs and returning an Output. */
export const getDashboardOutput = dashboard.output;
/** Dashboards: every one, or one page (`limit`, `offset`). */
export const getDashboards = dashboard.many;

/** A dataset by name (its id). */
export const getDataset = dataset.one;
/** {@link getDataset} taking Inputs and returning an Output. */
export const getDatasetOutput = dataset.output;
/** Every dataset. */
export const getDatasets = dataset.many;

/**
 * Every kind's lookup by kind name, with the forms that take a connection: what the native provider's functions
 * (provider/native/functions.ts) call with the client its Configure set up.
 */
export const LOOKUPS = {
  Monitor: monitor,
  Notifier: notifier,
  Annotation: annotation,
  Role: role,
  StarredQuery: starredQuery,
  Organization: organization,
  View: view,
  Group: group,
  User: user,
  VirtualField: virtualField,
  ApiToken: apiToken,
  Dashboard: dashboard,
  Dataset: dataset,
} as const;

/** A connection for a configured client, as the native provider makes one per configuration. */
export function connectionFor(client: ObservabilityClient, secrets: string[]): Connection {
  return { client, secrets };
}
