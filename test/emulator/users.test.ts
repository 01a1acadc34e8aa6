/**
 * The users operations of the OpenAPI v2 document (axiomhq/docs `restapi/versions/v2.json`, tag Users), with the
 * statuses and bodies it documents, the 422s that alchemy-run/distilled's live probes add, and axiom-go's
 * undocumented `PUT /v2/users/{id} {name}` (axiom/users.go:185-199).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../../emulator";
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let seq = 0;
const user = (o: object = {}) => ({
  name: "Jane Doe",
  email: `jane${++seq}@example.com`,
  role: "user",
  ...o,
});
const without = (obj: Record<string, unknown>, key: string) => {
  const copy = { ...obj };
  delete copy[key];
  return copy;
};
/** The message names the field: `field: reason`. */
const names = (field: string) => new RegExp(`(^|; )${field}: `);

/** The document's `User`: `{id, name, email, role: {id, name}}`, each required. */
function expectUser(body: unknown): void {
  expect(body).toEqual({
    id: expect.any(String),
    name: expect.any(String),
    email: expect.any(String),
    role: { id: expect.any(String), name: expect.any(String) },
  });
}

describe("GET /v2/users and /v2/user", () => {
  it("lists the caller, an owner, and GET /v2/user is that user", async () => {
    const list = await api(em.current, "GET", "/v2/users");
    expect(list.status).toBe(200);
    for (const u of list.body) expectUser(u);
    const me = await api(em.current, "GET", "/v2/user");
    expect(me.status).toBe(200);
    expectUser(me.body);
    expect(me.body.role).toEqual({ id: "owner", name: "Owner" });
    expect(list.body).toContainEqual(me.body);
  });

  it("PUT /v2/user renames the caller (UpdateCurrentUserRequest {name}); a missing name is a 422", async () => {
    const before = (await api(em.current, "GET", "/v2/user")).body;
    const res = await api(em.current, "PUT", "/v2/user", { name: "Renamed Me" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, name: "Renamed Me" });
    expect((await api(em.current, "GET", "/v2/user")).body.name).toBe("Renamed Me");
    const bad = await api(em.current, "PUT", "/v2/user", {});
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ code: 422, message: expect.stringMatching(names("name")) });
  });
});

describe("POST /v2/users, GET and DELETE /v2/users/{id}", () => {
  it("creates a user with a UUID id and the role as {id, name}; GET and the list return it", async () => {
    const body = user({ role: "read-only" });
    const res = await api(em.current, "POST", "/v2/users", body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      name: body.name,
      email: body.email,
      role: { id: "read-only", name: "Read-only" },
    });
    expect((await api(em.current, "GET", `/v2/users/${res.body.id}`)).body).toEqual(res.body);
    expect((await api(em.current, "GET", "/v2/users")).body).toContainEqual(res.body);
  });

  it.each([
    ["none", "None"],
    ["read-only", "Read-only"],
    ["user", "User"],
    ["admin", "Admin"],
    ["owner", "Owner"],
  ])("built-in role %s reads back as {id: %s, name}", async (id, name) => {
    const res = await api(em.current, "POST", "/v2/users", user({ role: id }));
    expect(res.body.role).toEqual({ id, name });
  });

  it("a custom role is named by its RBAC role id and reads back with that role's name", async () => {
    const role = (await api(em.current, "POST", "/v2/rbac/roles", { name: "auditors" })).body;
    const res = await api(em.current, "POST", "/v2/users", user({ role: role.id }));
    expect(res.status).toBe(200);
    expect(res.body.role).toEqual({ id: role.id, name: "auditors" });
  });

  it("409 on an email already in the organization, compared without regard to case", async () => {
    const first = await api(em.current, "POST", "/v2/users", user({ email: "taken@example.com" }));
    expect(first.status).toBe(200);
    const clash = await api(em.current, "POST", "/v2/users", user({ email: "Taken@Example.com" }));
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({ code: 409, message: expect.stringMatching(names("email")) });
  });

  it("DELETE removes the user from the organization: 204 with an empty body, then 404", async () => {
    const created = (await api(em.current, "POST", "/v2/users", user())).body;
    const del = await api(em.current, "DELETE", `/v2/users/${created.id}`);
    expect([del.status, del.text]).toEqual([204, ""]);
    const gone = await api(em.current, "GET", `/v2/users/${created.id}`);
    expect([gone.status, gone.body]).toEqual([404, { code: 404, message: "Not found" }]);
    expect((await api(em.current, "GET", "/v2/users")).body).not.toContainEqual(created);
    expect((await api(em.current, "DELETE", `/v2/users/${created.id}`)).status).toBe(404);
  });

  it.each([
    ["GET", ""],
    ["DELETE", ""],
    ["PUT", "/role"],
  ])("%s /v2/users/{missing}%s is 404", async (method, suffix) => {
    const body = method === "PUT" ? { role: "user" } : undefined;
    const res = await api(
      em.current,
      method,
      `/v2/users/00000000-0000-4000-8000-000000000000${suffix}`,
      body,
    );
    expect([res.status, res.body]).toEqual([404, { code: 404, message: "Not found" }]);
  });
});

