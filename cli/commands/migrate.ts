/**
 * `observability migrate terraform <state | ->`: takes every object that terraform-provider-axiom manages in a
 * Terraform state into the file `pulumi import --file` reads, after checking each one against the service; tells
 * the user, on stderr, what it skipped and why, where Terraform's record and the service differ, and the
 * commands that hand each object over. docs/migrating-from-terraform.md gives the whole procedure.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { ObservabilityClient } from "../../provider/client";
import { ENV_NAMES } from "../../provider/client/env";
import {
  CONFIG_KEYS,
  MISSING_TOKEN_MESSAGE,
  ProviderConfigError,
  resolveSettings,
} from "../../provider/config";
import { DECLARATIONS } from "../../provider/resources/kinds";
import { addConnectionOptions, readToken, type ConnectionFlags } from "../connection";
import { action, CommandError, EXIT, redact, registerSecret, UsageError, type ExitCode } from "../exit";
import {
  planMigration,
  secretsOfState,
  stateRm,
  type ImportFile,
  type Plan,
  type Taken,
} from "../migrate/plan";
import { parseState, StateFormatError, type TerraformState } from "../migrate/tfstate";
import { PulumiCli } from "../recover/pulumi";

interface MigrateFlags extends ConnectionFlags {
  out?: string;
  rmScript?: string;
  stack?: string;
  cwd?: string;
  alias?: string;
}

/** What the command needs from its surroundings: the process's environment and streams. */
export interface MigrateIo {
  env: NodeJS.ProcessEnv;
  readStdin(): Promise<string>;
  /** The import file, when it goes to standard output. */
  stdout(text: string): void;
  /** Whether standard output is a terminal, where a token's value would be shown on the screen. */
  stdoutIsTerminal: boolean;
  /** One line for the user. */
  say(line: string): void;
}

const EXAMPLE = `
Examples:
  $ observability migrate terraform terraform.tfstate --out import.json
  $ terraform state pull | observability migrate terraform - --stack dev --out import.json
  $ pulumi import --file import.json --yes --out imported.yaml

Credentials come as the provider takes them: with --stack, that stack's observability:* configuration, else
OBSERVABILITY_*; --url, --org-id, --region and --token-file override either. The state is only read.
See docs/migrating-from-terraform.md.`;

function alias(value: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(value))
    throw new InvalidArgumentError("must be a provider alias such as eu (letters, digits, - and _).");
  return value;
}

/** Reads the state from a path, or standard input for "-". */
async function readStateText(file: string, io: MigrateIo): Promise<{ text: string; source: string }> {
  if (file === "-") return { text: await io.readStdin(), source: "standard input" };
  try {
    return { text: readFileSync(file, "utf8"), source: file };
  } catch (e) {
    throw new UsageError(
      `cannot read the state file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
}

/** The client, with the stack's configuration (with --stack) or the environment, flags over both. */
async function clientFor(
  flags: MigrateFlags,
  io: MigrateIo,
  stdinInUse: boolean,
): Promise<{ client: ObservabilityClient; from: string }> {
  const config = flags.stack
    ? await new PulumiCli(path.resolve(flags.cwd ?? "."), flags.stack, io.env).config()
    : {};
  const token = flags.tokenFile !== undefined ? await readToken(flags, io.env, stdinInUse) : undefined;
  let settings;
  try {
    settings = resolveSettings(
      { get: (key) => (key === CONFIG_KEYS.token && token !== undefined ? token : config[key]) },
      io.env,
    );
  } catch (e) {
    if (!(e instanceof ProviderConfigError)) throw e;
    if (e.message === MISSING_TOKEN_MESSAGE)
      throw new UsageError(
        `no token: set ${ENV_NAMES.token}, pass --token-file FILE, or --stack to use a stack's ${CONFIG_KEYS.token}`,
      );
    throw new UsageError(e.message.replace(/^observability: /, ""));
  }
  registerSecret(settings.token);
  // Where the token came from, for the report's first line (resolveSettings prefers the stack's to the environment's).
  const from =
    token !== undefined
      ? "the token of --token-file"
      : config[CONFIG_KEYS.token]?.trim()
        ? `stack ${flags.stack}'s configuration`
        : "the environment";
  return {
    client: new ObservabilityClient({
      token: settings.token,
      url: flags.url ?? settings.url,
      region: flags.region ?? settings.region,
      orgId: flags.orgId ?? settings.orgId,
    }),
    from,
  };
}

/** Why a name is not the converter's, as the report says it. */
const RENAMED: Record<string, string> = {
  module: "; its module path is in its name, to tell it from another of the same name",
  numbered: "; numbered, as another object's name is the same once made an identifier",
};

