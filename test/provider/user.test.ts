/**
 * User through the provider's check and lifecycle: every input rule as a named row, role changes in place through
 * `PUT /v2/users/{id}/role`, name and email replacing (deleting first), drift, adoption and the email's 409.
 */
import { implementation } from "../../provider/resources/dynamic";
import { checked, created, messageOf, UNKNOWN, useProvider, type Props } from "./support";

const p = useProvider({ record: true });
const impl = () => p.impl("User");
let seq = 0;
const ann = (o: Props = {}): Props => ({ name: "Ann", email: `ann${++seq}@example.com`, role: "user", ...o });
const without = (obj: Props, key: string) => {
  const copy = { ...obj };
  delete copy[key];
  return copy;
};

/** [rule, inputs, property, words the reason contains]; CreateUserRequest requires name, email and role. */
const rules: [string, Props, string, string][] = [
  ["user name is required", without(ann(), "name"), "name", "is required"],
  ["user name must not be empty", ann({ name: "" }), "name", "must not be empty"],
  ["user email is required", without(ann(), "email"), "email", "is required"],
  ["user email is an email address", ann({ email: "ann-at-example" }), "email", "must be an email address"],
  ["user email is a string", ann({ email: 5 }), "email", "email"],
  ["user role is required", without(ann(), "role"), "role", "is required"],
  ["user role must not be empty", ann({ role: "" }), "role", "must not be empty"],
  [
    "user role spelled as a built-in role's name (Admin) names the id",
    ann({ role: "Admin" }),
    "role",
    '"admin"',
  ],
  ["user role read_only is written read-only", ann({ role: "read_only" }), "role", '"read-only"'],
  ["user role READONLY is written read-only", ann({ role: "READONLY" }), "role", '"read-only"'],
  ["user unknown fields are refused", ann({ team: "sre" }), "team", "is not a known field"],
  ["user adopt must be an id", ann({ adopt: "" }), "adopt", "id of an existing object"],
];

describe("User check", () => {
  it.each(rules)("%s", async (_rule, inputs, property, words) => {
    const { failures } = await implementation("User").check({}, inputs);
    expect(failures).toContainEqual({ property, reason: expect.stringContaining(words) });
  });

  it.each([
    ["a built-in role", ann({ role: "owner" })],
    ["a custom role's id", ann({ role: "role_0123" })],
    ["a UUID role id", ann({ role: "80f1b217-c142-404c-82e7-f4e48f8f8b78" })],
    [
      "unknown values at preview (a Role.id not yet created)",
      { name: UNKNOWN, email: UNKNOWN, role: UNKNOWN },
    ],
  ])("accepts %s", async (_case, inputs) => {
    expect((await implementation("User").check({}, inputs)).failures).toEqual([]);
  });
});

