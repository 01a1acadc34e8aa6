/**
 * The registry walked: every kind declared in provider/resources is registered, served by the dynamic entry
 * point, public, sampled and documented. A new kind that misses one of its parts fails here, by name.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as obs from "../../provider";
import { v1 } from "../../provider/resources/dynamic";
import { DECLARATIONS, SECRET_KEYS } from "../../provider/resources/kinds";
import { KIND_CLASSES, KINDS } from "../../provider/resources/registry";
import { SAMPLES } from "../helpers/samples";

const ROOT = path.resolve(__dirname, "..", "..");
const RESOURCES = path.join(ROOT, "provider", "resources");
const kebab = (kind: string) => kind.replace(/(?<=[a-z])(?=[A-Z])/g, "-").toLowerCase();

/** The kinds declared in the resource files' sources, found by their `declareKind` calls. */
function declaredInSources(): { file: string; kind: string }[] {
  const found: { file: string; kind: string }[] = [];
  for (const file of fs.readdirSync(RESOURCES)) {
    const text = fs.readFileSync(path.join(RESOURCES, file), "utf8");
    for (const [, kind] of text.matchAll(/declareKind<[^>]*?,\s*"(\w+)">\(/g)) found.push({ file, kind });
  }
  return found;
}

it("finds the kinds declared in the sources (so the checks below walk something)", () => {
  expect(declaredInSources().length).toBeGreaterThanOrEqual(6);
});

describe.each(declaredInSources())("$kind ($file)", ({ file, kind }) => {
  it("is registered: its file is exported by provider/resources/index.ts", () => {
    expect([...KINDS.keys()]).toContain(kind);
  });

  it("is public: the package root exports its Resource class", () => {
    expect((obs as Record<string, unknown>)[kind]).toBe(KIND_CLASSES.get(kind as never));
  });

  it("has its lookups: getX, getXOutput and the plural (OrganizationName's are the organization's)", () => {
    const name = kind === "OrganizationName" ? "Organization" : kind;
    const plural = name.endsWith("y") ? `${name.slice(0, -1)}ies` : `${name}s`;
    for (const fn of [`get${name}`, `get${name}Output`, `get${plural}`])
      expect(typeof (obs as Record<string, unknown>)[fn]).toBe("function");
  });

  it("is declared in the file named after it, <kind>-kind.ts, beside its Resource class in <kind>.ts", () => {
    expect(file).toBe(`${kebab(kind)}-kind.ts`);
    expect(fs.existsSync(path.join(RESOURCES, `${kebab(kind)}.ts`))).toBe(true);
  });

  it("is served by the native provider: kinds.ts holds its declaration", () => {
    expect([...DECLARATIONS.keys()]).toContain(kind);
  });

  it("has a sample for the tests that walk every kind", () => {
    expect(Object.keys(SAMPLES)).toContain(kind);
  });

  it("has a reference page, linked from the README's table", () => {
    const page = `docs/resources/${kebab(kind)}.md`;
    expect(fs.existsSync(path.join(ROOT, page))).toBe(true);
    expect(fs.readFileSync(path.join(ROOT, page), "utf8")).toContain("## Lookups");
    expect(fs.readFileSync(path.join(ROOT, "README.md"), "utf8")).toContain(`(${page})`);
  });

  it("is served by the dynamic entry point: check accepts its sample", async () => {
    const result = (await v1(kind as never, "check", [
      {},
      SAMPLES[kind as keyof typeof SAMPLES].minimal,
    ])) as {
      failures: unknown[];
    };
    expect(result.failures).toEqual([]);
  });
});

it("no kind is registered twice, and the Resource type token is the kind's name", () => {
  for (const [kind, cls] of KIND_CLASSES) {
    expect(cls.declaration.kind).toBe(kind);
    expect(cls.name).toBe(kind);
  }
  expect(new Set(KINDS.keys()).size).toBe(KINDS.size);
});

it("the native provider's declarations (kinds.ts) are the Resource classes' own, kind for kind", () => {
  expect([...DECLARATIONS.keys()].sort()).toEqual([...KINDS.keys()].sort());
  for (const [kind, declared] of KINDS) expect(DECLARATIONS.get(kind)).toBe(declared);
});

it("the native provider's secret keys (kinds.ts) are those the Resource classes make secret", () => {
  for (const [kind, cls] of KIND_CLASSES) {
    const own = (cls as { secretKeys?: { outputs?: readonly string[]; inputs?: readonly string[] } })
      .secretKeys;
    expect(SECRET_KEYS.get(kind)).toEqual({ outputs: own?.outputs ?? [], inputs: own?.inputs ?? [] });
  }
  // Notifier and ApiToken hold credentials, so the comparison above compares something.
  expect(SECRET_KEYS.get("ApiToken")?.outputs).toEqual(["token"]);
  expect(SECRET_KEYS.get("Notifier")?.inputs).toEqual(["properties"]);
});