/** The declaration of the object with the TypeScript dynamic resource of its kind (the package exports each kind's class). */
function adoptLine(t: Taken): string {
  const rules = DECLARATIONS.get(t.kind)!.rules;
  if (!rules.adoptable)
    return `  ${t.address}: ${t.kind} cannot adopt: ${rules.adoptRefusal ?? "the kind takes no adopt"}`;
  return `  ${t.address}: new obs.${t.kind}(${JSON.stringify(t.logicalName)}, { /* its inputs */ adopt: ${JSON.stringify(t.id)} })`;
}

/** The report on stderr: what was taken, skipped, what differs, what is carried, and what to run next. */
function report(
  state: TerraformState,
  source: string,
  plan: Plan,
  out: string | undefined,
  rmScript: string | undefined,
  from: string,
  say: (line: string) => void,
): void {
  const { taken, skipped, alsoForgotten } = plan;
  say(
    `Read ${source}: a Terraform ${state.terraformVersion} state (serial ${state.serial}), ${state.instances.length} object(s); checked against the service with ${from}.`,
  );
  say("");
  say(`Taken (${taken.length}): each is a resource of the import file.`);
  for (const t of taken)
    say(`  ${t.address} -> ${t.spec.type} ${t.name} (id ${t.id})${RENAMED[t.renamed ?? ""] ?? ""}`);
  if (skipped.length > 0) {
    say("");
    say(`Skipped (${skipped.length}): Terraform keeps each one.`);
    for (const s of skipped) say(`  ${s.address}: ${s.reason}`);
  }
  // Most objects missing is more likely credentials for another organization than objects deleted.
  if (plan.missing > 0 && plan.missing * 2 > plan.checked) {
    say("");
    say(
      `${plan.missing} of the ${plan.checked} objects looked for are not on the service these credentials reach (${from}): ` +
        "unless that many were deleted, the credentials are likely for another organization than the one Terraform's provider configuration points at: check it, and run again with that organization's credentials.",
    );
  }
  if (alsoForgotten.length > 0) {
    say("");
    say(
      `Also forgotten by the hand-over (${alsoForgotten.length}): each is at an address step 5 hands over.`,
    );
    for (const s of alsoForgotten) say(`  ${s.address}: ${s.reason}`);
  }
  const drifted = taken.filter((t) => t.drift.length > 0);
  say("");
  if (drifted.length === 0)
    say("Drift: none; Terraform's record and the service agree on every object taken.");
  else {
    say(
      `Drift (${drifted.length}): Terraform's record and the service differ; \`pulumi import\` takes the service's values, and the program it writes declares them.`,
    );
    for (const t of drifted) {
      for (const d of t.drift) {
        const values =
          d.terraform === undefined
            ? "secret: values not shown"
            : `Terraform ${d.terraform}, service ${d.service}`;
        say(`  ${t.address}: ${d.path} (${values})`);
      }
    }
  }
  for (const t of taken) if (t.schemaNote) say(`${t.address}: ${t.schemaNote}.`);
  for (const t of taken) {
    if (t.carried.length > 0)
      say(
        `${t.address}: its ${t.carried.join(", ")} (which the service never returns again) is carried from Terraform's state as a secret: the import file holds it, so keep the file private and delete it after the import.`,
      );
    if (t.lost.length > 0)
      say(
        `${t.address}: Terraform's state holds no ${t.lost.join(", ")}, and the service never returns it again: the Pulumi state will not have it. Whoever uses the token keeps its value; to have Pulumi hold one, rotate the token (change it in the program and \`pulumi up\`), or keep the value you have in config with \`pulumi config set --secret\`.`,
      );
  }
  say("");
  say(
    "Next, steps 3 to 5 of docs/migrating-from-terraform.md, in this order (the page says why); keep every `terraform apply` on this state stopped until step 5 is done:",
  );
  say(
    `  3. In the Pulumi project: pulumi import --file ${out ?? "<the import file>"} --yes --out imported.yaml  (imported protected: no \`pulumi up\` deletes them)`,
  );
  say("  4. Add the generated code to the program, then: pulumi preview --expect-no-changes");
  say(
    `  5. Hand each object over: Terraform forgets it and the object stays. ${rmScript ? `Run sh ${rmScript}, which runs these commands` : "Run these commands"}, and delete the same resources' blocks from the Terraform code:`,
  );
  for (const address of plan.handover) say(`     ${stateRm(address)}`);
  say("");
  say(
    'With the TypeScript dynamic resources instead of `pulumi import` (`import * as obs from "pulumi-observability"`), declare each one as in Terraform, with `adopt` (then steps 4 and 5):',
  );
  for (const t of taken) say(adoptLine(t));
}

