/**
 * CHANGELOG.md's 0.5.0 table of renamed SDK types is what scripts/renamed-types.mts derives: the new names from
 * the schema's walk (TYPE_NAMES), the old ones as 0.4.0's generator named the same places, both checked against
 * the SDKs (0.4.0's read from git history, at OLD_NAMES_COMMIT). A TYPE_NAMES change that renames a type again
 * leaves the committed table stale, and the check fails naming CHANGELOG.md.
 */
import { spawnSync } from "node:child_process";
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
    `RoleOrgCapabilities (0.4.0's name for OrgCapabilities) is in no SDK of ${"fd07e196bd4c6cbceb404bff3f4d3f4a9cd9414b"}; ` +
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
