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
 * the recording, long gone. `OBSERVABILITY_RECORD_STATE=1 npm run test:e2e -- upgrade` records the current
 * version's state (CONTRIBUTING.md, "Upgrading never replaces").
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import {
  mustExec,
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
const record = process.env.OBSERVABILITY_RECORD_STATE === "1";

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
    `records the state ${VERSION}'s plugin makes of the flagship (OBSERVABILITY_RECORD_STATE=1)`,
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

  test.each(recorded)(
    "the state %s's plugin made previews with this build's plugin: every step the same, nothing replaced",
    async (version) => {
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
      expect(changed).toEqual([]);
      // The flagship's six resources and the stack.
      expect(preview.changeSummary).toEqual({ same: 7 });
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

/** Every secret value object in a deployment, wherever it is. */
function secretValues(v: unknown): Record<string, unknown>[] {
  if (Array.isArray(v)) return v.flatMap(secretValues);
  if (v === null || typeof v !== "object") return [];
  const o = v as Record<string, unknown>;
  if (SECRET_SIG in o) return [o];
  return Object.values(o).flatMap(secretValues);
}