/** Runs the migration; the import file goes to `flags.out` or standard output. */
export async function migrateTerraform(file: string, flags: MigrateFlags, io: MigrateIo): Promise<ExitCode> {
  const say = (line: string) => io.say(redact(line));
  if (file === "-" && flags.tokenFile === "-")
    throw new UsageError(
      "the state and the token cannot both come from standard input: pass --token-file FILE",
    );
  // Writing over the state would lose the copy the page keeps to push back.
  for (const [flag, target] of [
    ["--out", flags.out],
    ["--rm-script", flags.rmScript],
  ] as const) {
    if (target !== undefined && file !== "-" && path.resolve(target) === path.resolve(file))
      throw new UsageError(`${flag} ${target} is the state file itself: write to another file`);
  }
  if (
    flags.out !== undefined &&
    flags.rmScript !== undefined &&
    path.resolve(flags.out) === path.resolve(flags.rmScript)
  )
    throw new UsageError(
      `--out and --rm-script both name ${flags.out}: the script would replace the import file`,
    );
  const { text, source } = await readStateText(file, io);
  let state: TerraformState;
  try {
    state = parseState(text, source);
  } catch (e) {
    if (e instanceof StateFormatError) throw new CommandError(e.message);
    throw e;
  }
  // Before any line is printed: every secret of the state is scrubbed from whatever this process prints.
  for (const secret of secretsOfState(state.instances)) registerSecret(secret);
  const { client, from } = await clientFor(flags, io, file === "-");
  let plan;
  try {
    plan = await planMigration(client, state.instances, { alias: flags.alias });
  } finally {
    await client.close();
  }
  report(state, source, plan, flags.out, flags.rmScript, from, say);
  if (plan.taken.length === 0)
    throw new CommandError(
      `nothing to take: ${source} holds no object of terraform-provider-axiom that the service has`,
    );
  const importFile: ImportFile = { resources: plan.taken.map((t) => t.spec) };
  // A token's value rides in the file as a secret for the CLI to encrypt: to a file or a pipe, never to a screen.
  const carried = plan.taken.filter((t) => t.carried.length > 0).map((t) => t.address);
  if (!flags.out && io.stdoutIsTerminal && carried.length > 0)
    throw new CommandError(
      `the import file carries the value of ${carried.join(", ")} (a secret) and standard output is a terminal: pass --out FILE, or redirect standard output to a file`,
    );
  const json = `${JSON.stringify(importFile, null, 2)}\n`;
  if (flags.out) {
    // The file may carry a token's value (as a secret the CLI encrypts): readable by this user alone.
    // The mode is set before the value is written: an earlier file of that name may be readable by others.
    if (existsSync(flags.out)) chmodSync(flags.out, 0o600);
    writeFileSync(flags.out, json, { mode: 0o600 });
    say("");
    say(`Wrote ${flags.out}: ${plan.taken.length} resource(s) for \`pulumi import --file\`.`);
  } else io.stdout(json);
  if (flags.rmScript) {
    const script = [
      "#!/bin/sh",
      // JSON's quoting keeps a path with a line break inside the comment.
      `# Written by observability migrate terraform from ${JSON.stringify(source)}: run it once \`pulumi preview --expect-no-changes\` passes.`,
      "set -e",
      ...plan.handover.map(stateRm),
      "",
    ].join("\n");
    writeFileSync(flags.rmScript, script, { mode: 0o755 });
    say(`Wrote ${flags.rmScript}: the ${plan.handover.length} \`terraform state rm\` command(s) of step 5.`);
  }
  return EXIT.ok;
}

async function readAllStdin(): Promise<string> {
  // Waiting on a terminal would look like a hang: the state is meant to be piped in.
  if (process.stdin.isTTY)
    throw new UsageError(
      "standard input is a terminal: pipe in `terraform state pull`, or pass the state file's path",
    );
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk as string;
  return text;
}

/** Adds `migrate` and its subcommand `terraform`. */
export function registerMigrateCommand(program: Command): void {
  const migrate = program
    .command("migrate")
    .description("Take objects another tool manages into a Pulumi stack.");
  const terraform = migrate
    .command("terraform")
    .argument(
      "<state>",
      'a Terraform state (terraform.tfstate), or "-" for `terraform state pull` on standard input',
    )
    .description(
      "Write the file `pulumi import --file` reads for every object terraform-provider-axiom manages in a Terraform state, " +
        "each checked against the service; tell what is skipped, what drifted, and the `terraform state rm` commands.",
    )
    .option("--out <file>", "write the import file here (default: standard output)")
    .option(
      "--rm-script <file>",
      "also write the `terraform state rm` commands of the hand-over to FILE, as a shell script",
    )
    .option("--stack <name>", "take the credentials from this stack's observability:* configuration")
    .option("--cwd <dir>", "the Pulumi project's folder, for --stack (default: the current one)")
    .option(
      "--alias <alias>",
      "take the objects of the provider configuration with this alias (default: the unaliased one)",
      alias,
    );
  addConnectionOptions(terraform)
    .addHelpText("after", EXAMPLE)
    .action(
      action("migrate terraform", async (file: string, flags: MigrateFlags) =>
        migrateTerraform(file, flags, {
          env: process.env,
          readStdin: readAllStdin,
          stdout: (text) => process.stdout.write(text),
          stdoutIsTerminal: process.stdout.isTTY === true,
          say: (line) => process.stderr.write(`${line}\n`),
        }),
      ),
    );
}
