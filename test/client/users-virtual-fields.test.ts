/** The `users` and `virtualFields` families against a real emulator: each method's result and the request sent. */
import {
  ConflictError,
  NotFoundError,
  ObservabilityClient,
  PathParameterError,
  UnprocessableEntityError,
} from "../../provider/client";
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator({ record: true });
let client: ObservabilityClient;

beforeAll(async () => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
  // Once datasets are objects of their own, a virtual field's dataset must exist; before, this is a 404.
  await api(em.current, "POST", "/v2/datasets", { name: "client-vf" });
});
afterAll(() => client.close());

/** The requests the emulator received while `fn` ran. */
async function capture<T>(fn: () => Promise<T>) {
  const before = em.current.received.length;
  const result = await fn();
  const requests = em.current.received.slice(before).map((r) => ({
    method: r.method,
    path: r.path,
    query: r.query,
    body: r.body.length > 0 ? JSON.parse(r.body.toString("utf8")) : undefined,
  }));
  return { result, requests };
}

describe("users", () => {
  it("create sends POST /v2/users {name, email, role} and returns the user with its role object", async () => {
    const body = { name: "Ann", email: "ann@example.com", role: "user" };
    const { result, requests } = await capture(() => client.users.create(body));
    expect(requests).toEqual([{ method: "POST", path: "/v2/users", query: expect.anything(), body }]);
    expect(result).toEqual({
      id: expect.any(String),
      name: "Ann",
      email: "ann@example.com",
      role: { id: "user", name: "User" },
    });
    expect(await client.users.get(result.id)).toEqual(result);
    expect(await client.users.list()).toContainEqual(result);
  });

  it("setRole sends PUT /v2/users/{id}/role {role}", async () => {
    const user = await client.users.create({ name: "Bo", email: "bo@example.com", role: "user" });
    const { result, requests } = await capture(() => client.users.setRole(user.id, { role: "admin" }));
    expect(requests).toEqual([
      { method: "PUT", path: `/v2/users/${user.id}/role`, query: expect.anything(), body: { role: "admin" } },
    ]);
    expect(result.role).toEqual({ id: "admin", name: "Admin" });
  });

  it("me and updateMe are GET and PUT /v2/user", async () => {
    const { result: me, requests } = await capture(() => client.users.me());
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v2/user"]);
    expect(me.role).toEqual({ id: "owner", name: "Owner" });
    const renamed = await capture(() => client.users.updateMe({ name: "Me Renamed" }));
    expect(renamed.requests).toEqual([
      { method: "PUT", path: "/v2/user", query: expect.anything(), body: { name: "Me Renamed" } },
    ]);
    expect(renamed.result).toEqual({ ...me, name: "Me Renamed" });
  });

  it("delete sends DELETE /v2/users/{id}; then get is a NotFoundError", async () => {
    const user = await client.users.create({ name: "Cy", email: "cy@example.com", role: "none" });
    const { requests } = await capture(() => client.users.delete(user.id));
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([`DELETE /v2/users/${user.id}`]);
    await expect(client.users.get(user.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("maps a taken email to ConflictError and an invalid role to UnprocessableEntityError", async () => {
    await client.users.create({ name: "Di", email: "di@example.com", role: "user" });
    await expect(
      client.users.create({ name: "Di", email: "di@example.com", role: "user" }),
    ).rejects.toBeInstanceOf(ConflictError);
    const bad = client.users.create({ name: "Di", email: "di2@example.com", role: "role_nope" });
    await expect(bad).rejects.toBeInstanceOf(UnprocessableEntityError);
    await expect(bad).rejects.toThrow(/role: no role with id "role_nope" exists/);
  });

  it("encodes the id as one path segment and refuses an empty one before sending", async () => {
    await expect(client.users.get("../orgs")).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.users.setRole("", { role: "user" })).rejects.toBeInstanceOf(PathParameterError);
  });
});

describe("virtualFields", () => {
  const field = { dataset: "client-vf", name: "total", expression: "a + b", type: "number" };

  it("create, get, update (PUT, the whole field), list by dataset and delete", async () => {
    const created = await capture(() => client.virtualFields.create(field));
    expect(created.requests).toEqual([
      { method: "POST", path: "/v2/vfields", query: expect.anything(), body: field },
    ]);
    const { id } = created.result;
    expect(created.result).toEqual({ id, ...field });
    expect(await client.virtualFields.get(id)).toEqual(created.result);

    const next = { ...field, expression: "a * b", unit: "ms" };
    const updated = await capture(() => client.virtualFields.update(id, next));
    expect(updated.requests).toEqual([
      { method: "PUT", path: `/v2/vfields/${id}`, query: expect.anything(), body: next },
    ]);
    expect(updated.result).toEqual({ id, ...next });

    const listed = await capture(() => client.virtualFields.list({ dataset: "client-vf" }));
    expect(listed.requests.map((r) => [r.path, r.query])).toEqual([
      ["/v2/vfields", { dataset: "client-vf" }],
    ]);
    expect(listed.result).toEqual([{ id, ...next }]);

    await client.virtualFields.delete(id);
    await expect(client.virtualFields.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("list without a dataset is refused before anything is sent", async () => {
    const before = em.current.received.length;
    await expect(client.virtualFields.list({ dataset: "" })).rejects.toThrow(/`dataset` is required/);
    await expect(client.virtualFields.list(undefined as never)).rejects.toThrow(/`dataset` is required/);
    expect(em.current.received.length).toBe(before);
  });

  it("a field missing from the body is an UnprocessableEntityError naming it", async () => {
    const bad = client.virtualFields.create({ dataset: "client-vf", name: "x", expression: "" });
    await expect(bad).rejects.toBeInstanceOf(UnprocessableEntityError);
    await expect(bad).rejects.toThrow(/expression: /);
  });
});
