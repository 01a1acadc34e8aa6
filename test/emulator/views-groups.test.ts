/**
 * The views and RBAC-groups families as the OpenAPI document states them (axiomhq/docs
 * `content/docs/(api-reference)/restapi/versions/v2.json`): every operation of `/v2/views`, `/v2/views/{id}`,
 * `/v2/rbac/groups` and `/v2/rbac/groups/{id}`, with its status and a body of the documented shape. The 404s and
 * 422s are the live service's (alchemy-run/distilled `packages/axiom/patches/v2/001-add-error-responses.patch.json`:
 * GetView/UpdateView/DeleteView and GetGroupById/UpdateGroup/DeleteGroup answer 404, CreateView/UpdateView and
 * CreateGroup/UpdateGroup 422). A view's id is its name (provider/schemas/view.ts gives the sources).
 */
import { api, useEmulator, type ApiResponse } from "../helpers/emulator";

const em = useEmulator();

/** The error body every failure carries: `{code, message}`, the message naming the field. */
function expectError(res: ApiResponse, status: number, message: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ code: status, message: expect.stringMatching(message) });
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
}

/** The documented View: `name` and `aplQuery` required; `datasets`, `description`, `sharedByOrg*` strings. */
function expectViewShape(view: Record<string, unknown>): void {
  expect(typeof view.name).toBe("string");
  expect(typeof view.aplQuery).toBe("string");
  for (const key of ["description", "sharedByOrg", "sharedByOrgName"]) {
    if (key in view) expect(typeof view[key]).toBe("string");
  }
  if ("datasets" in view) expect((view.datasets as unknown[]).every((d) => typeof d === "string")).toBe(true);
  // The document's View has no id: the name addresses it.
  expect(view).not.toHaveProperty("id");
}

/** The documented GroupWithID: `id` and `name` required; members and roles string lists; isManaged boolean. */
function expectGroupShape(group: Record<string, unknown>): void {
  expect(typeof group.id).toBe("string");
  expect(typeof group.name).toBe("string");
  if ("description" in group) expect(typeof group.description).toBe("string");
  for (const key of ["members", "roles"]) {
    if (key in group) expect((group[key] as unknown[]).every((x) => typeof x === "string")).toBe(true);
  }
  expect(typeof group.isManaged).toBe("boolean");
}

const view = {
  name: "checkout errors",
  aplQuery: "['http-logs'] | where status >= 500",
  datasets: ["http-logs", "app-logs"],
  description: "5xx on checkout",
};
const at = (name: string) => `/v2/views/${encodeURIComponent(name)}`;