/** [rule, body, the field the 422 message names]. CreateUserRequest requires name, email and role. */
const createRules: [string, unknown, string][] = [
  ["user name is required", without(user(), "name"), "name"],
  ["user name must not be empty", user({ name: "" }), "name"],
  ["user name is a string", user({ name: 7 }), "name"],
  ["user email is required", without(user(), "email"), "email"],
  ["user email is an email address", user({ email: "not-an-email" }), "email"],
  ["user email must not be null", user({ email: null }), "email"],
  ["user role is required", without(user(), "role"), "role"],
  ["user role must not be empty", user({ role: "" }), "role"],
  ["user role spelled like a built-in role's name is refused (Admin)", user({ role: "Admin" }), "role"],
  [
    "user role spelled like a built-in role's name is refused (read_only)",
    user({ role: "read_only" }),
    "role",
  ],
  ["user role must be a built-in role or an existing custom role", user({ role: "role_missing" }), "role"],
];

describe("422 on a body field missing or invalid", () => {
  it.each(createRules)("%s", async (_rule, body, field) => {
    const before = (await api(em.current, "GET", "/v2/users")).body.length;
    const res = await api(em.current, "POST", "/v2/users", body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, message: expect.stringMatching(names(field)) });
    expect((await api(em.current, "GET", "/v2/users")).body).toHaveLength(before);
  });

  it("a custom role that does not exist says what a role may be", async () => {
    const res = await api(em.current, "POST", "/v2/users", user({ role: "role_missing" }));
    expect(res.body.message).toContain('no role with id "role_missing" exists');
    expect(res.body.message).toContain("none, read-only, user, admin, owner");
  });

  it.each([
    ["malformed JSON", "{"],
    ["a list instead of an object", "[]"],
  ])("%s is a 400", async (_case, body) => {
    expect((await api(em.current, "POST", "/v2/users", body)).status).toBe(400);
  });
});

describe("PUT /v2/users/{id}/role", () => {
  it("changes the role, built-in or custom, and GET reads the new role", async () => {
    const created = (await api(em.current, "POST", "/v2/users", user())).body;
    const res = await api(em.current, "PUT", `/v2/users/${created.id}/role`, { role: "admin" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, role: { id: "admin", name: "Admin" } });
    const role = (await api(em.current, "POST", "/v2/rbac/roles", { name: "on-call" })).body;
    const custom = await api(em.current, "PUT", `/v2/users/${created.id}/role`, { role: role.id });
    expect(custom.body.role).toEqual({ id: role.id, name: "on-call" });
    expect((await api(em.current, "GET", `/v2/users/${created.id}`)).body).toEqual(custom.body);
  });

  it.each([
    ["role is required", {}],
    ["role must not be empty", { role: "" }],
    ["role must exist", { role: "role_nope" }],
    ["role is not a built-in role's name", { role: "Owner" }],
  ])("%s: 422 naming role, and the role stays", async (_rule, body) => {
    const created = (await api(em.current, "POST", "/v2/users", user())).body;
    const res = await api(em.current, "PUT", `/v2/users/${created.id}/role`, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(names("role"));
    expect((await api(em.current, "GET", `/v2/users/${created.id}`)).body).toEqual(created);
  });
});

describe("PUT /v2/users/{id}: axiom-go's rename, absent from the document", () => {
  it("renames; a role in the body changes nothing (why Terraform's role changes never happen)", async () => {
    // terraform-provider-axiom axiom/resource_user.go:151 sends every update this way, role included in its plan.
    const created = (await api(em.current, "POST", "/v2/users", user())).body;
    const res = await api(em.current, "PUT", `/v2/users/${created.id}`, {
      name: "Jane Smith",
      role: "admin",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, name: "Jane Smith" });
    const bad = await api(em.current, "PUT", `/v2/users/${created.id}`, { name: "" });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(names("name"));
  });
});

it("users and their roles survive a restart with --data", async () => {
  const dir = mkdtempSync(join(tmpdir(), "emulator-users-"));
  try {
    const dataFile = join(dir, "state.json");
    const first = await startEmulator({ port: 0, dataFile });
    const created = (await api(first, "POST", "/v2/users", user())).body;
    const changed = (await api(first, "PUT", `/v2/users/${created.id}/role`, { role: "owner" })).body;
    await api(first, "PUT", "/v2/user", { name: "Persisted Me" });
    await first.close();
    const second = await startEmulator({ port: 0, dataFile });
    try {
      expect((await api(second, "GET", `/v2/users/${created.id}`)).body).toEqual(changed);
      expect((await api(second, "GET", "/v2/user")).body.name).toBe("Persisted Me");
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
