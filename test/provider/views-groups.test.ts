/**
 * View and Group in process: every input rule, one named row each, through `check` (the failure names the
 * property and states the rule; no network call), how a view's id is read, and the reconcile rule of each kind
 * for a create whose outcome is unknown (faults placed by a real proxy in front of the emulator). The engine
 * paths through the real host are in views-groups-engine.test.ts.
 */
import { ObservabilityClient } from "../../provider/client";
import { Group, View } from "../../provider/resources";
import { implementation } from "../../provider/resources/dynamic";
import type { DeclaredKind, Lifecycle } from "../../provider/resources/lifecycle";
import { ViewSchema } from "../../provider/schemas";
import { proxiedClients, type FaultProxy, type ProxyFault } from "../helpers/fault-proxy";
import { useEmulator } from "../helpers/emulator";
import { SAMPLES } from "../helpers/samples";
import { UNKNOWN, checked, messageOf } from "./support";

type Props = Record<string, unknown>;
const view = SAMPLES.View.minimal;
const group = SAMPLES.Group.minimal;

/** [rule, kind, inputs, property, words the reason must contain] — from the OpenAPI v2 document. */
const rules: [string, "View" | "Group", Props, string, string][] = [
  // View (OpenAPI `View`: name and aplQuery required; datasets a list of names; description a string)
  ["view name is required", "View", { aplQuery: "x" }, "name", "is required"],
  ["view name is not empty", "View", { ...view, name: "" }, "name", "must not be empty"],
  [
    "view name is not '.' (the name is the id, a path segment)",
    "View",
    { ...view, name: "." },
    "name",
    '"."',
  ],
  [
    "view name is not '..' (the name is the id, a path segment)",
    "View",
    { ...view, name: ".." },
    "name",
    '".."',
  ],
  ["view name is a string", "View", { ...view, name: 7 }, "name", "string"],
  ["view aplQuery is required", "View", { name: "v" }, "aplQuery", "is required"],
  ["view aplQuery is not empty", "View", { ...view, aplQuery: "" }, "aplQuery", "must not be empty"],
  ["view datasets is a list", "View", { ...view, datasets: "logs" }, "datasets", "must be a list"],
  [
    "view datasets do not repeat (a set)",
    "View",
    { ...view, datasets: ["a", "a"] },
    "datasets",
    "duplicates",
  ],
  [
    "view dataset names are not empty",
    "View",
    { ...view, datasets: [""] },
    "datasets[0]",
    "must not be empty",
  ],
  ["view description is a string", "View", { ...view, description: 1 }, "description", "string"],
  [
    "view sharedByOrg is not an input (the service sets it)",
    "View",
    { ...view, sharedByOrg: "o" },
    "sharedByOrg",
    "not a known field",
  ],
  ["view adopt is a non-empty name", "View", { ...view, adopt: "" }, "adopt", "id of an existing object"],
  // Group (OpenAPI `Group`: name required; members user ids; roles role ids; isManaged readOnly)
  ["group name is required", "Group", { description: "x" }, "name", "is required"],
  ["group name is not empty", "Group", { name: "" }, "name", "must not be empty"],
  ["group description is a string", "Group", { ...group, description: false }, "description", "string"],
  [
    "group members do not repeat (a set)",
    "Group",
    { ...group, members: ["u", "u"] },
    "members",
    "duplicates",
  ],
  ["group member ids are not empty", "Group", { ...group, members: [""] }, "members[0]", "must not be empty"],
  ["group members is a list", "Group", { ...group, members: "u1" }, "members", "must be a list"],
  ["group roles do not repeat (a set)", "Group", { ...group, roles: ["r", "r"] }, "roles", "duplicates"],
  ["group role ids are not empty", "Group", { ...group, roles: [""] }, "roles[0]", "must not be empty"],
  [
    "group isManaged is read-only, not an input",
    "Group",
    { ...group, isManaged: true },
    "isManaged",
    "not a known field",
  ],
  ["group adopt is a non-empty id", "Group", { ...group, adopt: "" }, "adopt", "id of an existing object"],
];