describe("views: /v2/views, each addressed by its name", () => {
  it("POST answers 200 with the view, sharedByOrg and sharedByOrgName, and no id", async () => {
    const res = await api(em.current, "POST", "/v2/views", view);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...view, sharedByOrg: "", sharedByOrgName: "" });
    expectViewShape(res.body);
  });

  it("GET /v2/views/{name} (percent-encoded) and the list answer the same view", async () => {
    const got = await api(em.current, "GET", at(view.name));
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...view, sharedByOrg: "", sharedByOrgName: "" });
    const listed = await api(em.current, "GET", "/v2/views");
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual(got.body);
    for (const v of listed.body) expectViewShape(v);
  });

  it("a name with a slash is one path segment (axiom-js encodes `view/id` as `view%2Fid`)", async () => {
    const made = await api(em.current, "POST", "/v2/views", { name: "team/errors", aplQuery: "['logs']" });
    expect(made.status).toBe(200);
    expect((await api(em.current, "GET", "/v2/views/team%2Ferrors")).body).toEqual(made.body);
    expect((await api(em.current, "DELETE", "/v2/views/team%2Ferrors")).status).toBe(204);
  });

  it("PUT answers 200 with the whole view replaced; what the server owns in the body is ignored", async () => {
    const res = await api(em.current, "PUT", at(view.name), {
      name: view.name,
      aplQuery: "['http-logs'] | where status >= 500 | count",
      datasets: ["http-logs"],
      sharedByOrg: "someone-else",
      id: "ignored",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: view.name,
      aplQuery: "['http-logs'] | where status >= 500 | count",
      datasets: ["http-logs"],
      sharedByOrg: "",
      sharedByOrgName: "",
    });
    expectViewShape(res.body);
  });

  it("PUT with another name is a 422 naming name: a view's name is its id", async () => {
    const res = await api(em.current, "PUT", at(view.name), { name: "renamed", aplQuery: "x" });
    expectError(res, 422, /^name: must be "checkout errors"/);
    expect((await api(em.current, "GET", "/v2/views/renamed")).status).toBe(404);
  });

  it("POST of a name that exists is a 409 naming it", async () => {
    const res = await api(em.current, "POST", "/v2/views", { name: view.name, aplQuery: "x" });
    expectError(res, 409, /checkout errors/);
  });

  it.each([
    ["name is required", { aplQuery: "x" }, /^name: is required/],
    ["aplQuery is required", { name: "v-1" }, /^aplQuery: is required/],
    ["name is not empty", { name: "", aplQuery: "x" }, /^name: must not be empty/],
    ["name is not ..", { name: "..", aplQuery: "x" }, /^name: must not be "\." or "\.\."/],
    ["aplQuery is a string", { name: "v-2", aplQuery: 5 }, /^aplQuery: /],
    ["datasets is a list", { name: "v-3", aplQuery: "x", datasets: "logs" }, /^datasets: /],
    [
      "datasets do not repeat",
      { name: "v-4", aplQuery: "x", datasets: ["a", "a"] },
      /^datasets: must not contain duplicates/,
    ],
    ["dataset names are not empty", { name: "v-5", aplQuery: "x", datasets: [""] }, /^datasets\[0\]: /],
    ["description is a string", { name: "v-6", aplQuery: "x", description: 1 }, /^description: /],
  ])("POST: %s (422 naming the field)", async (_rule, body, message) => {
    expectError(await api(em.current, "POST", "/v2/views", body), 422, message);
  });

  it("an unset field sent as null reads as absent, as Go and Python clients send it", async () => {
    const res = await api(em.current, "POST", "/v2/views", {
      name: "nulls",
      aplQuery: "x",
      datasets: null,
      description: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "nulls", aplQuery: "x", sharedByOrg: "", sharedByOrgName: "" });
  });

  it("malformed JSON is a 400", async () => {
    const res = await api(em.current, "POST", "/v2/views", '{"name":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.any(String) });
  });

  it.each(["GET", "PUT", "DELETE"])("%s of a missing view is a 404", async (method) => {
    const res = await api(
      em.current,
      method,
      "/v2/views/no-such-view",
      method === "PUT" ? { name: "no-such-view", aplQuery: "x" } : undefined,
    );
    expectError(res, 404, /^Not found$/);
  });

  it("DELETE answers 204 with no body; the view is gone and its name free again", async () => {
    const res = await api(em.current, "DELETE", at(view.name));
    expect([res.status, res.text]).toEqual([204, ""]);
    expect((await api(em.current, "GET", at(view.name))).status).toBe(404);
    expect((await api(em.current, "POST", "/v2/views", view)).status).toBe(200);
  });
});

