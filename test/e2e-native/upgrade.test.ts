/**
 * Upgrading the plugin never replaces, nor changes, a stack made by a released version: Pulumi's provider-upgrade
 * test (pulumi/providertest previewProviderUpgrade.go: the baseline version's stack state, recorded once and kept
 * with the tests, is imported into a fresh stack and previewed with the current provider; assertpreview's
 * HasNoReplacements and HasNoChanges), with the real `pulumi` CLI, the YAML language host and the plugin built here.
 *
 * test/fixtures/native-state/<version>/ holds, for each released version, what its plugin made of the flagship:
 * - Pulumi.yaml: the program it ran (examples/yaml-flagship at that version), so a later edit of the example does
 *   not read as a change of the provider;
 * - Pulumi.dev.yaml: the stack's configuration, its secrets (the provider's token, the webhook URL) ciphertext
 *   under the passphrase the harness uses (flagship.ts, PULUMI_CONFIG_PASSPHRASE) with the stack's own salt;
 * - stack.json: `pulumi stack export` of the stack after `up`, every secret ciphertext under the same passphrase.
 * No plaintext credential is in any of them: the recording step checks it, and so does every run.
 *
 * The preview needs no service: Check and Diff are the provider's own, and the recorded url names the emulator of
 * the recording, long gone. `E2E_RECORD_STATE=1 npm run test:e2e -- upgrade` records the current
 * version's state (CONTRIBUTING.md, "Upgrading never replaces").
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { sameJson } from "../../provider/resources/values";
import { mustExec } from "../../scripts/shared/commands";
import {
  openHarness,
  plaintextSecrets,
  ROOT,
  SECRET_SIG,
  stackOutputs,
  toolPath,
  VERSION,
  type Harness,
} from "./flagship";

const FIXTURES = path.join(ROOT, "test", "fixtures", "native-state");
const RECORDED = ["Pulumi.yaml", "Pulumi.dev.yaml", "stack.json"];
const recorded = existsSync(FIXTURES) ? readdirSync(FIXTURES).sort() : [];
const record = process.env.E2E_RECORD_STATE === "1";

const cli = toolPath("pulumi-path.mts");
const host = toolPath("pulumi-yaml.mts");
const missing = cli.path ? (host.path ? undefined : `no YAML language host: ${host.reason}`) : cli.reason;
if (missing) console.warn(`native upgrade: skipped: ${missing}`);
const maybe = missing ? describe.skip : describe;

/** `pulumi <args> --stack dev --non-interactive` in `cwd`. */
const pulumi = (h: Harness, cwd: string, args: string[], input?: string) =>
  mustExec(h.pulumi, [...args, "--stack", "dev", "--non-interactive"], { cwd, env: h.env, input });

/** One step of `pulumi preview --json` (pulumi/pulumi sdk/go/common/apitype: PreviewStep). */
interface PreviewStep {
  op: string;
  urn: string;
  diffReasons?: string[];
  replaceReasons?: string[];
  detailedDiff?: Record<string, { kind: string }>;
}