describe("check enforces every View and Group rule", () => {
  it.each(rules)("%s", async (_rule, kind, inputs, property, words) => {
    const { failures } = await implementation(kind).check({}, inputs);
    const match = failures!.find((f) => f.property === property);
    expect(match).toBeDefined();
    expect(match!.reason).toContain(words);
  });

  it.each([
    ["View", view],
    ["View", SAMPLES.View.args],
    ["View", { name: "a view / with spaces", aplQuery: "x", datasets: [], description: "" }],
    ["Group", group],
    ["Group", { name: "g", description: "", members: ["u1", "u2"], roles: ["role_1", "admin"] }],
  ] as const)("a valid %s passes: %j", async (kind, inputs) => {
    expect((await implementation(kind).check({}, inputs)).failures).toEqual([]);
  });

  it("reports every failure at once", async () => {
    const v = await implementation("View").check({}, { name: "", datasets: ["a", "a"], extra: 1 });
    expect([...new Set(v.failures!.map((f) => f.property))].sort()).toEqual([
      "aplQuery",
      "datasets",
      "extra",
      "name",
    ]);
    const g = await implementation("Group").check({}, { name: 1, members: ["u", "u"], roles: [""] });
    expect([...new Set(g.failures!.map((f) => f.property))].sort()).toEqual(["members", "name", "roles[0]"]);
  });

  it.each([
    ["View", { name: UNKNOWN, aplQuery: UNKNOWN, datasets: [UNKNOWN, UNKNOWN] }],
    ["View", { name: "v", aplQuery: "x", datasets: UNKNOWN, adopt: UNKNOWN }],
    // A Group wired from User and Role outputs is not known at preview.
    ["Group", { name: "g", members: [UNKNOWN, UNKNOWN], roles: [UNKNOWN, "admin"] }],
    ["Group", { name: UNKNOWN, members: UNKNOWN, roles: UNKNOWN }],
  ] as const)("unknown values at preview never fail a %s check: %j", async (kind, inputs) => {
    expect((await implementation(kind).check({}, inputs)).failures).toEqual([]);
  });

  it("keeps what was declared, and absent and the service default compare equal", async () => {
    expect((await implementation("View").check({}, view)).inputs).toEqual(view);
    expect((await implementation("Group").check({}, group)).inputs).toEqual(group);
    const viewDefaults = { ...view, datasets: [], description: "" };
    const groupDefaults = { ...group, description: "", members: [], roles: [] };
    for (const [kind, declared, defaults] of [
      ["View", view, viewDefaults],
      ["Group", group, groupDefaults],
    ] as const) {
      expect(await implementation(kind).diff("x", defaults, declared)).toMatchObject({ changes: false });
      expect(await implementation(kind).diff("x", declared, defaults)).toMatchObject({ changes: false });
    }
  });
});

describe("a view's id is its name", () => {
  it("the client reads id = name, whatever id the service might send", () => {
    expect(ViewSchema.parse({ name: "errors", aplQuery: "x" }).id).toBe("errors");
    expect(ViewSchema.parse({ name: "errors", aplQuery: "x", id: "internal-7" }).id).toBe("errors");
  });

  it("View declares name a replace key and deletes first; Group deletes first (unique names)", () => {
    expect(View.declaration.rules).toMatchObject({ replaceKeys: ["name"], deleteBeforeReplace: true });
    expect(Group.declaration.rules).toMatchObject({ deleteBeforeReplace: true });
    expect(Group.declaration.rules.replaceKeys).toBeUndefined();
  });
});

