/**
 * Benchmark: `pulumi up` and `destroy` of the flagship's shape (examples/<language>-flagship: a dataset, an
 * ingest token, a notifier with a secret URL, two monitors wired to it, a role) in Python, Go and YAML against the
 * TypeScript program, side by side in one run, each through the native provider plugin against a fresh emulator.
 * The TypeScript, Python and Go projects run as the tests run them, with no language host: their program files as
 * Automation API inline programs (`node test/e2e-native/drivers/inline.mts <folder> up`), so the time includes
 * starting the language's runtime and the program, and for Go linking the driver's test binary (its compile is in
 * Go's cache after the first round); YAML is `pulumi up --yes --skip-preview` through pulumi-language-yaml.
 * Installing each language's dependencies (the virtual environment, `npm install`) happens before and is not
 * timed. Rounds rotate
 * which language goes first.
 *
 *   npm run build && node_modules/.bin/node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON bench/languages.mts [rounds=1]
 *
 * The CLI is a `pulumi` on PATH, else the one built here from Go modules (scripts/pulumi-cli.mts); the YAML host
 * is built the same way (scripts/pulumi-yaml.mts).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { mustExec } from "../scripts/shared/commands.ts";
import { REPO_ROOT, findPulumiCli, type PulumiCli } from "../scripts/lib.mts";
import { freshService } from "../test/e2e/support.mts";
import { ensureYamlHost } from "../scripts/pulumi-yaml.mts";
import { findGo } from "../scripts/go-build.mts";

const rounds = Number(process.argv[2] ?? 1);
/** The plugin version the checkout builds, which the install names. */
const VERSION = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
).version;
const NODE = process.execPath;

/** Runs a command to its end; rejects with the command and the tail of its output when it fails. */
const exec = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, input?: string) =>
  mustExec(cmd, args, { cwd, env, input });

interface Language {
  name: string;
  example: string;
  prepare(work: string, env: NodeJS.ProcessEnv): Promise<void>;
  run(work: string, env: NodeJS.ProcessEnv, op: "up" | "destroy"): Promise<unknown>;
}

const go = findGo() ?? "go";
/** The tests' driver: an example's program file as an inline program (test/e2e-native/drivers/inline.mts). */
const INLINE = path.join(REPO_ROOT, "test", "e2e-native", "drivers", "inline.mts");
const inline = (work: string, env: NodeJS.ProcessEnv, op: "up" | "destroy") =>
  exec(NODE, [INLINE, work, op], work, { ...env, GO: go });
const LANGUAGES: Language[] = [
  {
    name: "TypeScript",
    example: "typescript-flagship",
    prepare: async (work, env) => {
      const npm = process.env.npm_execpath ? [NODE, process.env.npm_execpath] : ["npm"];
      const sdk = `dependencies.@pulumi-observability/sdk=file:${path.join(REPO_ROOT, "sdk", "nodejs")}`;
      await exec(npm[0], [...npm.slice(1), "pkg", "set", sdk], work, env);
      await exec(
        npm[0],
        [...npm.slice(1), "install", "--no-audit", "--no-fund", "--loglevel=error"],
        work,
        env,
      );
    },
    run: inline,
  },
  {
    name: "Python",
    example: "python-flagship",
    prepare: async (work, env) => {
      await exec(process.env.PYTHON ?? "python3", ["-m", "venv", "venv"], work, env);
      // requirements.txt names ../../sdk/python, relative to the example's own folder.
      const sdk = path.join(REPO_ROOT, "sdk", "python");
      const requirements = path.join(work, "requirements.txt");
      writeFileSync(requirements, readFileSync(requirements, "utf8").replace("../../sdk/python", sdk));
      await exec("venv/bin/python", ["-m", "pip", "install", "--quiet", "-r", "requirements.txt"], work, env);
    },
    run: inline,
  },
  {
    name: "Go",
    example: "go-flagship",
    prepare: async (work, env) => {
      const module = "github.com/pulumi-observability/pulumi-observability/sdk/go";
      const goEnv = { ...env, GOTOOLCHAIN: "local" };
      await exec(
        go,
        ["mod", "edit", "-replace", `${module}=${path.join(REPO_ROOT, "sdk", "go")}`],
        work,
        goEnv,
      );
    },
    run: inline,
  },
  {
    name: "YAML",
    example: "yaml-flagship",
    prepare: async (work, env) => {
      const cli = env.PULUMI_CLI!;
      const run = (args: string[], input?: string) =>
        exec(cli, [...args, "--stack", "dev", "--non-interactive"], work, env, input);
      await exec(
        cli,
        ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
        work,
        env,
      );
      await run(["config", "set", "observability:url", env.OBSERVABILITY_URL!]);
      await run(["config", "set", "--secret", "observability:token"], env.OBSERVABILITY_TOKEN);
      await run(["config", "set", "--secret", "slackWebhookUrl"], env.SLACK_WEBHOOK_URL);
    },
    run: (work, env, op) =>
      exec(
        env.PULUMI_CLI!,
        [op, "--yes", "--skip-preview", "--stack", "dev", "--non-interactive"],
        work,
        env,
      ),
  },
];

