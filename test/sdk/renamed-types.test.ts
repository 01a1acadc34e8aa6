/**
 * CHANGELOG.md's 0.5.0 table of renamed SDK types is what scripts/renamed-types.mts derives: the new names from
 * the schema's walk (TYPE_NAMES), the old ones as 0.4.0's generator named the same places, both checked against
 * the SDKs (0.4.0's read from test/fixtures/sdk-names/0.4.0.json, recorded once from git history, so that a
 * shallow clone checks it too). A TYPE_NAMES change that renames a type again leaves the committed table stale,
 * and the check fails naming CHANGELOG.md.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const SCRIPT = path.join(ROOT, "scripts", "renamed-types.mts");

/** Runs `code` as an ES module beside the script (its exports imported as `rt`); resolves its stdout as JSON. */
function evaluate(code: string): { stdout: unknown; stderr: string; status: number | null } {
  const r = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", `import * as rt from ${JSON.stringify(SCRIPT)};\n${code}`],
    { cwd: ROOT, encoding: "utf8" },
  );
  return {
    stdout: r.stdout.trim() ? JSON.parse(r.stdout) : undefined,
    stderr: r.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, ""),
    status: r.status,
  };
}

test("rule: CHANGELOG.md's table is what the type names give (node scripts/renamed-types.mts --check)", () => {
  const r = spawnSync(process.execPath, [SCRIPT, "--check"], { cwd: ROOT, encoding: "utf8" });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
}, 60_000);

test("0.4.0's names: the kind, the path in PascalCase, a list's item and a map's value as Item", () => {
  const r = evaluate(
    `process.stdout.write(JSON.stringify(["Role.orgCapabilities", "ApiToken.datasetCapabilities{}",
       "Role.orgCapabilities.auditLog[]", "StarredQuery.query.queryOptions"].map(rt.oldTypeName)));`,
  );
  expect(r.stdout).toEqual([
    "RoleOrgCapabilities",
    "ApiTokenDatasetCapabilitiesItem",
    "RoleOrgCapabilitiesAuditLogItem",
    "StarredQueryQueryQueryOptions",
  ]);
});

test("an enum took the name of the first place with its values; a union's members are new, not renamed", () => {
  const r = evaluate(
    `const t = (n) => "observability:index:" + n;
     const { pairs, added } = rt.renames([
       { at: "Role.orgCapabilities.billing[]", token: t("CapabilityAction"), enumValues: ["read"] },
       { at: "ApiToken.orgCapabilities.billing[]", token: t("CapabilityAction"), enumValues: ["read"] },
       { at: "Role.orgCapabilities.users[]", token: t("CapabilityAction"), enumValues: ["read", "update"] },
       { at: "Dashboard.dashboard.charts[]<Note>", token: t("NoteChart") },
     ]);
     process.stdout.write(JSON.stringify({ pairs: [...pairs], added: [...added] }));`,
  );
  expect(r.stdout).toEqual({
    pairs: [
      ["RoleOrgCapabilitiesBillingItem", "CapabilityAction"],
      ["RoleOrgCapabilitiesUsersItem", "CapabilityAction"],
    ],
    added: ["NoteChart"],
  });
});

test("an old name that 0.4.0's SDKs never had, or a 0.4.0 type with no successor, stops the table, named", () => {
  const r = evaluate(
    `const names = (...sets) => ({ TypeScript: sets, Python: [new Set()], Go: [new Set()] });
     const tokens = { old: new Set(["observability:index:Role"]), new: new Set(["observability:index:Role"]) };
     try {
       rt.renderTable(
         [{ at: "Role.orgCapabilities", token: "observability:index:OrgCapabilities" }],
         names(new Set(["RoleOrgCapabilitiesX", "Lost"])),
         names(new Set(["OrgCapabilities"])),
         tokens,
       );
     } catch (e) { process.stdout.write(JSON.stringify(e.message)); }`,
  );
  expect(r.stdout).toBe(
    "RoleOrgCapabilities (0.4.0's name for OrgCapabilities) is in no SDK of 0.4.0 (test/fixtures/sdk-names/0.4.0.json); " +
      "0.4.0's TypeScript type RoleOrgCapabilitiesX is neither in sdk/ nor renamed; " +
      "0.4.0's TypeScript type Lost is neither in sdk/ nor renamed",
  );
});

test("a token 0.4.0's SDK named and sdk/ does not stops the table (its sentence on YAML would be false)", () => {
  const r = evaluate(
    `const names = { TypeScript: [new Set()], Python: [new Set()], Go: [new Set()] };
     try {
       rt.renderTable([], names, names, {
         old: new Set(["observability:index:Widget"]),
         new: new Set(["observability:index:Role"]),
       });
     } catch (e) { process.stdout.write(JSON.stringify(e.message)); }`,
  );
  expect(r.stdout).toBe("0.4.0's token observability:index:Widget is gone from sdk/");
});

