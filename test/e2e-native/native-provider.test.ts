/**
 * The native provider under the real Pulumi engine: the `pulumi` CLI (found by scripts/lib.mts findPulumiCli),
 * a file backend, and the plugin `pulumi-resource-observability` that `npm run build` writes, found first on the
 * CLI's PATH. A TypeScript Automation API inline program declares every kind by its type token as a
 * `pulumi.CustomResource`, against fresh emulators, in Pulumi's integration-test sequence
 * (pulumi/pulumi pkg/testing/integration/program.go, `TestLifeCycleInitAndDestroy`): preview and up; export and
 * import of the state; preview and refresh with no changes; an edit that updates; a `--replace`; destroy, after
 * which the service holds what it held before. Then: the `import` option for an object made out of band, the
 * `pulumi import` command, two explicit providers at two organizations, a preview without credentials, and a
 * scan of every state for credentials and serialized functions.
 *
 * Skips, saying why, when there is no CLI or the plugin is not built.
 */
import { readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type * as Automation from "@pulumi/pulumi/automation";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import type { PulumiCli } from "../../scripts/shared/engine";
import { serviceContents } from "../helpers/service-contents";
import {
  ObservabilityProvider,
  findLanguageHost,
  SLACK_URL,
  declare,
  engineEnv,
  everyKind,
  findCliAndPlugin,
  monitorArgs,
  openStack,
  removeTempDirs,
  runCli,
  tempDir,
  type Variant,
} from "./native-support";
import { setStackConfig } from "../helpers/stack-config";

const found = findCliAndPlugin();
const cli: PulumiCli | undefined = "cli" in found ? found.cli : undefined;
if (!cli) {
  // A skipped suite says why in the run's output.
  console.warn(`native-provider e2e skipped: ${"reason" in found ? found.reason : ""}`);
}
const suite = cli ? describe : describe.skip;

const SECOND_TOKEN = "xaat-second-organization-token";
const KINDS = 13;

suite("the native provider under the real engine", () => {
  jest.setTimeout(300_000);
  let em: RunningEmulator;
  let second: RunningEmulator;
  let client: ObservabilityClient;
  let secondClient: ObservabilityClient;
  let stateDir: string;
  let env: Record<string, string>;
  let stack: Automation.Stack;
  let before: Record<string, string[]>;
  const variant: Variant = { threshold: 5 };
  const tokens: string[] = [];
  /** Every state exported along the way, scanned at the end. */
  const states: string[] = [];

  const program = async () => {
    const resources = everyKind(em.orgId, variant);
    return Object.fromEntries(Object.entries(resources).map(([k, r]) => [k, r.id]));
  };
  const summary = (s: Record<string, number> | undefined) =>
    Object.fromEntries(Object.entries(s ?? {}).filter(([, n]) => n > 0));
  /** The stack's state as the backend stores it (an export would show the secrets decrypted). */
  const exportState = async (s: Automation.Stack) => {
    const file = path.join(stateDir, ".pulumi", "stacks", "native-e2e", `${s.name}.json`);
    const text = JSON.stringify(
      (JSON.parse(readFileSync(file, "utf8")) as { checkpoint: { latest: unknown } }).checkpoint.latest,
    );
    states.push(text);
    return text;
  };

  beforeAll(async () => {
    em = await startEmulator({ port: 0, host: "127.0.0.1" });
    second = await startEmulator({ port: 0, host: "127.0.0.1", token: SECOND_TOKEN, orgId: "second-org" });
    client = new ObservabilityClient({ url: em.url, token: em.token });
    secondClient = new ObservabilityClient({ url: second.url, token: second.token });
    tokens.push(em.token, second.token);
    stateDir = tempDir("native-e2e-state-");
    env = engineEnv(cli!, stateDir);
    stack = await openStack({
      cli: cli!,
      workDir: tempDir("native-e2e-work-"),
      stackName: "main",
      program,
      env,
    });
    // The token on the CLI's stdin, never in its arguments (test/helpers/stack-config.ts).
    await setStackConfig(stack, {
      "observability:url": { value: em.url },
      "observability:token": { value: em.token, secret: true },
    });
    before = await serviceContents(client);
  });
  afterAll(async () => {
    await client?.close();
    await secondClient?.close();
    await em?.close();
    await second?.close();
    removeTempDirs();
  });

  test("preview shows every kind to create, under its own type token", async () => {
    const preview = await stack.preview();
    expect(summary(preview.changeSummary)).toEqual({ create: KINDS + 1 }); // + the stack
  });

  test("up creates every kind in the service", async () => {
    const up = await stack.up();
    expect(summary(up.summary.resourceChanges)).toEqual({ create: KINDS + 1 });
    const state = JSON.parse(await exportState(stack)) as { resources: { type: string }[] };
    const types = new Set(state.resources.map((r) => r.type));
    for (const kind of ["Monitor", "Notifier", "Dashboard", "ApiToken", "OrganizationName"])
      expect(types).toContain(`observability:index:${kind}`);
    expect(types).not.toContain("pulumi-nodejs:dynamic:Resource");
    const outputs = up.outputs;
    expect((await client.monitors.get(String(outputs.Monitor.value))).threshold).toBe(5);
    expect((await client.orgs.get(em.orgId)).name).toBe("Native Org");
  });

  test("the state survives export and import", async () => {
    const deployment = await stack.exportStack();
    await stack.importStack(deployment);
    expect(JSON.stringify((await stack.exportStack()).deployment.resources)).toBe(
      JSON.stringify(deployment.deployment.resources),
    );
  });

  test("preview and refresh then show no changes", async () => {
    const preview = await stack.preview({ expectNoChanges: true });
    expect(summary(preview.changeSummary)).toEqual({ same: KINDS + 1 });
    const refresh = await stack.refresh({ expectNoChanges: true });
    expect(summary(refresh.summary.resourceChanges)).toEqual({ same: KINDS + 1 });
  });

  test("an edit of the program updates exactly that resource", async () => {
    variant.threshold = 6;
    const up = await stack.up();
    expect(summary(up.summary.resourceChanges)).toEqual({ update: 1, same: KINDS });
    expect((await client.monitors.get(String(up.outputs.Monitor.value))).threshold).toBe(6);
  });

  test("`up --replace` replaces the resource: a new object, the old one deleted", async () => {
    const old = String((await stack.outputs()).Monitor.value);
    const urn = `urn:pulumi:main::native-e2e::observability:index:Monitor::errors`;
    const up = await stack.up({ replace: [urn] });
    expect(summary(up.summary.resourceChanges)).toEqual({ replace: 1, same: KINDS });
    const now = String(up.outputs.Monitor.value);
    expect(now).not.toBe(old);
    expect((await client.monitors.list()).map((m) => m.id)).not.toContain(old);
  });

  test("the `import` option takes an object made out of band, and the next preview shows no changes", async () => {
    const args = { ...monitorArgs(9), name: "made elsewhere" };
    const made = await client.monitors.create(args as never);
    variant.importMonitor = { id: made.id, args };
    const up = await stack.up();
    expect(summary(up.summary.resourceChanges)).toEqual({ import: 1, same: KINDS + 1 });
    expect(String(up.outputs.Imported.value)).toBe(made.id);
    const preview = await stack.preview({ expectNoChanges: true });
    expect(summary(preview.changeSummary)).toEqual({ same: KINDS + 2 });
    await exportState(stack);
  });

  test("destroy leaves the service as it was before", async () => {
    await exportState(stack);
    await stack.destroy();
    expect(await serviceContents(client)).toEqual(before);
  });

  // `pulumi import` loads the project's language host, even with --generate-code=false (pulumi/pulumi
  // pkg/cmd/pulumi/operations/import.go). The Node.js one is not built here; the YAML one, pulumi-language-yaml,
  // builds from the Go modules (pulumi/pulumi-yaml cmd/pulumi-language-yaml). Where it is on PATH or in the
  // project's cache, a YAML project imports, and the CLI writes the program from the package schema.
  const languageHost = findLanguageHost("pulumi-language-yaml", cli);
  (languageHost ? test : test.skip)(
    `\`pulumi import observability:index:Monitor <name> <id>\` imports and writes the program (${languageHost ?? "no pulumi-language-yaml here"})`,
    async () => {
      const made = await client.monitors.create({ ...monitorArgs(3), name: "cli import" } as never);
      const project = tempDir("native-e2e-yaml-");
      writeFileSync(path.join(project, "Pulumi.yaml"), "name: native-yaml\nruntime: yaml\n");
      const yamlEnv = { ...env, PATH: [path.dirname(languageHost!), env.PATH].join(path.delimiter) };
      const pulumiIn = (args: string[], input?: string) => runCli(cli!, args, project, yamlEnv, input);
      try {
        await pulumiIn(["stack", "init", "yaml", "--non-interactive"]);
        await pulumiIn(["config", "set", "observability:url", em.url, "--stack", "yaml"]);
        await pulumiIn(["config", "set", "--secret", "observability:token", "--stack", "yaml"], em.token);
        const program = path.join(project, "imported.yaml");
        const out = await pulumiIn([
          "import",
          "observability:index:Monitor",
          "cli-imported",
          made.id,
          "--yes",
          "--protect=false",
          "--out",
          program,
          "--stack",
          "yaml",
          "--non-interactive",
        ]);
        expect(out).toMatch(/1 imported/);
        const code = readFileSync(program, "utf8");
        expect(code).toContain("type: observability:Monitor");
        expect(code).toContain("name: cli import");
        const file = path.join(stateDir, ".pulumi", "stacks", "native-yaml", "yaml.json");
        const state = readFileSync(file, "utf8");
        states.push(state);
        const resources = (
          JSON.parse(state) as { checkpoint: { latest: { resources: { urn: string; id?: string }[] } } }
        ).checkpoint.latest.resources;
        const imported = resources.find((r) => r.urn.endsWith("observability:index:Monitor::cli-imported"));
        expect(imported?.id).toBe(made.id);
        await pulumiIn(["stack", "rm", "yaml", "--force", "--yes", "--non-interactive"]);
      } finally {
        await client.monitors.delete(made.id);
      }
    },
  );

  test("two explicit providers, pointed at two organizations, each create in their own", async () => {
    const stack2 = await openStack({
      cli: cli!,
      workDir: tempDir("native-e2e-two-"),
      stackName: "two-orgs",
      env,
      program: async () => {
        const a = new ObservabilityProvider("org-a", { url: em.url, token: pulumi.secret(em.token) });
        const b = new ObservabilityProvider("org-b", {
          url: second.url,
          token: pulumi.secret(second.token),
          orgId: "second-org",
        });
        const ma = declare("Monitor", "in-a", { ...monitorArgs(1), name: "in a" }, { provider: a });
        const mb = declare("Monitor", "in-b", { ...monitorArgs(2), name: "in b" }, { provider: b });
        return { a: ma.id, b: mb.id };
      },
    });
    const up = await stack2.up();
    const a = String(up.outputs.a.value);
    const b = String(up.outputs.b.value);
    expect((await client.monitors.list()).map((m) => m.name)).toEqual(["in a"]);
    expect((await secondClient.monitors.list()).map((m) => m.id)).toEqual([b]);
    expect((await client.monitors.get(a)).name).toBe("in a");
    await exportState(stack2);
    await stack2.destroy();
    expect(await client.monitors.list()).toEqual([]);
    expect(await secondClient.monitors.list()).toEqual([]);
  });

  test("the lookups are functions the engine invokes, through an explicit provider, secrets kept", async () => {
    const monitor = await secondClient.monitors.create({ ...monitorArgs(4), name: "looked up" } as never);
    const notifier = await secondClient.notifiers.create({
      name: "hook",
      properties: { webhook: { url: "https://example.com/NATIVE-LOOKUP-SECRET" } },
    });
    const lookups = await openStack({
      cli: cli!,
      workDir: tempDir("native-e2e-lookups-"),
      stackName: "lookups",
      env,
      program: async () => {
        const b = new ObservabilityProvider("org-b", { url: second.url, token: pulumi.secret(second.token) });
        const byName = await pulumi.runtime.invoke(
          "observability:index:getMonitor",
          { name: "looked up" },
          { provider: b },
        );
        const all = await pulumi.runtime.invoke("observability:index:getMonitors", {}, { provider: b });
        const hook = pulumi.runtime.invokeOutput<{ properties: unknown }>(
          "observability:index:getNotifier",
          { id: notifier.id },
          { provider: b },
        );
        return {
          byName: byName.id,
          count: (all.items as unknown[]).length,
          channel: hook.apply((n) => n.properties),
        };
      },
    });
    const up = await lookups.up();
    expect(up.outputs.byName.value).toBe(monitor.id);
    expect(up.outputs.count.value).toBe(1);
    expect(up.outputs.channel.secret).toBe(true);
    const state = await exportState(lookups);
    expect(state).not.toContain("NATIVE-LOOKUP-SECRET");
    await lookups.destroy();
    await secondClient.monitors.delete(monitor.id);
    await secondClient.notifiers.delete(notifier.id);
  });

  test("a preview with no credentials at all completes", async () => {
    variant.importMonitor = undefined;
    const noCreds = await openStack({
      cli: cli!,
      workDir: tempDir("native-e2e-nocreds-"),
      stackName: "nocreds",
      env,
      program,
    });
    const preview = await noCreds.preview();
    expect(summary(preview.changeSummary)).toEqual({ create: KINDS + 1 });
  });

  test("a preview of a bad input fails, the engine showing the property path the provider names", async () => {
    const bad = await openStack({
      cli: cli!,
      workDir: tempDir("native-e2e-bad-"),
      stackName: "bad",
      env,
      program: async () => {
        declare("Notifier", "bad", { name: "bad", properties: { slack: { slackUrl: "ftp://nope" } } });
      },
    });
    const failure = await bad.preview().then(
      () => "previewed",
      (e: Error) => e.message,
    );
    expect(failure).toContain("properties.slack.slackUrl");
    expect(failure).toContain("must be an http(s) URL");
  });

  test("no state holds a credential in plaintext or a serialized function", async () => {
    expect(states.length).toBeGreaterThanOrEqual(3);
    for (const text of states) {
      for (const secret of [...tokens, SLACK_URL, "NATIVE-SECRET-PATH", "xaat-"])
        expect(text).not.toContain(secret);
      expect(text).not.toContain("__provider");
      expect(text).not.toMatch(/exports\.handler|function\s*\(|=>/);
      // The credentials are there, encrypted.
      expect(text).toContain("ciphertext");
    }
  });
});
