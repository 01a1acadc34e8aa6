/**
 * What the service holds, family by family: the one listing that every real-engine test compares before and after
 * a run (the dynamic resources' examples and paths, the native provider, the migration from Terraform). It takes
 * any client of this shape, the built one (dist/) or the sources', and imports nothing of the repository's, so the
 * ES-module tests and the ts-jest ones load it alike.
 */

interface Listed {
  id?: unknown;
  uid?: unknown;
  name?: unknown;
}

/** The listings of a client this needs. */
export interface ListingClient {
  annotations: { list(): Promise<Listed[]> };
  dashboards: { listAll(): Promise<Listed[]> };
  datasets: { list(): Promise<Listed[]> };
  groups: { list(): Promise<Listed[]> };
  monitors: { list(): Promise<Listed[]> };
  notifiers: { list(): Promise<Listed[]> };
  orgs: { list(): Promise<Listed[]> };
  roles: { list(): Promise<Listed[]> };
  starredQueries: { list(params: { who: "all"; limit: number }): Promise<Listed[]> };
  tokens: { list(): Promise<Listed[]> };
  users: { list(): Promise<Listed[]> };
  views: { list(): Promise<Listed[]> };
  virtualFields: { list(params: { dataset: string }): Promise<Listed[]> };
}

/** Each family's object ids, sorted; `organizations` holds `<id>=<name>` of each, so a rename shows. */
export type ServiceContents = Record<string, string[]>;

/**
 * Every object the service holds that a stack could have left behind. Virtual fields are listed per dataset: of
 * every dataset there is, and of `alsoDatasets`, for a field that outlived its dataset.
 */
export async function serviceContents(
  client: ListingClient,
  options: { alsoDatasets?: string[] } = {},
): Promise<ServiceContents> {
  const ids = (objects: Listed[], key: "id" | "uid" = "id") => objects.map((o) => String(o[key])).sort();
  const datasets = await client.datasets.list();
  const scopes = [
    ...new Set([...datasets.map((d) => String(d.name ?? d.id)), ...(options.alsoDatasets ?? [])]),
  ];
  const virtualFields = (
    await Promise.all(scopes.map((dataset) => client.virtualFields.list({ dataset })))
  ).flat();
  return {
    annotations: ids(await client.annotations.list()),
    dashboards: ids(await client.dashboards.listAll(), "uid"),
    datasets: ids(datasets),
    groups: ids(await client.groups.list()),
    monitors: ids(await client.monitors.list()),
    notifiers: ids(await client.notifiers.list()),
    organizations: (await client.orgs.list()).map((o) => `${String(o.id)}=${String(o.name)}`).sort(),
    roles: ids(await client.roles.list()),
    starredQueries: ids(await client.starredQueries.list({ who: "all", limit: 1000 })),
    tokens: ids(await client.tokens.list()),
    users: ids(await client.users.list()),
    views: ids(await client.views.list()),
    virtualFields: ids(virtualFields),
  };
}

/** What `now` holds beyond `baseline`, one line per family; a renamed organization shows as one. Empty when none. */
export function beyondBaseline(baseline: ServiceContents, now: ServiceContents): string[] {
  return Object.entries(now)
    .map(([family, objects]) => [family, objects.filter((id) => !baseline[family]?.includes(id))] as const)
    .filter(([, objects]) => objects.length > 0)
    .map(([family, objects]) => `${family}: ${objects.join(", ")}`);
}
