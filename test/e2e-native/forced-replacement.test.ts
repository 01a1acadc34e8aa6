/**
 * A replacement Pulumi forces (`pulumi up --replace`) never asks the provider (pulumi/pulumi
 * pkg/resource/deploy/step_generator.go: a targeted replace gets a diff that blames the `id`, and the provider's
 * deleteBeforeReplace is not consulted), so on the native provider the kinds whose identity is unique need the
 * `deleteBeforeReplace` resource option, as their pages show in each language. Under the real engine, in two
 * languages (a TypeScript inline program declaring the kinds by type token, and a YAML program through the YAML
 * language host), one stack each: every such kind declared with the option, created, then all replaced in one
 * `up --replace`; each is deleted, then created again, and the service holds one object of each. Without the
 * option a Dashboard with a declared uid fails with 409, which is why the option is documented.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import type * as Automation from "@pulumi/pulumi/automation";
import type * as pulumi from "@pulumi/pulumi";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import type { PulumiCli } from "../../scripts/shared/engine";
import {
  declare,
  engineEnv,
  findCliAndPlugin,
  findLanguageHost,
  openStack,
  removeTempDirs,
  runCli,
  tempDir,
} from "./native-support";
import { setStackConfig } from "../helpers/stack-config";

const found = findCliAndPlugin();
const cli: PulumiCli | undefined = "cli" in found ? found.cli : undefined;
if (!cli) console.warn(`forced replacement e2e skipped: ${"reason" in found ? found.reason : ""}`);
const yamlHost = cli ? findLanguageHost("pulumi-language-yaml", cli) : undefined;
if (cli && !yamlHost)
  console.warn("forced replacement e2e, YAML: skipped: no pulumi-language-yaml (npm run yaml:dir)");

/** The kinds whose identity is unique, with the inputs each is declared with (`orgId`: the emulator's). */
function uniqueKinds(orgId: string): Record<string, { name: string; args: Record<string, unknown> }> {
  return {
    Dataset: { name: "logs", args: { name: "forced-logs", forceDestroy: true } },
    Group: { name: "group", args: { name: "forced-group" } },
    Role: { name: "role", args: { name: "forced-role", orgCapabilities: { datasets: ["read"] } } },
    User: { name: "user", args: { name: "Forced User", email: "forced@example.com", role: "user" } },
    View: { name: "view", args: { name: "forced-view", aplQuery: "['forced-logs'] | take 1" } },
    Dashboard: {
      name: "board",
      args: {
        uid: "forced-board",
        dashboard: {
          name: "Forced board",
          charts: [{ id: "note", type: "Note", text: "hello" }],
          layout: [{ i: "note", x: 0, y: 0, w: 12, h: 2 }],
          refreshTime: 60,
          schemaVersion: 2,
          timeWindowStart: "qr-now-1h",
          timeWindowEnd: "qr-now",
        },
      },
    },
    OrganizationName: { name: "org", args: { organizationId: orgId, name: "Forced Org" } },
  };
}
const KINDS = 7;

/** What the service holds of those kinds: names (ids where the service assigns them), one a kind. */
async function holdings(client: ObservabilityClient, orgId: string) {
  const named = (xs: { id: string; name?: string }[], name: string) => xs.filter((x) => x.name === name);
  return {
    datasets: named(await client.datasets.list(), "forced-logs").map((x) => x.id),
    groups: named(await client.groups.list(), "forced-group").map((x) => x.id),
    roles: named(await client.roles.list(), "forced-role").map((x) => x.id),
    users: (await client.users.list()).filter((u) => u.email === "forced@example.com").map((u) => u.id),
    views: named(await client.views.list(), "forced-view").map((x) => x.id),
    dashboards: (await client.dashboards.listAll()).filter((d) => d.uid === "forced-board").map((d) => d.uid),
    orgName: (await client.orgs.get(orgId)).name,
  };
}

/** The counts of an operation's changes, zero counts left out. */
const summary = (s: Record<string, number> | undefined) =>
  Object.fromEntries(Object.entries(s ?? {}).filter(([, n]) => n > 0));

