/**
 * The views and groups families of the client against a real emulator: each verb's result, and the request the
 * server received (method, path, body). Paths as axiom-js sends them (`packages/js/test/unit/generatedServices.test.ts`:
 * `client.views.get('view/id')` is `GET /v2/views/view%2Fid`, `client.groups.create({name})` is
 * `POST /v2/rbac/groups`). A view's id is its name (provider/schemas/view.ts gives the sources).
 */
import {
  ConflictError,
  NotFoundError,
  ObservabilityClient,
  UnprocessableEntityError,
} from "../../provider/client";
import { useEmulator } from "../helpers/emulator";

const em = useEmulator({ record: true });
let client: ObservabilityClient;

beforeAll(() => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
});
afterAll(() => client.close());

/** The requests the emulator received while `fn` ran. */
async function capture<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; requests: typeof em.current.received }> {
  const before = em.current.received.length;
  const result = await fn();
  return { result, requests: em.current.received.slice(before) };
}

const json = (body: Buffer) => JSON.parse(body.toString("utf8"));

describe("views", () => {
  it("create, get, list, update, delete, each addressed by the name; every view read carries id = name", async () => {
    const body = { name: "team/errors", aplQuery: "['logs'] | where level == 'error'", datasets: ["logs"] };
    const created = await capture(() => client.views.create(body));
    expect(created.result).toEqual({ ...body, id: "team/errors", sharedByOrg: "", sharedByOrgName: "" });
    expect(created.requests[0]).toMatchObject({ method: "POST", path: "/v2/views" });
    expect(json(created.requests[0].body)).toEqual(body);

    const got = await capture(() => client.views.get("team/errors"));
    expect(got.result).toEqual(created.result);
    expect(got.requests[0]).toMatchObject({ method: "GET", path: "/v2/views/team%2Ferrors" });

    const listed = await capture(() => client.views.list());
    expect(listed.result).toEqual([created.result]);
    expect(listed.requests[0]).toMatchObject({ method: "GET", path: "/v2/views" });

    const changed = { ...body, description: "errors of the team" };
    const updated = await capture(() => client.views.update("team/errors", changed));
    expect(updated.result).toMatchObject({ ...changed, id: "team/errors" });
    expect(updated.requests[0]).toMatchObject({ method: "PUT", path: "/v2/views/team%2Ferrors" });
    expect(json(updated.requests[0].body)).toEqual(changed);

    const deleted = await capture(() => client.views.delete("team/errors"));
    expect(deleted.requests[0]).toMatchObject({ method: "DELETE", path: "/v2/views/team%2Ferrors" });
    await expect(client.views.get("team/errors")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a name taken is a ConflictError; a bad body an UnprocessableEntityError naming the field", async () => {
    await client.views.create({ name: "taken", aplQuery: "x" });
    await expect(client.views.create({ name: "taken", aplQuery: "x" })).rejects.toBeInstanceOf(ConflictError);
    const bad = client.views.create({ name: "bad", aplQuery: "x", datasets: ["a", "a"] });
    await expect(bad).rejects.toBeInstanceOf(UnprocessableEntityError);
    await expect(client.views.create({ name: "bad", aplQuery: "x", datasets: ["a", "a"] })).rejects.toThrow(
      /datasets: must not contain duplicates/,
    );
    await expect(client.views.update("taken", { name: "other", aplQuery: "x" })).rejects.toThrow(
      /422.*name:/,
    );
  });
});

describe("groups", () => {
  it("create, get, list, update, delete at /v2/rbac/groups; a duplicate name is a ConflictError", async () => {
    const role = await client.roles.create({ name: "group-client-role" });
    const body = { name: "platform", members: ["u1"], roles: [role.id] };
    const created = await capture(() => client.groups.create(body));
    expect(created.result).toEqual({ ...body, id: expect.stringMatching(/^group_/), isManaged: false });
    expect(created.requests[0]).toMatchObject({ method: "POST", path: "/v2/rbac/groups" });
    expect(json(created.requests[0].body)).toEqual(body);
    const id = created.result.id;
    await expect(client.groups.create(body)).rejects.toMatchObject({ name: "ConflictError", status: 409 });

    const got = await capture(() => client.groups.get(id));
    expect(got.result).toEqual(created.result);
    expect(got.requests[0]).toMatchObject({ method: "GET", path: `/v2/rbac/groups/${id}` });

    const listed = await capture(() => client.groups.list());
    expect(listed.result).toEqual([created.result]);
    expect(listed.requests[0]).toMatchObject({ method: "GET", path: "/v2/rbac/groups" });

    const changed = { name: "runtime", members: ["u1", "u2"], roles: [] };
    const updated = await capture(() => client.groups.update(id, changed));
    expect(updated.result).toEqual({ ...changed, id, isManaged: false });
    expect(updated.requests[0]).toMatchObject({ method: "PUT", path: `/v2/rbac/groups/${id}` });
    expect(json(updated.requests[0].body)).toEqual(changed);

    const deleted = await capture(() => client.groups.delete(id));
    expect(deleted.requests[0]).toMatchObject({ method: "DELETE", path: `/v2/rbac/groups/${id}` });
    await expect(client.groups.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("an unknown role id is an UnprocessableEntityError naming roles[i]", async () => {
    const made = client.groups.create({ name: "ghost-roles", roles: ["admin", "role_ghost"] });
    await expect(made).rejects.toBeInstanceOf(UnprocessableEntityError);
    await expect(client.groups.create({ name: "ghost-roles", roles: ["role_ghost"] })).rejects.toThrow(
      /roles\[0\]: no role with id "role_ghost" exists/,
    );
  });
});
