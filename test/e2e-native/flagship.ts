/**
 * The flagship's shape in each Pulumi language (examples/<language>-flagship), run by the real engine — the
 * `pulumi` CLI this repository builds (scripts/pulumi-path.mts), a file backend, and the native provider plugin
 * installed as a user installs it (`pulumi plugin install resource observability <version> --file …`) — against
 * a fresh emulator per language.
 *
 * Each language goes through Pulumi's integration-test sequence (pulumi/pulumi pkg/testing/integration/
 * program.go: preview, up, then preview and refresh expecting no changes, an edit of the program that updates,
 * destroy), with two steps of this project's: a dataset made out of band is imported, and the state files
 * (every checkpoint, backup and history entry) are scanned for each credential in plaintext.
 *
 * The example is copied into a work folder under .demo/, so an edit or an install never touches the repository.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import * as path from "node:path";
import { mustExec, npm } from "../../scripts/shared/commands";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import { findCliAndPlugin, findLanguageHost } from "./native-support";

export const ROOT = path.resolve(__dirname, "../..");
/** The Node this test runs on (Node 24 from the `node` devDependency inside npm scripts). */
export const NODE = process.execPath;
/** The package's version: the plugin's and the SDKs'. */
export const VERSION = (
  JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }
).version;
export const PLUGIN = path.join(ROOT, "dist", "plugin", "pulumi-resource-observability");

/**
 * The repository's TypeScript checks a program's files against the SDK installed beside them, strictly, as the
 * project's own `tsc` would: Node runs them without checking types.
 */