describe("an uncertain create is reconciled", () => {
  const em = useEmulator();
  let proxy: FaultProxy | undefined;
  let client: ObservabilityClient | undefined;
  let oob: ObservabilityClient | undefined;
  afterEach(async () => {
    await client?.close();
    await oob?.close();
    await proxy?.close();
    proxy = client = oob = undefined;
  });

  /** The real lifecycle of `kind`, its client behind a proxy that faults what `plan` picks. */
  async function through(
    kind: DeclaredKind,
    plan: (method: string, path: string, nth: number) => ProxyFault | Promise<ProxyFault>,
  ): Promise<Lifecycle> {
    ({ proxy, client, oob } = await proxiedClients(em.current, plan, { timeoutMs: 10_000 }));
    return kind.lifecycle({ client: () => client!, secrets: () => [] });
  }
  const posts = () => proxy!.seen.filter((r) => r.startsWith("POST")).length;
  const firstPost =
    (fault: ProxyFault) =>
    (method: string, _path: string, nth: number): ProxyFault =>
      method === "POST" && nth === 0 ? fault : undefined;

  it.each([
    ["processed, then answered 500", "500after" as const, 1],
    ["answered 502 before processing", "502" as const, 2],
    ["a dropped connection", "drop" as const, 2],
  ])("View, first POST %s: the one view of that name is the resource", async (_what, fault, expected) => {
    const impl = await through(View.declaration, firstPost(fault));
    const name = `recon-view-${fault}`;
    const { id } = await impl.create(await checked(impl, { name, aplQuery: "x", datasets: ["b", "a"] }));
    expect(id).toBe(name);
    expect((await oob!.views.list()).filter((v) => v.name === name)).toHaveLength(1);
    expect(posts()).toBe(expected);
  });

  it("View: a 409 on the resend means the name was taken since; the view of that name is taken if it matches", async () => {
    const args = { name: "recon-view-409", aplQuery: "x", description: "mine" };
    const impl = await through(View.declaration, async (method, _path, nth) => {
      if (method !== "POST") return undefined;
      if (nth === 0) return "502";
      // The first request, delayed in the service, lands just before the resend.
      if (nth === 1) await oob!.views.create(args);
      return undefined;
    });
    expect((await impl.create(await checked(impl, args))).id).toBe(args.name);
    expect(posts()).toBe(2);
  });

  it("View: a view of that name with another body is not taken; the 409 is reported", async () => {
    const args = { name: "recon-view-theirs", aplQuery: "x", description: "mine" };
    const impl = await through(View.declaration, async (method, _path, nth) => {
      if (method !== "POST") return undefined;
      if (nth === 0) return "502";
      if (nth === 1) await oob!.views.create({ ...args, description: "theirs" });
      return undefined;
    });
    expect(await messageOf(impl.create(await checked(impl, args)))).toMatch(
      /^observability View create failed: POST \/v2\/views failed with 409/,
    );
  });

  it.each([
    ["processed, then answered 500", "500after" as const, 1],
    ["answered 500 before processing", "500" as const, 2],
  ])("Group, first POST %s: exactly one group of that name, in state", async (_what, fault, expected) => {
    const impl = await through(Group.declaration, firstPost(fault));
    const name = `recon-group-${fault}`;
    const { id } = await impl.create(await checked(impl, { name, members: ["u2", "u1"] }));
    expect((await oob!.groups.list()).filter((g) => g.name === name).map((g) => g.id)).toEqual([id]);
    expect(posts()).toBe(expected);
  });

  it("Group: a 409 on the resend means the name was taken since; the group of that name is taken", async () => {
    const args = { name: "recon-group-409", description: "g" };
    const impl = await through(Group.declaration, async (method, _path, nth) => {
      if (method !== "POST") return undefined;
      if (nth === 0) return "502";
      if (nth === 1) await oob!.groups.create(args);
      return undefined;
    });
    const { id } = await impl.create(await checked(impl, args));
    expect((await oob!.groups.list()).filter((g) => g.name === args.name).map((g) => g.id)).toEqual([id]);
  });

  it("Group: a group of that name made before the create is never taken; the 409 is reported", async () => {
    const args = { name: "recon-group-old", description: "g" };
    const impl = await through(Group.declaration, firstPost("500"));
    await oob!.groups.create(args);
    expect(await messageOf(impl.create(await checked(impl, args)))).toMatch(
      /^observability Group create failed: POST \/v2\/rbac\/groups failed with 409/,
    );
  });
});