maybe("upgrading the native provider never replaces nor changes a recorded stack", () => {
  let h: Harness;
  beforeAll(async () => {
    // The harness's PULUMI_HOME holds the plugin built here, installed at the package's version.
    h = await openHarness(cli.path!, "yaml-flagship", [host.path!]);
  }, 20 * 60_000);
  afterAll(async () => h?.close());

  test("a state is recorded for 0.4.0, the first released version of the plugin, and each holds its three files", () => {
    expect(recorded).toContain("0.4.0");
    for (const version of recorded)
      expect(RECORDED.filter((f) => !existsSync(path.join(FIXTURES, version, f)))).toEqual([]);
  });

  (record ? test : test.skip)(
    `records the state ${VERSION}'s plugin makes of the flagship (E2E_RECORD_STATE=1)`,
    async () => {
      const target = path.join(FIXTURES, VERSION);
      if (existsSync(target))
        throw new Error(`${target} exists: a released version's recording is never redone`);
      await mustExec(
        h.pulumi,
        ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
        {
          cwd: h.work,
          env: h.env,
        },
      );
      await pulumi(h, h.work, ["config", "set", "observability:url", h.em.url]);
      await pulumi(h, h.work, ["config", "set", "--secret", "observability:token"], h.em.token);
      await pulumi(h, h.work, ["config", "set", "--secret", "slackWebhookUrl"], h.slackUrl);
      await pulumi(h, h.work, ["up", "--yes", "--skip-preview"]);
      const ingestToken = String((await stackOutputs(h)).ingestToken);
      mkdirSync(target, { recursive: true });
      await pulumi(h, h.work, ["stack", "export", "--file", path.join(target, "stack.json")]);
      for (const file of ["Pulumi.yaml", "Pulumi.dev.yaml"])
        copyFileSync(path.join(h.work, file), path.join(target, file));
      expect(
        plaintextSecrets(target, {
          "provider's token": h.em.token,
          "notifier's webhook URL": h.slackUrl,
          "ingest token": ingestToken,
        }),
      ).toEqual([]);
    },
  );

  /** A fresh stack holding the state `version`'s plugin recorded; `run` runs the CLI on it. */
  async function importRecorded(version: string) {
    const work = mkdtempSync(path.join(path.dirname(h.work), `upgrade-${version}-`));
    for (const file of RECORDED) copyFileSync(path.join(FIXTURES, version, file), path.join(work, file));
    const stateDir = path.join(work, ".pulumi-state");
    mkdirSync(stateDir);
    const env = { ...h.env, PULUMI_BACKEND_URL: `file://${stateDir}` };
    const run = (args: string[]) =>
      mustExec(h.pulumi, [...args, "--stack", "dev", "--non-interactive"], { cwd: work, env });
    // The recorded Pulumi.dev.yaml keeps its salt: the stack decrypts the recorded secrets with the passphrase.
    await mustExec(
      h.pulumi,
      ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
      {
        cwd: work,
        env,
      },
    );
    await run(["stack", "import", "--file", "stack.json"]);
    return { run };
  }

  /** The steps of a `pulumi preview --json --diff` that are not "same", and its summary. */
  async function previewChanges(run: (args: string[]) => Promise<string>) {
    const preview = JSON.parse(await run(["preview", "--json", "--diff"])) as {
      steps: PreviewStep[];
      changeSummary: Record<string, number>;
    };
    const changed = preview.steps
      .filter((s) => s.op !== "same")
      .map((s) => ({
        op: s.op,
        urn: s.urn,
        diff: s.diffReasons ?? [],
        replace: s.replaceReasons ?? [],
        detailed: s.detailedDiff ?? {},
      }));
    return { changed, summary: preview.changeSummary };
  }

  test.each(recorded)(
    "the state %s's plugin made previews with this build's plugin: every step the same, nothing replaced",
    async (version) => {
      const { run } = await importRecorded(version);
      const { changed, summary } = await previewChanges(run);
      expect(changed).toEqual([]);
      // The flagship's six resources and the stack.
      expect(summary).toEqual({ same: 7 });
    },
    10 * 60_000,
  );

  test.each(recorded)(
    "the state %s's plugin made shrinks at this build's first `up`, which changes nothing: inputs as declared",
    async (version) => {
      const { run } = await importRecorded(version);
      // Every step the same, so no request reaches the service (the recorded url names an emulator long gone).
      await run(["up", "--yes", "--skip-preview"]);
      const [last] = JSON.parse(await run(["stack", "history", "--json", "--page-size", "1"])) as {
        result: string;
        resourceChanges: Record<string, number>;
      }[];
      expect(last).toMatchObject({ result: "succeeded", resourceChanges: { same: 7 } });

      const before = customResources(
        JSON.parse(readFileSync(path.join(FIXTURES, version, "stack.json"), "utf8")),
      );
      const after = customResources(JSON.parse(await run(["stack", "export"])));
      // The same resources (the engine saves them in the order their steps ran).
      expect(after.map((r) => r.urn).sort()).toEqual(before.map((r) => r.urn).sort());
      for (const r of after) {
        // The inputs are what the program declared: the keys the engine recorded dependencies for (the YAML
        // language host sends only declared properties, and the engine records each one's dependencies).
        expect({ urn: r.urn, inputs: Object.keys(r.inputs).sort() }).toEqual({
          urn: r.urn,
          inputs: Object.keys(r.propertyDependencies ?? {}).sort(),
        });
        // What the service holds stays as it was: the outputs change only at the resource's next update.
        // A secret is encrypted again with a fresh nonce at every save, so only its place is compared.
        expect(sealed(r.outputs)).toEqual(sealed(before.find((b) => b.urn === r.urn)!.outputs));
      }
      const bytes = (rs: CustomResource[]) => rs.reduce((n, r) => n + JSON.stringify(r.inputs).length, 0);
      const keys = (o: object | undefined) => Object.keys(o ?? {}).sort();
      const declaredOnly = before.every((b) => sameJson(keys(b.inputs), keys(b.propertyDependencies)));
      if (declaredOnly) {
        // Recorded after check stopped writing the defaults (0.5.0): nothing to shed, and nothing grows.
        expect(bytes(after)).toBeLessThanOrEqual(bytes(before));
      } else {
        // 0.4.0: 2,037 bytes of inputs before, 1,331 after; the rest is the declarations and their secrets.
        expect(bytes(after)).toBeLessThan(bytes(before) * 0.7);
      }

      // And the smaller state previews as no change too.
      const { changed, summary } = await previewChanges(run);
      expect(changed).toEqual([]);
      expect(summary).toEqual({ same: 7 });
    },
    10 * 60_000,
  );

  test.each(recorded)("the recording of %s holds its secrets as ciphertext only", (version) => {
    const config = readFileSync(path.join(FIXTURES, version, "Pulumi.dev.yaml"), "utf8");
    for (const key of ["observability:token", "slackWebhookUrl"])
      expect(config).toMatch(new RegExp(`${key}:\\n\\s+secure: v1:`));
    const secrets = secretValues(
      JSON.parse(readFileSync(path.join(FIXTURES, version, "stack.json"), "utf8")),
    );
    // The provider's token, the notifier's properties, the ingest token: in inputs and outputs.
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    for (const s of secrets) {
      expect(Object.keys(s).sort()).toEqual([SECRET_SIG, "ciphertext"].sort());
      expect(typeof s.ciphertext).toBe("string");
    }
  });
});

interface CustomResource {
  urn: string;
  custom?: boolean;
  type: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  propertyDependencies?: Record<string, string[]>;
}

/** The observability resources of an exported stack, in its order. */
function customResources(exported: { deployment: { resources: CustomResource[] } }): CustomResource[] {
  return exported.deployment.resources.filter((r) => r.custom && r.type.startsWith("observability:index:"));
}

/** `v` with each secret value object replaced by a mark. */
function sealed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sealed);
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  if (SECRET_SIG in o) return "[secret]";
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, sealed(x)]));
}

/** Every secret value object in a deployment, wherever it is. */
function secretValues(v: unknown): Record<string, unknown>[] {
  if (Array.isArray(v)) return v.flatMap(secretValues);
  if (v === null || typeof v !== "object") return [];
  const o = v as Record<string, unknown>;
  if (SECRET_SIG in o) return [o];
  return Object.values(o).flatMap(secretValues);
}