export function typecheckProgram(
  files: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<string> {
  const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
  const flags = ["--noEmit", "--strict", "--skipLibCheck", "--target", "es2022"];
  const modules = ["--module", "nodenext", "--moduleResolution", "nodenext", "--allowImportingTsExtensions"];
  return mustExec(NODE, [tsc, ...flags, ...modules, "--types", "node", ...files], options);
}

/**
 * This checkout's sdk/nodejs made the dependency of the Node project in `cwd`, then `npm install` with `flags`. The
 * project is a copy that lives elsewhere than its example, so its dependency on the SDK names this checkout's.
 */
export async function installTypeScriptSdk(
  flags: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<void> {
  const sdk = `dependencies.@pulumi-observability/sdk=file:${path.join(ROOT, "sdk", "nodejs")}`;
  const [setCmd, setArgs] = npm(["pkg", "set", sdk]);
  await mustExec(setCmd, setArgs, options);
  const [cmd, args] = npm(["install", ...flags, "--no-audit", "--no-fund", "--loglevel=error"]);
  await mustExec(cmd, args, options);
}

/**
 * A tool the run's global setup got (test/e2e/global-setup.mts), named by the script that prints it: the
 * `pulumi` executable (`npm run pulumi:path`) or the YAML host's folder (`npm run yaml:dir`). `reason` says why
 * there is none (no Go to build it). Synchronous: whether a file's tests run depends on it.
 */
export function toolPath(script: "pulumi-path.mts" | "pulumi-yaml.mts"): { path?: string; reason?: string } {
  const found = findCliAndPlugin();
  if (!("cli" in found)) return { reason: found.reason };
  if (script === "pulumi-path.mts") return { path: found.cli.pulumi };
  const host = findLanguageHost("pulumi-language-yaml", found.cli);
  return host
    ? { path: path.dirname(host) }
    : { reason: "no pulumi-language-yaml: no Go toolchain to build it" };
}

/** The change counts of an operation, by kind of change (`create`, `same`, `update`, `import`, `delete`). */
export type Changes = Record<string, number>;

/**
 * The change counts in a `pulumi --json` run's output: `preview --json` prints one document with `changeSummary`;
 * `up`, `refresh`, `destroy` and `import` with `--json --skip-preview` print engine events, one a line, whose
 * `summaryEvent` has `resourceChanges` (pulumi/pulumi sdk/go/common/apitype/events.go).
 */
export function changesOf(stdout: string): Changes {
  try {
    const doc = JSON.parse(stdout) as { changeSummary?: Changes };
    if (doc.changeSummary) return doc.changeSummary;
  } catch {
    // A stream of events, one a line.
  }
  const summaries = stdout
    .split("\n")
    .filter((l) => l.includes('"summaryEvent"'))
    .map((l) => JSON.parse(l) as { summaryEvent: { resourceChanges?: Changes; result?: string } });
  const last = summaries.at(-1);
  if (!last) throw new Error(`no summary in the engine's output:\n${stdout.slice(-2000)}`);
  return last.summaryEvent.resourceChanges ?? {};
}

/** Only `same` entries: nothing would change. */
export function noChanges(changes: Changes): boolean {
  return Object.entries(changes).every(([op, n]) => op === "same" || n === 0);
}

/** What every language's run shares: the engine's environment, a fresh emulator, a client on it, secrets. */
export interface Harness {
  /** The CLI as the harness and the drivers run it: {@link recordCommandLines}'s stand-in, first on PATH. */
  pulumi: string;
  /** Every command line the CLI was started with in this harness, its arguments joined by spaces. */
  commandLines(): string[];
  em: RunningEmulator;
  client: ObservabilityClient;
  /** The example's copy, where the program runs. */
  work: string;
  /** PULUMI_HOME, PATH, backend, passphrase and the service's coordinates (OBSERVABILITY_URL, _TOKEN). */
  env: NodeJS.ProcessEnv;
  /** The notifier's webhook URL, secret and unique to this run. */
  slackUrl: string;
  close(): Promise<void>;
}

/**
 * A stand-in `pulumi` in `dir` that records its arguments, then runs the real CLI in its place (`exec`: the same
 * process, so the engine, its plugins and signals are as they were). The harness puts it first on PATH and runs
 * it as the CLI, so that every command line of a run, the drivers' Automation API calls included, can be checked
 * for secrets. Resolves to the reader of what it recorded. The harness keeps it in `recorded-cli/` beside the
 * project, where a test that runs the CLI before the harness exists (`pulumi new`) records into the same log.
 */
export function recordCommandLines(realPulumi: string, dir: string): { pulumi: string; lines(): string[] } {
  mkdirSync(dir, { recursive: true });
  const log = path.join(dir, "command-lines");
  const pulumi = path.join(dir, "pulumi");
  // A second recorder in the same folder adds to the first's log: one log from `pulumi new` to destroy.
  if (!existsSync(log)) writeFileSync(log, "");
  // One record a command: its arguments, each ended by NUL, then a newline.
  writeFileSync(
    pulumi,
    `#!/bin/sh\n{ printf '%s\\0' "$@"; printf '\\n'; } >> '${log}'\nexec '${realPulumi}' "$@"\n`,
    { mode: 0o755 },
  );
  return {
    pulumi,
    lines: () =>
      readFileSync(log, "utf8")
        .split("\0\n")
        .filter(Boolean)
        .map((record) => record.split("\0").join(" ")),
  };
}

/** Where a harness's engine finds the plugin, when not in a PULUMI_HOME of its own installed from dist/plugin. */
export interface InstalledPlugin {
  /** A PULUMI_HOME the plugin is installed in already (the release test installs it from its server). */
  pulumiHome: string;
  /** The environment to start from instead of this process's (PATH is still the CLI's, extraPath's, Node's). */
  baseEnv: NodeJS.ProcessEnv;
}

/**
 * A work copy of examples/<example>, a fresh emulator with a token of its own, and a PULUMI_HOME into which the
 * plugin is installed from dist/plugin (the package is built before these tests run), unless `installed` gives
 * one holding it already.
 */
export async function openHarness(
  realPulumi: string,
  example: string,
  extraPath: string[] = [],
  installed?: InstalledPlugin,
): Promise<Harness> {
  const root = demoFolder(`lang-${example}-`);
  const work = path.join(root, example);
  cpSync(path.join(ROOT, "examples", example), work, {
    recursive: true,
    filter: (src) => !/(node_modules|\.pulumi-state|__pycache__|\.?venv|package-lock\.json)$/.test(src),
  });
  return openHarnessIn(realPulumi, work, extraPath, installed);
}

/** A fresh folder under .demo/ (ignored by git), named from `prefix`. */
export function demoFolder(prefix: string): string {
  mkdirSync(path.join(ROOT, ".demo"), { recursive: true });
  return mkdtempSync(path.join(ROOT, ".demo", prefix));
}

/**
 * The harness of {@link openHarness} on a project folder `work` that is there already (a project `pulumi new`
 * wrote); its PULUMI_HOME, when not `installed`'s, is made beside it.
 */
export async function openHarnessIn(
  realPulumi: string,
  work: string,
  extraPath: string[] = [],
  installed?: InstalledPlugin,
): Promise<Harness> {
  const root = path.dirname(work);
  const recorder = recordCommandLines(realPulumi, path.join(root, "recorded-cli"));
  const pulumi = recorder.pulumi;
  const home = installed?.pulumiHome ?? path.join(root, "pulumi-home");
  mkdirSync(home, { recursive: true });
  const token = `xaat-lang-${Math.random().toString(36).slice(2, 12)}`;
  const em = await startEmulator({ port: 0, host: "127.0.0.1", token });
  const client = new ObservabilityClient({ url: em.url, token: em.token, orgId: em.orgId });
  const base = installed?.baseEnv ?? process.env;
  const env: NodeJS.ProcessEnv = {
    ...base,
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${path.join(work, ".pulumi-state")}`,
    PULUMI_CONFIG_PASSPHRASE: "pulumi-observability-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PATH: [
      path.dirname(pulumi),
      path.dirname(realPulumi),
      ...extraPath,
      path.dirname(NODE),
      base.PATH ?? "",
    ].join(path.delimiter),
    OBSERVABILITY_URL: em.url,
    OBSERVABILITY_TOKEN: em.token,
    OBSERVABILITY_ORG_ID: em.orgId,
  };
  mkdirSync(path.join(work, ".pulumi-state"), { recursive: true });
  // The plugin into the plugin cache from this checkout's build, offline, at the SDKs' version.
  if (!installed)
    await mustExec(pulumi, ["plugin", "install", "resource", "observability", VERSION, "--file", PLUGIN], {
      env,
    });
  const slackUrl = `https://hooks.slack.com/services/T0000/B0000/${Math.random().toString(36).slice(2, 14)}`;
  env.SLACK_WEBHOOK_URL = slackUrl;
  return {
    pulumi,
    commandLines: recorder.lines,
    em,
    client,
    work,
    env,
    slackUrl,
    close: async () => {
      await client.close();
      await em.close();
    },
  };
}

/** Replaces `from` by `to` in the work copy's `file`; throws when `from` is not there exactly once. */
export function editProgram(work: string, file: string, from: string, to: string): void {
  const target = path.join(work, file);
  const text = readFileSync(target, "utf8");
  const count = text.split(from).length - 1;
  if (count !== 1) throw new Error(`${file}: expected ${JSON.stringify(from)} once, found it ${count} times`);
  writeFileSync(target, text.replace(from, to));
}

/** What the service holds of the families the flagship touches. */
export async function flagshipObjects(client: ObservabilityClient): Promise<Record<string, string[]>> {
  const ids = (objects: { id: string }[]) => objects.map((o) => o.id).sort();
  return {
    datasets: ids(await client.datasets.list()),
    tokens: ids(await client.tokens.list()),
    notifiers: ids(await client.notifiers.list()),
    monitors: ids(await client.monitors.list()),
    roles: ids(await client.roles.list()),
  };
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile());
}

/** The state files (checkpoints, backups, history) that hold any of `secrets` in plaintext, with which. */
export function plaintextSecrets(stateDir: string, secrets: Record<string, string>): string[] {
  const hits: string[] = [];
  const files = filesUnder(stateDir);
  if (files.length === 0) throw new Error(`no state files under ${stateDir}`);
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const [name, value] of Object.entries(secrets))
      if (text.includes(value)) hits.push(`${path.relative(stateDir, file)} holds the ${name}`);
  }
  return hits;
}

