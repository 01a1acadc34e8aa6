/**
 * examples/team-access, run for real: its roles must exist in the emulator with the capabilities the program
 * declares, the organization must carry the new name, and an unchanged second pass must diff as no change.
 */
import { ObservabilityClient } from "../../provider/client";
import { useEmulator } from "../helpers/emulator";
import { startProviderHost, type ProviderHost } from "../helpers/host";
import { createStep, diffStep, type DiffRecord } from "./engine";
import { ofKind, runProgram, type ProgramRun } from "./program";

const PROJECT = "team-access";
const ORG_NAME = "Team Access Test Org";

const em = useEmulator();
let host: ProviderHost;
let client: ObservabilityClient;
let originalOrgName: string;
let first: ProgramRun;
let second: ProgramRun;
const diffs: DiffRecord[] = [];

function programOptions() {
  return {
    example: "team-access",
    project: PROJECT,
    config: {
      "observability:url": em.current.url,
      "observability:token": em.current.token,
      "observability:orgId": em.current.orgId,
      [`${PROJECT}:orgName`]: ORG_NAME,
      [`${PROJECT}:sreMembers`]: JSON.stringify(["usr_alice", "usr_bob"]),
    },
    secretKeys: ["observability:token"],
  };
}

beforeAll(async () => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token, orgId: em.current.orgId });
  originalOrgName = (await client.orgs.get(em.current.orgId)).name;
  host = await startProviderHost({
    config: {
      "observability:url": em.current.url,
      "observability:token": em.current.token,
      "observability:orgId": em.current.orgId,
    },
    secretKeys: ["observability:token"],
    project: PROJECT,
  });
  await host.configure();
  first = await runProgram({ ...programOptions(), register: createStep(host, PROJECT) });
  second = await runProgram({ ...programOptions(), register: diffStep(host, PROJECT, first, diffs) });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await client?.close();
});

const CRUD = ["create", "delete", "read", "update"];
/** Capability maps compared without regard to the order of actions. */
function normalized(caps: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(caps ?? {})) {
    out[k] = Array.isArray(v) ? [...v].sort() : normalized(v as Record<string, unknown>);
  }
  return out;
}

describe("examples/team-access", () => {
  it("creates the sre role with its org, dataset and view capabilities and its members", async () => {
    const role = await client.roles.get((first.exports.roleIds as Record<string, string>).sre);
    expect(role.name).toBe("sre");
    expect([...(role.members ?? [])].sort()).toEqual(["usr_alice", "usr_bob"]);
    expect(normalized(role.orgCapabilities)).toEqual({
      monitors: CRUD,
      notifiers: CRUD,
      annotations: CRUD,
      dashboards: ["create", "read", "update"],
      datasets: ["read"],
      auditLog: ["read"],
      billing: ["read"],
    });
    expect(normalized(role.datasetCapabilities)).toEqual({
      "http-logs": { ingest: ["create"], query: ["read"], starredQueries: CRUD, trim: ["update"] },
      "app-logs": { ingest: ["create"], query: ["read"], starredQueries: CRUD },
    });
    expect(normalized(role.viewCapabilities)).toEqual({
      "checkout-errors": { query: ["read"], share: ["create", "delete", "read"] },
    });
  });

  it("creates the read-only support role with nothing beyond reads", async () => {
    const role = await client.roles.get((first.exports.roleIds as Record<string, string>).support);
    expect(role.name).toBe("support-readonly");
    const actions = [
      ...Object.values(role.orgCapabilities ?? {}),
      ...Object.values(role.datasetCapabilities ?? {}).flatMap((c) => Object.values(c)),
      ...Object.values(role.viewCapabilities ?? {}).flatMap((c) => Object.values(c)),
    ].flat();
    expect(actions.length).toBeGreaterThan(0);
    expect(new Set(actions)).toEqual(new Set(["read"]));
    expect((await client.roles.list()).map((r) => r.name).sort()).toEqual(["sre", "support-readonly"]);
  });

  it("renames the organization and outputs the new name", async () => {
    expect(originalOrgName).not.toBe(ORG_NAME);
    expect((await client.orgs.get(em.current.orgId)).name).toBe(ORG_NAME);
    expect(first.exports.organizationName).toBe(ORG_NAME);
    expect(ofKind(first, "OrganizationName")).toHaveLength(1);
  });

  it("a second pass of check and diff over the same program reports no changes", async () => {
    expect(first.registrations).toHaveLength(3);
    expect(diffs).toHaveLength(3);
    expect(diffs.filter((d) => d.changed || d.replaces.length > 0)).toEqual([]);
    expect(second.registrations.map((r) => r.id).sort()).toEqual(first.registrations.map((r) => r.id).sort());
    expect(await client.roles.list()).toHaveLength(2);
  });
});