describe("RBAC groups: /v2/rbac/groups", () => {
  let roleId: string;
  beforeAll(async () => {
    roleId = (await api(em.current, "POST", "/v2/rbac/roles", { name: "group-role" })).body.id;
  });

  it("POST answers 200 (not 201) with the GroupWithID: an id, the body and isManaged false; GET and list agree", async () => {
    const body = { name: "sre", description: "on call", members: ["u1", "u2"], roles: [roleId, "admin"] };
    const res = await api(em.current, "POST", "/v2/rbac/groups", body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^group_/), ...body, isManaged: false });
    expectGroupShape(res.body);
    const got = await api(em.current, "GET", `/v2/rbac/groups/${res.body.id}`);
    expect([got.status, got.body]).toEqual([200, res.body]);
    const listed = await api(em.current, "GET", "/v2/rbac/groups");
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual(res.body);
    for (const g of listed.body) expectGroupShape(g);
  });

  it("PUT answers 200 with the whole group replaced; isManaged in a body is read-only and ignored", async () => {
    const made = await api(em.current, "POST", "/v2/rbac/groups", { name: "put-me", isManaged: true });
    expect(made.body.isManaged).toBe(false);
    const res = await api(em.current, "PUT", `/v2/rbac/groups/${made.body.id}`, {
      name: "put-me",
      members: ["u3"],
      isManaged: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: made.body.id, name: "put-me", members: ["u3"], isManaged: false });
    expectGroupShape(res.body);
  });

  it("a role id the organization lacks is a 422 naming roles[i]; built-in roles and existing roles pass", async () => {
    const res = await api(em.current, "POST", "/v2/rbac/groups", {
      name: "bad-roles",
      roles: [roleId, "role_missing", "owner"],
    });
    expectError(res, 422, /^roles\[1\]: no role with id "role_missing" exists$/);
    expect(
      (await api(em.current, "GET", "/v2/rbac/groups")).body.map((g: { name: string }) => g.name),
    ).not.toContain("bad-roles");
    const made = await api(em.current, "POST", "/v2/rbac/groups", { name: "good-roles", roles: [roleId] });
    const put = await api(em.current, "PUT", `/v2/rbac/groups/${made.body.id}`, {
      name: "good-roles",
      roles: ["role_gone"],
    });
    expectError(put, 422, /^roles\[0\]: no role with id "role_gone"/);
  });

  it("409 on a name that exists, on create and on a PUT to another group's name; keeping its own is fine", async () => {
    const a = await api(em.current, "POST", "/v2/rbac/groups", { name: "dup-a" });
    const b = await api(em.current, "POST", "/v2/rbac/groups", { name: "dup-b" });
    expectError(await api(em.current, "POST", "/v2/rbac/groups", { name: "dup-a" }), 409, /dup-a/);
    expectError(
      await api(em.current, "PUT", `/v2/rbac/groups/${b.body.id}`, { name: "dup-a" }),
      409,
      /dup-a/,
    );
    const same = await api(em.current, "PUT", `/v2/rbac/groups/${a.body.id}`, {
      name: "dup-a",
      description: "x",
    });
    expect(same.status).toBe(200);
  });

  it.each([
    ["name is required", { description: "x" }, /^name: is required/],
    ["name is not empty", { name: "" }, /^name: must not be empty/],
    ["members do not repeat", { name: "g1", members: ["u", "u"] }, /^members: must not contain duplicates/],
    ["roles do not repeat", { name: "g2", roles: ["admin", "admin"] }, /^roles: must not contain duplicates/],
    ["member ids are strings", { name: "g3", members: [1] }, /^members\[0\]: /],
    ["roles is a list", { name: "g4", roles: "admin" }, /^roles: /],
  ])("POST: %s (422 naming the field)", async (_rule, body, message) => {
    expectError(await api(em.current, "POST", "/v2/rbac/groups", body), 422, message);
  });

  it("malformed JSON is a 400", async () => {
    const res = await api(em.current, "POST", "/v2/rbac/groups", "{");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.any(String) });
  });

  it.each(["GET", "PUT", "DELETE"])("%s of a missing group is a 404", async (method) => {
    const res = await api(
      em.current,
      method,
      "/v2/rbac/groups/group_missing",
      method === "PUT" ? { name: "x" } : undefined,
    );
    expectError(res, 404, /^Not found$/);
  });

  it("DELETE answers 204 with no body, and the group is gone", async () => {
    const made = await api(em.current, "POST", "/v2/rbac/groups", { name: "short-lived" });
    const res = await api(em.current, "DELETE", `/v2/rbac/groups/${made.body.id}`);
    expect([res.status, res.text]).toEqual([204, ""]);
    expect((await api(em.current, "GET", `/v2/rbac/groups/${made.body.id}`)).status).toBe(404);
  });
});