/** The stack's outputs, secrets decrypted, as `pulumi stack output --json --show-secrets` gives them. */
export async function stackOutputs(h: Harness): Promise<Record<string, unknown>> {
  const out = await mustExec(
    h.pulumi,
    ["stack", "output", "--json", "--show-secrets", "--stack", "dev", "--non-interactive"],
    { cwd: h.work, env: h.env },
  );
  return JSON.parse(out) as Record<string, unknown>;
}

/** How one language runs the flagship. */
export interface LanguageSpec {
  /** examples/<example>. */
  example: string;
  /** Extra folders for PATH (the YAML language host). */
  extraPath?(): string[];
  /** Installs what the program needs in the work copy (the SDK, Pulumi's SDK), once. */
  install(h: Harness): Promise<void>;
  /** Runs one operation; resolves to its change counts. `env` adds to the harness's. */
  operation(
    h: Harness,
    op: "preview" | "up" | "refresh" | "destroy",
    env?: NodeJS.ProcessEnv,
  ): Promise<Changes>;
  /** The edit of the program that raises the error-rate monitor's threshold from 25 to 40. */
  edit: { file: string; from: string; to: string };
  /**
   * Takes the dataset `id`, made out of band, under management; resolves to the change counts of that step and
   * the environment the later operations need (the program then declares it).
   */
  importDataset(h: Harness, id: string): Promise<{ changes: Changes; env: NodeJS.ProcessEnv }>;
  /**
   * Checks the declarations docs/resources/<kind>.md shows in this language (scripts/docs-languages.mts writes
   * them, all thirteen kinds, as one program into `programs`); throws what is wrong.
   */
  docs(h: Harness, programs: string): Promise<void>;
}