describe("User lifecycle", () => {
  it("creates, diffs none, and compares emails without regard to case", async () => {
    const { id, outs, inputs } = await created(impl(), ann({ role: "read-only" }));
    expect(outs).toMatchObject({ role: "read-only", roleName: "Read-only" });
    expect(await impl().diff(id, outs, inputs)).toMatchObject({ changes: false });
    const upper = await checked(impl(), { ...inputs, email: String(inputs.email).toUpperCase() });
    expect(await impl().diff(id, outs, upper)).toMatchObject({ changes: false });
    const read = await impl().read(id, outs);
    expect(read.inputs).toEqual({ name: "Ann", email: inputs.email, role: "read-only" });
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("a role change updates in place through PUT /v2/users/{id}/role, never PUT /v2/users/{id}", async () => {
    const { id, outs, inputs } = await created(impl(), ann());
    const news = await checked(impl(), { ...inputs, role: "admin" });
    expect(await impl().diff(id, outs, news)).toMatchObject({ changes: true, replaces: [], diffs: ["role"] });
    const before = p.em.current.received.length;
    const updated = await impl().update(id, outs, news);
    const sent = p.em.current.received.slice(before).filter((r) => r.method === "PUT");
    expect(sent.map((r) => [r.path, JSON.parse(r.body.toString())])).toEqual([
      [`/v2/users/${id}/role`, { role: "admin" }],
    ]);
    expect(updated.outs).toMatchObject({ role: "admin", roleName: "Admin" });
    expect((await p.client().users.get(id)).role).toEqual({ id: "admin", name: "Admin" });
  });

  it("a custom role is wired by its id and read back by id, so it never diffs", async () => {
    const role = await p.client().roles.create({ name: "user-test-custom" });
    const { id, outs, inputs } = await created(impl(), ann({ role: role.id }));
    expect(outs).toMatchObject({ role: role.id, roleName: "user-test-custom" });
    const read = await impl().read(id, outs);
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it.each([
    ["email", { email: "moved@example.com" }],
    ["name", { name: "Ann Other" }],
  ])("a change of %s replaces the user, deleting first (emails are unique)", async (key, change) => {
    const { id, outs, inputs } = await created(impl(), ann());
    const news = await checked(impl(), { ...inputs, ...change });
    expect(await impl().diff(id, outs, news)).toMatchObject({
      changes: true,
      replaces: [key],
      deleteBeforeReplace: true,
    });
  });

  it("refresh shows a role changed elsewhere, and a user removed elsewhere is gone", async () => {
    const { id, outs, inputs } = await created(impl(), ann());
    await p.client().users.setRole(id, { role: "none" });
    const read = await impl().read(id, outs);
    expect(read.inputs).toMatchObject({ role: "none" });
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: true, diffs: ["role"] });
    await p.client().users.delete(id);
    expect(await impl().read(id, read.props)).toEqual({ id: "" });
  });

  it("adopts an existing user and sets the declared role", async () => {
    const existing = await p.client().users.create({ name: "Ext", email: "ext@example.com", role: "user" });
    const inputs = await checked(impl(), {
      name: "Ext",
      email: "EXT@example.com",
      role: "admin",
      adopt: existing.id,
    });
    const made = await impl().create(inputs);
    expect(made.id).toBe(existing.id);
    expect(made.outs).toMatchObject({ role: "admin", adopt: existing.id });
    expect((await p.client().users.get(existing.id)).role?.id).toBe("admin");
  });

  it.each([
    ["name", { name: "Someone Else" }],
    ["email", { email: "other@example.com" }],
  ])("adopting with another %s fails naming it, and changes nothing", async (key, change) => {
    const existing = await p
      .client()
      .users.create({ name: "Ada", email: `ada-${key}@example.com`, role: "user" });
    const inputs = await checked(impl(), {
      name: "Ada",
      email: existing.email,
      role: "owner",
      ...change,
      adopt: existing.id,
    });
    const message = await messageOf(impl().create(inputs));
    expect(message).toContain(
      `User adopt failed: ${key}: the object's ${key} is ${JSON.stringify((existing as Props)[key])}`,
    );
    expect(await p.client().users.get(existing.id)).toEqual(existing);
  });

  it("an email already in the organization is the service's 409, readably", async () => {
    await created(impl(), ann({ email: "clash@example.com" }));
    const inputs = await checked(impl(), ann({ email: "clash@example.com" }));
    expect(await messageOf(impl().create(inputs))).toMatch(
      /User create failed: POST \/v2\/users failed with 409: email: a user with email "clash@example.com" already exists/,
    );
  });

  it("an unknown custom role fails the create naming role, and no user is left", async () => {
    const before = (await p.client().users.list()).length;
    const inputs = await checked(impl(), ann({ role: "role_does_not_exist" }));
    expect(await messageOf(impl().create(inputs))).toMatch(/failed with 422: role: no role with id/);
    expect(await p.client().users.list()).toHaveLength(before);
  });

  it("delete removes the user from the organization; deleting a gone user succeeds", async () => {
    const { id, outs } = await created(impl(), ann());
    await impl().delete(id, outs);
    expect((await p.client().users.list()).map((u) => u.id)).not.toContain(id);
    await expect(impl().delete(id, outs)).resolves.toBeUndefined();
  });
});
