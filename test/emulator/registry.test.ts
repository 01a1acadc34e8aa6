/**
 * The emulator's family registry (emulator/routes/index.ts) is the one list of API families: every route file is
 * in it, and each family listed gets its collection, its place in the `--data` snapshot and journal, and its
 * routes without another mention. A family that misses one of them fails here, by name.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { COLLECTION_FAMILIES, EVENT_ROUTES } from "../../emulator/routes";
import { State, type StateChange } from "../../emulator/state";
import { api, useEmulator } from "../helpers/emulator";

const ROUTES_DIR = join(__dirname, "..", "..", "emulator", "routes");
/** The registry itself, the helpers the families share, and the document of every route (openapi.ts). */
const NOT_A_FAMILY = ["index.ts", "common.ts", "openapi.ts"];
const families = COLLECTION_FAMILIES.map((f) => [f.name, f] as const);

/**
 * The emulator's own routes under `/_emulator` (its clock, its outbox): not families of the service's API, so not
 * in the registry; the server registers them (server.ts imports emulator-control.ts, which serves the outbox too).
 */
const CONTROL_ROUTES: Record<string, { importedBy: string; name: string }> = {
  "emulator-control.ts": { importedBy: "server.ts", name: "./routes/emulator-control" },
  "emulator-notifications.ts": { importedBy: "routes/emulator-control.ts", name: "./emulator-notifications" },
};

describe("every route file is registered", () => {
  const files = readdirSync(ROUTES_DIR).filter(
    (f) => f.endsWith(".ts") && !NOT_A_FAMILY.includes(f) && !(f in CONTROL_ROUTES),
  );
  const registered = new Set<unknown>([...COLLECTION_FAMILIES, ...EVENT_ROUTES]);

  it.each(files)("emulator/routes/%s exports what the registry lists", (file) => {
    const exported = Object.values(require(join(ROUTES_DIR, file)) as Record<string, unknown>);
    expect(exported.filter((v) => registered.has(v))).not.toEqual([]);
  });

  it.each(Object.entries(CONTROL_ROUTES))(
    "emulator/routes/%s, a control route, is served by %j",
    (_file, by) => {
      const source = readFileSync(join(ROUTES_DIR, "..", by.importedBy), "utf8");
      expect(source).toContain(`from "${by.name}"`);
    },
  );
});

describe.each(families)("the %s family", (name, family) => {
  const state = () => new State(COLLECTION_FAMILIES, "local-org");
  const obj = { id: `${family.idPrefix}registry-test`, name: "kept" };

  it("survives the snapshot: taken, then restored into a new emulator's state", () => {
    const before = state();
    before.collection(name).set(obj);
    const snapshot = JSON.parse(JSON.stringify(before.snapshot())) as ReturnType<State["snapshot"]>;
    expect(snapshot[name]).toContainEqual(obj);
    const after = state();
    after.restore(snapshot);
    expect(after.collection(name).get(obj.id)).toEqual(obj);
  });

  it("is journalled: a put and a del replay into a new emulator's state", () => {
    const journal: StateChange[] = [];
    const before = state();
    before.observe((c) => journal.push(JSON.parse(JSON.stringify(c)) as StateChange));
    before.collection(name).set(obj);
    const replayed = state();
    for (const c of journal) replayed.apply(c);
    expect(replayed.collection(name).get(obj.id)).toEqual(obj);
    before.collection(name).delete(obj.id);
    replayed.apply(journal.at(-1)!);
    expect(replayed.collection(name).get(obj.id)).toBeUndefined();
  });
});

describe("each family's routes are served", () => {
  const em = useEmulator();
  it.each(families)("GET the %s list", async (_name, family) => {
    expect((await api(em.current, "GET", family.path + (family.listQuery ?? ""))).status).toBe(200);
  });
});

it("a family whose name or id prefix another one has is refused", () => {
  const [first] = COLLECTION_FAMILIES;
  expect(() => new State([...COLLECTION_FAMILIES, { ...first, idPrefix: "other_" }], "o")).toThrow(
    first.name,
  );
  expect(() => new State([...COLLECTION_FAMILIES, { ...first, name: "other" }], "o")).toThrow(first.idPrefix);
  expect(() => new State([{ name: "monitorHistory", idPrefix: "h_" }], "o")).toThrow("monitorHistory");
});