/** The flagship's resources: a dataset, a token, a notifier, two monitors, a role, and the stack itself. */
export const FLAGSHIP_CREATES = 7;

/** Registers the sequence's tests for one language. */
export function describeFlagship(language: string, spec: LanguageSpec, missing?: string): void {
  const cli = missing ? {} : toolPath("pulumi-path.mts");
  const reason = missing ?? cli.reason;
  const maybe = cli.path ? describe : describe.skip;
  if (!cli.path) console.warn(`${language} flagship: skipped: ${reason}`);
  maybe(`${language}: the flagship on the generated SDK under the real engine`, () => {
    let h: Harness;
    let baseline: Record<string, string[]>;
    let extraEnv: NodeJS.ProcessEnv = {};
    const op = (name: "preview" | "up" | "refresh" | "destroy") => spec.operation(h, name, extraEnv);

    beforeAll(async () => {
      h = await openHarness(cli.path!, spec.example, spec.extraPath?.() ?? []);
      baseline = await flagshipObjects(h.client);
      await spec.install(h);
    }, 20 * 60_000);
    afterAll(async () => h?.close());

    test("preview proposes the flagship's creates and changes nothing", async () => {
      const changes = await op("preview");
      expect(changes).toEqual({ create: FLAGSHIP_CREATES });
      expect(await flagshipObjects(h.client)).toEqual(baseline);
    });

    test("up creates them: the service holds the dataset, token, notifier, two monitors wired to it, a role", async () => {
      expect(await op("up")).toEqual({ create: FLAGSHIP_CREATES });
      const now = await flagshipObjects(h.client);
      const added = (family: string) => now[family].filter((id) => !baseline[family].includes(id));
      expect(added("datasets")).toEqual(["http-logs"]);
      expect(added("tokens")).toHaveLength(1);
      expect(added("notifiers")).toHaveLength(1);
      expect(added("roles")).toHaveLength(1);
      const monitors = await Promise.all(added("monitors").map((id) => h.client.monitors.get(id)));
      expect(monitors.map((m) => m.name).sort()).toEqual(["Checkout 5xx rate", "Checkout panics"]);
      for (const m of monitors) expect(m.notifierIds).toEqual(added("notifiers"));
      const notifier = await h.client.notifiers.get(added("notifiers")[0]);
      expect(notifier.properties?.slack?.slackUrl).toBe(h.slackUrl);
    });

    test("preview after up proposes no changes", async () => {
      const changes = await op("preview");
      expect(noChanges(changes)).toBe(true);
      expect(changes.same).toBe(FLAGSHIP_CREATES);
    });

    test("refresh finds no changes", async () => {
      const changes = await op("refresh");
      expect(noChanges(changes)).toBe(true);
    });

    test("an edit of the program updates exactly the monitor it touches", async () => {
      editProgram(h.work, spec.edit.file, spec.edit.from, spec.edit.to);
      const changes = await op("up");
      expect(changes).toEqual({ update: 1, same: FLAGSHIP_CREATES - 1 });
      const monitors = await h.client.monitors.list();
      expect(monitors.find((m) => m.name === "Checkout 5xx rate")?.threshold).toBe(40);
    });

    test("a dataset made out of band is imported, then nothing changes", async () => {
      await h.client.datasets.create({
        name: "legacy-logs",
        description: "Logs of the retired checkout service.",
        retentionDays: 7,
      });
      const imported = await spec.importDataset(h, "legacy-logs");
      extraEnv = imported.env;
      expect(imported.changes.import).toBe(1);
      const after = await op("preview");
      expect(noChanges(after)).toBe(true);
      expect(after.same).toBe(FLAGSHIP_CREATES + 1);
    });

    test("no credential is in plaintext in any state file: the provider's token, the webhook URL, the ingest token", async () => {
      const outputs = await stackOutputs(h);
      const ingestToken = String(outputs.ingestToken);
      expect(ingestToken.length).toBeGreaterThan(8);
      const hits = plaintextSecrets(path.join(h.work, ".pulumi-state"), {
        "provider's token": h.em.token,
        "notifier's webhook URL": h.slackUrl,
        "ingest token": ingestToken,
      });
      expect(hits).toEqual([]);
    });

    test("no secret was on any command line: each went to `pulumi config set --secret` on its stdin", () => {
      const lines = h.commandLines();
      for (const key of ["observability:token", "slackWebhookUrl"])
        expect({ key, set: lines.some((l) => l.includes(`config set --secret ${key}`)) }).toEqual({
          key,
          set: true,
        });
      const secrets = [h.em.token, h.slackUrl];
      expect(lines.filter((l) => secrets.some((secret) => l.includes(secret)))).toEqual([]);
    });

    test("the declarations docs/resources shows in this language are accepted by the SDK", async () => {
      const programs = path.join(path.dirname(h.work), "docs-programs");
      await mustExec(NODE, [path.join(ROOT, "scripts", "docs-languages.mts"), "--programs", programs]);
      await spec.docs(h, programs);
    });

    test("destroy deletes everything, leaving the emulator as it was", async () => {
      const changes = await op("destroy");
      expect(changes.delete).toBe(FLAGSHIP_CREATES + 1);
      expect(await flagshipObjects(h.client)).toEqual(baseline);
    });
  });
}