(cli ? describe : describe.skip)("forced replacement of every kind whose identity is unique", () => {
  jest.setTimeout(600_000);
  let em: RunningEmulator;
  let client: ObservabilityClient;
  afterAll(async () => removeTempDirs());

  describe("TypeScript, an inline program, `deleteBeforeReplace: true` on each", () => {
    let stack: Automation.Stack;
    let dashboardOption = true;
    const urn = (kind: string, name: string) =>
      `urn:pulumi:main::native-e2e::observability:index:${kind}::${name}`;

    beforeAll(async () => {
      em = await startEmulator({ port: 0, host: "127.0.0.1" });
      client = new ObservabilityClient({ url: em.url, token: em.token });
      const kinds = uniqueKinds(em.orgId);
      const program = async () => {
        const out: Record<string, pulumi.Output<string>> = {};
        for (const [kind, { name, args }] of Object.entries(kinds)) {
          const deleteBeforeReplace = kind === "Dashboard" ? dashboardOption : true;
          out[kind] = declare(kind, name, args, { deleteBeforeReplace }).id;
        }
        return out;
      };
      const stateDir = tempDir("forced-ts-state-");
      stack = await openStack({
        cli: cli!,
        workDir: tempDir("forced-ts-work-"),
        stackName: "main",
        program,
        env: engineEnv(cli!, stateDir),
      });
      // The token on the CLI's stdin, never in its arguments (test/helpers/stack-config.ts).
      await setStackConfig(stack, {
        "observability:url": { value: em.url },
        "observability:token": { value: em.token, secret: true },
      });
    });
    afterAll(async () => {
      await client?.close();
      await em?.close();
    });

    test("up --replace of all of them deletes each first, then creates it again: one of each remains", async () => {
      expect(summary((await stack.up()).summary.resourceChanges)).toEqual({ create: KINDS + 1 });
      const before = await holdings(client, em.orgId);
      const kinds = uniqueKinds(em.orgId);
      const up = await stack.up({ replace: Object.entries(kinds).map(([k, { name }]) => urn(k, name)) });
      expect(summary(up.summary.resourceChanges)).toEqual({ replace: KINDS, same: 1 });
      const after = await holdings(client, em.orgId);
      expect(after.orgName).toBe("Forced Org");
      for (const family of ["datasets", "groups", "roles", "users", "views", "dashboards"] as const)
        expect({ family, count: after[family].length }).toEqual({ family, count: 1 });
      // The service gives a group, a role and a user a new id: the replacement is a new object.
      for (const family of ["groups", "roles", "users"] as const)
        expect({ family, same: after[family][0] === before[family][0] }).toEqual({ family, same: false });
    });

    test("without the option, the Dashboard's forced replacement, created first, fails with 409", async () => {
      dashboardOption = false;
      await expect(stack.up({ replace: [urn("Dashboard", "board")] })).rejects.toThrow(/409|already exists/);
      dashboardOption = true;
      // The old dashboard stays, and the next preview sees the stack as it was.
      expect((await holdings(client, em.orgId)).dashboards).toEqual(["forced-board"]);
      expect(summary((await stack.preview()).changeSummary)).toEqual({ same: KINDS + 1 });
    });

    test("destroy removes them all", async () => {
      expect(summary((await stack.destroy()).summary.resourceChanges)).toEqual({ delete: KINDS + 1 });
      const left = await holdings(client, em.orgId);
      expect({ ...left, orgName: undefined }).toEqual({
        datasets: [],
        groups: [],
        roles: [],
        users: [],
        views: [],
        dashboards: [],
        orgName: undefined,
      });
    });
  });

  (yamlHost ? describe : describe.skip)("YAML, `options: deleteBeforeReplace: true` on each", () => {
    let yem: RunningEmulator;
    let yclient: ObservabilityClient;
    let work: string;
    let env: Record<string, string>;
    const pulumiCli = (args: string[], input?: string) =>
      runCli(cli!, [...args, "--stack", "dev", "--non-interactive"], work, env, input);

    beforeAll(async () => {
      yem = await startEmulator({ port: 0, host: "127.0.0.1" });
      yclient = new ObservabilityClient({ url: yem.url, token: yem.token });
      work = tempDir("forced-yaml-work-");
      const stateDir = path.join(work, ".state");
      mkdirSync(stateDir);
      env = engineEnv(cli!, stateDir);
      env.PATH = [path.dirname(yamlHost!), env.PATH].join(path.delimiter);
      const resources = Object.entries(uniqueKinds(yem.orgId))
        .map(
          ([kind, { name, args }]) =>
            `  ${name}:\n    type: observability:${kind}\n    properties: ${JSON.stringify(args)}\n` +
            "    options:\n      deleteBeforeReplace: true\n",
        )
        .join("");
      writeFileSync(
        path.join(work, "Pulumi.yaml"),
        `name: forced-yaml\nruntime: yaml\nresources:\n${resources}`,
      );
      await runCli(
        cli!,
        ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
        work,
        env,
      );
      await pulumiCli(["config", "set", "observability:url", yem.url]);
      await pulumiCli(["config", "set", "--secret", "observability:token"], yem.token);
    });
    afterAll(async () => {
      await yclient?.close();
      await yem?.close();
    });

    test("up --replace of all of them deletes each first, then creates it again: one of each remains", async () => {
      const created = await pulumiCli(["up", "--yes", "--skip-preview"]);
      expect(created).toMatch(new RegExp(`\\+ ${KINDS + 1} created`));
      const before = await holdings(yclient, yem.orgId);
      const targets = Object.entries(uniqueKinds(yem.orgId)).flatMap(([kind, { name }]) => [
        "--replace",
        `urn:pulumi:dev::forced-yaml::observability:index:${kind}::${name}`,
      ]);
      const replaced = await pulumiCli(["up", "--yes", "--skip-preview", ...targets]);
      expect(replaced).toMatch(new RegExp(`\\+-${KINDS} replaced`));
      const after = await holdings(yclient, yem.orgId);
      expect(after.orgName).toBe("Forced Org");
      for (const family of ["datasets", "groups", "roles", "users", "views", "dashboards"] as const)
        expect({ family, count: after[family].length }).toEqual({ family, count: 1 });
      for (const family of ["groups", "roles", "users"] as const)
        expect({ family, same: after[family][0] === before[family][0] }).toEqual({ family, same: false });
      await pulumiCli(["destroy", "--yes", "--skip-preview"]);
      expect((await holdings(yclient, yem.orgId)).dashboards).toEqual([]);
    });
  });
});