describe("0.4.0's names come from the committed fixture, and the check still bites", () => {
  const FIXTURE = path.join(ROOT, "test", "fixtures", "sdk-names", "0.4.0.json");
  const CHANGELOG = readFileSync(path.join(ROOT, "CHANGELOG.md"), "utf8");
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "renamed-types-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The fixture as `edit` leaves it, written beside a copy of CHANGELOG.md. */
  function edited(edit: (record: { types: Record<string, { pattern: string; names: string[] }[]> }) => void) {
    const record = JSON.parse(readFileSync(FIXTURE, "utf8"));
    edit(record);
    const root = mkdtempSync(path.join(dir, "case-"));
    writeFileSync(path.join(root, "CHANGELOG.md"), CHANGELOG);
    const fixture = path.join(root, "0.4.0.json");
    writeFileSync(fixture, JSON.stringify(record));
    return { root, fixture };
  }

  /** The fixture with `name` taken out of every form of `lang`, which must hold it (or the case proves nothing). */
  const without = (lang: string, name: string) =>
    edited((record) => {
      const forms = record.types[lang];
      expect(forms.some((f) => f.names.includes(name))).toBe(true);
      for (const form of forms) form.names = form.names.filter((n) => n !== name);
    });

  /** Runs the check against `paths`; its exit code, or the message it threw, and what it printed. */
  function check(paths: { root: string; fixture?: string }) {
    return evaluate(
      `const out = await rt.renamedTypes(["--check"], ${JSON.stringify(paths)}).then(
         (code) => ({ code }),
         (e) => ({ threw: e.message }),
       );
       process.stdout.write(JSON.stringify(out));`,
    );
  }

  test("a table missing a row is stale, CHANGELOG.md named", () => {
    const root = mkdtempSync(path.join(dir, "stale-"));
    const row = CHANGELOG.split("\n").find((l) => l.startsWith("| `input.StarredQueryQueryArgs` →"));
    expect(row).toBeDefined();
    writeFileSync(path.join(root, "CHANGELOG.md"), CHANGELOG.replace(`${row}\n`, ""));
    const r = check({ root });
    expect(r.stdout).toEqual({ code: 1 });
    expect(r.stderr).toMatch(/^renamed-types: stale; run `node scripts\/renamed-types.mts` and commit:\n.*CHANGELOG\.md differs/);
  }, 60_000);

  test("an old name missing from the fixture's TypeScript stops the table, named", () => {
    const r = check(without("TypeScript", "StarredQueryQuery"));
    expect(r.stdout).toEqual({
      threw:
        "StarredQueryQuery (0.4.0's name for AplRequest) is in no SDK of 0.4.0 (test/fixtures/sdk-names/0.4.0.json)",
    });
  }, 60_000);

  test("a name missing from the fixture's Python changes the table's Python cell: stale", () => {
    const r = check(without("Python", "StarredQueryQuery"));
    expect(r.stdout).toEqual({ code: 1 });
    expect(r.stderr).toMatch(/CHANGELOG\.md differs from what the names table gives/);
  }, 60_000);

  test("a fixture recorded by other forms than the script reads is refused, named", () => {
    const r = check(
      edited((record) => {
        record.types.Go[0].pattern = "^type (\\w+)Args struct";
      }),
    );
    expect((r.stdout as { threw: string }).threw).toMatch(
      /^\S*0\.4\.0\.json has no Go names read from sdk\/go\/observability\/pulumiTypes\.go by .*: remove it and run node scripts\/renamed-types\.mts --record/,
    );
  }, 60_000);

  test("a missing fixture is named, with the command that records it", () => {
    const r = check({ root: dir, fixture: path.join(dir, "absent.json") });
    expect((r.stdout as { threw: string }).threw).toMatch(
      /^cannot read \S*absent\.json \(0\.4\.0's type names\): ENOENT; run node scripts\/renamed-types\.mts --record in a clone with [0-9a-f]{40}$/,
    );
  });

  test("--record never overwrites the fixture", () => {
    const before = readFileSync(FIXTURE);
    const r = spawnSync(process.execPath, [SCRIPT, "--record"], { cwd: ROOT, encoding: "utf8" });
    expect({ status: r.status, stderr: r.stderr.trim() }).toEqual({
      status: 1,
      stderr:
        "renamed-types: test/fixtures/sdk-names/0.4.0.json exists and is not rewritten; remove it first to record again",
    });
    expect(readFileSync(FIXTURE).equals(before)).toBe(true);
  });
});