/** The tests' driver (drivers/inline.mts): runs an example's own program file as an Automation API inline program. */
export const INLINE_DRIVER = path.join(__dirname, "drivers", "inline.mts");

/**
 * Runs one operation of the example in the harness's work copy through {@link INLINE_DRIVER}; the line of JSON it
 * prints holds the change counts. `env` adds to the harness's (IMPORT_DATASET_ID).
 */
export async function inlineOperation(
  h: Pick<Harness, "work" | "env">,
  operation: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Changes> {
  // The driver imports test/helpers/stack-config.ts, an ES module in a package of no declared type, as the npm
  // scripts import theirs; Node says so on stderr each time unless told not to.
  const out = await mustExec(
    NODE,
    ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", INLINE_DRIVER, h.work, operation],
    {
      cwd: h.work,
      env: { ...h.env, ...env },
    },
  );
  // A Go test binary prints PASS after it; the result is the line that is a JSON object.
  const line = out
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .at(-1);
  const result = JSON.parse(line ?? "null") as { operation: string; changes: Changes } | null;
  if (result?.operation !== operation)
    throw new Error(`the driver answered ${line} to ${operation}:\n${out}`);
  return result.changes;
}

/** Pulumi's marker of a secret value on the wire (pulumi/pulumi sdk/go/common/resource/sig). */
export const SECRET_SIG = "4dabf18193072939515e22adb298388d";

function unwrapSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (SECRET_SIG in o) return unwrapSecrets(o.value);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrapSecrets(x)]));
  }
  return v;
}

/**
 * Each resource the docs' program declared reached the engine with the docs' inputs under the schema's names
 * (the SDK may add the schema's defaults beside them, and marks secrets): `seenFile` holds what the mocks saw.
 */
export function expectDocsInputs(seenFile: string, programs: string): void {
  const seen = JSON.parse(readFileSync(seenFile, "utf8")) as Record<string, unknown>;
  const want = JSON.parse(readFileSync(path.join(programs, "inputs.json"), "utf8")) as Record<string, object>;
  expect(Object.keys(seen).sort()).toEqual(Object.keys(want).sort());
  for (const [name, inputs] of Object.entries(want)) {
    expect({ name, inputs: unwrapSecrets(seen[name]) }).toMatchObject({ name, inputs });
  }
}

/** A page's `sh` blocks, by the heading (`##` or `###`) of their section, for the tests that follow a page. */
export function shellBlocks(markdown: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let heading = "";
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const h = /^#{2,3} (.+)$/.exec(lines[i]);
    if (h) heading = h[1];
    if (lines[i] !== "```sh") continue;
    const block: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) block.push(lines[i]);
    sections.set(heading, [...(sections.get(heading) ?? []), block.join("\n")]);
  }
  return sections;
}