async function measure(
  cli: PulumiCli,
  yamlBin: string,
  lang: Language,
  root: string,
): Promise<Record<string, number>> {
  const service = await freshService();
  try {
    const work = path.join(root, `${lang.example}-${Math.random().toString(36).slice(2, 8)}`);
    cpSync(path.join(REPO_ROOT, "examples", lang.example), work, {
      recursive: true,
      filter: (src) => !/(node_modules|\.pulumi-state|__pycache__|\.?venv|package-lock\.json)$/.test(src),
    });
    mkdirSync(path.join(work, ".pulumi-state"), { recursive: true });
    const home = path.join(work, ".pulumi-home");
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PULUMI_CLI: cli.pulumi,
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${path.join(work, ".pulumi-state")}`,
      PULUMI_CONFIG_PASSPHRASE: "pulumi-observability-local",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PATH: [cli.binDir, yamlBin, path.dirname(NODE), process.env.PATH ?? ""].join(path.delimiter),
      OBSERVABILITY_URL: service.em.url,
      OBSERVABILITY_TOKEN: service.em.token,
      OBSERVABILITY_ORG_ID: service.em.orgId,
      SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T0000/B0000/bench",
    };
    const plugin = path.join(REPO_ROOT, "dist", "plugin", "pulumi-resource-observability");
    await exec(
      cli.pulumi,
      ["plugin", "install", "resource", "observability", VERSION, "--file", plugin],
      work,
      env,
    );
    await lang.prepare(work, env);
    const times: Record<string, number> = {};
    for (const op of ["up", "destroy"] as const) {
      const t0 = performance.now();
      await lang.run(work, env, op);
      times[op] = (performance.now() - t0) / 1000;
    }
    return times;
  } finally {
    await service.close();
  }
}

async function main(): Promise<void> {
  const found = await findPulumiCli({ build: true });
  if (!found.cli) throw new Error(`no Pulumi CLI: ${found.reason}`);
  const yaml = await ensureYamlHost();
  mkdirSync(path.join(REPO_ROOT, ".demo"), { recursive: true });
  const root = mkdtempSync(path.join(REPO_ROOT, ".demo", "bench-languages-"));
  const results = new Map<string, Record<string, number>[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      const order = LANGUAGES.map((_, i) => LANGUAGES[(i + round) % LANGUAGES.length]);
      for (const lang of order) {
        const times = await measure(found.cli, yaml.binDir, lang, root);
        results.set(lang.name, [...(results.get(lang.name) ?? []), times]);
        console.error(
          `round ${round + 1}: ${lang.name} up ${times.up.toFixed(1)} s, destroy ${times.destroy.toFixed(1)} s`,
        );
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const stat = (name: string, op: string) => median(results.get(name)!.map((t) => t[op]));
  console.log(
    `pulumi CLI ${found.cli.version}; ${rounds} round(s); median seconds; ratio against TypeScript`,
  );
  console.log("language     up (s)  ×TS    destroy (s)  ×TS");
  for (const lang of LANGUAGES) {
    const up = stat(lang.name, "up");
    const down = stat(lang.name, "destroy");
    console.log(
      `${lang.name.padEnd(12)} ${up.toFixed(1).padStart(6)}  ${(up / stat("TypeScript", "up")).toFixed(2)}  ` +
        `${down.toFixed(1).padStart(11)}  ${(down / stat("TypeScript", "destroy")).toFixed(2)}`,
    );
  }
}

main().catch((err: Error) => {
  console.error(`bench/languages: ${err.message}`);
  process.exit(1);
});
