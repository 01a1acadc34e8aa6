/**
 * `observability recover`: after `pulumi up` was killed, makes the stack usable again and settles what the
 * interrupted operation left, without duplicating or orphaning an object. docs/recovery.md explains the steps
 * and their limits; cli/recover/ holds them: the provider hosts the killed run left running (hosts.ts), the file
 * backend's locks and checkpoints (file-backend.ts), the decisions about pending operations (plan.ts), and the
 * Pulumi CLI (pulumi.ts).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Command } from "commander";
import { ObservabilityClient } from "../../provider/client";
import { resolveSettings } from "../../provider/config";
import { action, CommandError, EXIT, registerSecret, UsageError, type ExitCode } from "../exit";
import {
  judgeCheckpoint,
  judgeLocks,
  localProcesses,
  removeLock,
  removeTornSidecar,
  restoreCheckpoint,
  stackFiles,
  type ProcessProbe,
} from "../recover/file-backend";
import {
  editedDeployment,
  planRecovery,
  unwrapSecrets,
  type Decision,
  type ExportedStack,
  type PendingOperation,
  type StateResource,
} from "../recover/plan";
import { leftoverHosts, localHosts, stopHost, type HostProbe } from "../recover/hosts";
import { PulumiCli } from "../recover/pulumi";
import { kindOfResource } from "../../provider/resources/recovery";
import type { Props } from "../../provider/resources/values";

interface RecoverFlags {
  stack?: string;
  cwd?: string;
  dryRun?: boolean;
}

/** What recover needs from its surroundings; tests pass their own. */
export interface RecoverIo {
  env: NodeJS.ProcessEnv;
  write(line: string): void;
  processes: ProcessProbe;
  /** The machine's processes, for the provider hosts a killed run left (default: this machine's). */
  hosts?: HostProbe;
}

/** The project's name, from the Pulumi.yaml in `cwd`. */
export function projectName(cwd: string): string {
  for (const file of ["Pulumi.yaml", "Pulumi.yml"]) {
    let text: string;
    try {
      text = readFileSync(path.join(cwd, file), "utf8");
    } catch {
      continue;
    }
    const name = /^name:\s*["']?([^"'\s#]+)/m.exec(text)?.[1];
    if (name) return name;
    throw new UsageError(`${path.join(cwd, file)} names no project (its \`name:\`)`);
  }
  throw new UsageError(`no Pulumi.yaml in ${cwd}: run recover in the project's folder, or pass --cwd`);
}

/** Runs the recovery; the exit code says whether anything is left for the user. */
export async function recover(flags: RecoverFlags, io: RecoverIo): Promise<ExitCode> {
  const cwd = path.resolve(flags.cwd ?? ".");
  const dry = flags.dryRun === true;
  const say = (line: string) => io.write(line);
  const tag = dry ? "would " : "";
  let pulumi = new PulumiCli(cwd, flags.stack, io.env);
  const stack =
    flags.stack ??
    (
      await pulumi.run(["stack", "--show-name"], { stackless: true }).catch(() => {
        throw new UsageError("no stack is selected: pass --stack");
      })
    ).trim();
  pulumi = new PulumiCli(cwd, stack, io.env);
  say(`Recovering stack ${stack} in ${cwd}${dry ? " (dry run: nothing is changed)" : ""}`);

  // 0. What the killed run left running: dynamic-provider hosts whose engine is gone.
  await stopLeftoverHosts(cwd, io.hosts ?? localHosts, { dry, say });

  // 1. The stack usable: stale locks, a torn checkpoint.
  const url = await pulumi.backendUrl();
  let since: Date | undefined;
  let restoredFrom: "bak" | "backups folder" | undefined;
  let scratch: string | undefined;
  if (url.startsWith("file://")) {
    const files = stackFiles(url, projectName(cwd), stack);
    const locks = judgeLocks(files, io.processes);
    if (locks.length === 0) say("Locks: none.");
    for (const lock of locks) {
      const rel = path.relative(files.bookkeeping, lock.file);
      if (lock.verdict === "stale") {
        if (!dry) removeLock(lock);
        say(`Lock ${rel}: ${lock.reason}; ${dry ? "would remove it" : "removed"}.`);
        if (lock.timestamp && !Number.isNaN(lock.timestamp.getTime()) && (!since || lock.timestamp < since))
          since = lock.timestamp;
      } else say(`Lock ${rel}: ${lock.reason}.`);
    }
    if (locks.some((l) => l.verdict !== "stale"))
      throw new CommandError(
        "the stack is locked by an operation that may still be running: nothing was changed",
      );
    if (since) say(`The interrupted operation began at ${since.toISOString()} (its lock's timestamp).`);

    const checkpoint = judgeCheckpoint(files);
    if (checkpoint.sidecar) {
      // The write that tore never replaced the checkpoint: it is the last whole save, as a `.bak` would be.
      restoredFrom = "bak";
      if (!dry) removeTornSidecar(checkpoint);
      say(
        `Checkpoint: whole, but its metadata file ${path.basename(checkpoint.file)}.attrs is torn (${checkpoint.sidecar}), ` +
          `which fails every read with \`failed to load checkpoint: EOF\`; ${dry ? "would remove it" : "removed it (kept as .attrs.torn)"}. ` +
          "The checkpoint is the last save that completed: the torn write had not replaced it.",
      );
      if (dry) {
        scratch = mkdtempSync(path.join(os.tmpdir(), "observability-recover-dry-"));
        cpSync(files.bookkeeping, path.join(scratch, ".pulumi"), { recursive: true });
        removeTornSidecar(judgeCheckpoint(stackFiles(`file://${scratch}`, projectName(cwd), stack)));
        pulumi = new PulumiCli(cwd, stack, { ...io.env, PULUMI_BACKEND_URL: `file://${scratch}` });
      }
    } else if (!checkpoint.problem) say("Checkpoint: loads.");
    else if (!checkpoint.backup)
      throw new CommandError(
        `the checkpoint ${checkpoint.file} cannot be loaded (${checkpoint.problem}), and no backup of it loads`,
      );
    else {
      restoredFrom = checkpoint.backup.kind;
      const rel = path.relative(files.bookkeeping, checkpoint.backup.file);
      if (dry) {
        // The rest of the dry run reads a copy of the backend with the checkpoint restored.
        scratch = mkdtempSync(path.join(os.tmpdir(), "observability-recover-dry-"));
        cpSync(files.bookkeeping, path.join(scratch, ".pulumi"), { recursive: true });
        const copy = judgeCheckpoint(stackFiles(`file://${scratch}`, projectName(cwd), stack));
        restoreCheckpoint(copy);
        pulumi = new PulumiCli(cwd, stack, { ...io.env, PULUMI_BACKEND_URL: `file://${scratch}` });
      } else restoreCheckpoint(checkpoint);
      say(
        `Checkpoint: ${checkpoint.problem}; ${tag}restore${dry ? "" : "d"} it from ${rel} ` +
          `(${restoredFrom === "bak" ? "the copy saved before its last write" : "the backup of the last complete operation"}, ` +
          `saved ${checkpoint.backup.savedAt.toISOString()}); the torn file ${dry ? "would be" : "is"} kept as ${path.basename(checkpoint.file)}.torn.`,
      );
    }
  } else {
    say(
      `Backend ${url.replace(/\/\/[^@/]*@/, "//")}: not a file backend, so its locks and checkpoints are the service's to keep.`,
    );
  }

  try {
    return await settle(pulumi, { dry, since, restoredFrom, say, env: io.env });
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** Names, and unless dry, stops every dynamic-provider host in `cwd` whose engine is gone (cli/recover/hosts.ts). */
async function stopLeftoverHosts(
  cwd: string,
  probe: HostProbe,
  o: { dry: boolean; say(line: string): void },
): Promise<void> {
  const hosts = await leftoverHosts(cwd, probe);
  if (hosts.length === 0) o.say("Provider hosts left running: none.");
  for (const host of hosts) {
    const launcher = host.launcher ? `, launched by ${host.launcher.pid} \`${host.launcher.command}\`` : "";
    const what =
      `Provider host ${host.pid} \`${host.command}\`${launcher}: its engine at ${host.engine} is gone ` +
      `(${host.reason})`;
    if (o.dry) {
      o.say(`${what}; would stop it.`);
      continue;
    }
    const ended = await stopHost(host, probe);
    o.say(`${what}; ${ended === "killed" ? "killed (SIGTERM did not end it)" : "stopped"}.`);
  }
}

/** Steps 2 and 3: the pending operations, searched, decided, and resolved in one import and one refresh. */
async function settle(
  pulumi: PulumiCli,
  o: {
    dry: boolean;
    since?: Date;
    restoredFrom?: "bak" | "backups folder";
    say(line: string): void;
    env: NodeJS.ProcessEnv;
  },
): Promise<ExitCode> {
  const { say, dry } = o;
  const exported = await pulumi.exportStack<ExportedStack>();
  const deployment = exported.deployment;

  if (o.restoredFrom) {
    // The reasoning (docs/recovery.md): the engine saves a create's pending operation before it calls the
    // provider, one save at a time, so a `.bak` torn from its successor mid-write holds every create whose
    // request may have been sent. A backup from the backups folder is older, and a checkpoint may be torn by
    // other means; so either way the program's declared resources that the restored state lacks are searched for.
    if (o.restoredFrom === "bak")
      say(
        "Since that copy: the engine saves a create's pending operation before it calls the provider, one save at " +
          "a time, so a write torn by the kill could only have recorded an operation not yet sent, or the end of one " +
          "the copy holds as pending. To be sure, the declared resources the restored state lacks are searched for too.",
      );
    const lost = await declaredButMissing(pulumi, deployment, say);
    if (lost.length > 0) {
      say(
        `${lost.length} declared resource(s) of this package are in neither the restored state nor its pending operations: searched for as interrupted creates.`,
      );
      deployment.pending_operations = [...(deployment.pending_operations ?? []), ...lost];
    }
  }

  const pending = deployment.pending_operations ?? [];
  if (pending.length === 0) {
    say("Pending operations: none. The stack is ready for `pulumi up`.");
    return EXIT.ok;
  }
  say(`Pending operations: ${pending.length} (${summarize(pending.map((p) => p.type))}).`);

  const config = await pulumi.config();
  const settings = resolveSettings({ get: (key) => config[key] }, o.env);
  registerSecret(settings.token);
  const client = new ObservabilityClient({
    url: settings.url,
    region: settings.region,
    token: settings.token,
    orgId: settings.orgId,
  });
  let plan;
  try {
    plan = await planRecovery(deployment, client, { since: o.since });
  } finally {
    await client.close();
  }

  const declaredOnly = new Set(
    (deployment.pending_operations ?? []).filter((p) => p.declaredOnly).map((p) => p.resource.urn),
  );
  let notYetMade = 0;
  for (const d of plan.decisions) {
    // A declared resource that is neither in the state nor on the service is simply not made yet.
    if (d.action === "clear" && declaredOnly.has(d.urn)) notYetMade++;
    else say(describe(d, dry));
  }
  if (notYetMade > 0)
    say(`  ${notYetMade} other declared resource(s): not on the service; \`pulumi up\` makes them.`);
  const imports = plan.decisions.filter((d) => d.action === "import");
  const clears = plan.decisions.filter((d) => d.action === "clear" && !declaredOnly.has(d.urn));
  const refreshes = plan.decisions.filter((d) => d.action === "refresh");
  const left = plan.decisions.filter((d) => d.action === "leave");

  if (dry) {
    say(
      `Dry run: would import ${imports.length}, clear ${clears.length}, and refresh the stack` +
        (refreshes.length ? ` (settling ${refreshes.length} interrupted update(s) and delete(s))` : "") +
        `; ${left.length} left for you.`,
    );
    return left.length > 0 ? EXIT.failed : EXIT.ok;
  }
  if (imports.length + clears.length > 0) {
    await pulumi.importStack(editedDeployment(exported, plan));
    say(
      `Imported an edited deployment: ${imports.length} create(s) now hold their objects, ${clears.length} cleared.`,
    );
  }
  if (imports.length + refreshes.length > 0) {
    say("Refreshing the stack (reads every resource, settles interrupted updates and deletes):");
    await pulumi.run(["refresh", "--yes", "--skip-preview", "--skip-pending-creates"]);
    say("Refreshed.");
  }
  if (left.length > 0) {
    say(`${left.length} pending create(s) left for you: see above, then run \`pulumi refresh\`.`);
    return EXIT.failed;
  }
  say("Done: run `pulumi up` to finish what was interrupted.");
  return EXIT.ok;
}

/** `3 creating, 1 updating`. */
function summarize(types: string[]): string {
  const counts = new Map<string, number>();
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].map(([t, n]) => `${n} ${t}`).join(", ");
}

/** One line for a decision. */
function describe(d: Decision, dry: boolean): string {
  const w = dry ? "would " : "";
  switch (d.action) {
    case "import":
      return `  ${d.urn}: found ${d.id}; ${w}import it (${d.evidence}).`;
    case "clear":
      return `  ${d.urn}: ${d.evidence}; ${w}clear it.`;
    case "refresh":
      return `  ${d.urn}: ${d.evidence}.`;
    case "leave":
      return (
        `  ${d.urn}: LEFT FOR YOU: ${d.evidence}` +
        (d.candidates.length ? `; candidates: ${d.candidates.join(", ")}` : "") +
        ". Take one with `pulumi refresh --import-pending-creates <urn> <id>`, or drop it with " +
        "`--clear-pending-creates` once you know none is this resource's."
      );
  }
}

/**
 * The program's declared resources of this package that the restored state lacks, as interrupted creates:
 * `pulumi preview --json` runs the program and lists what it would create, with the inputs each create would
 * send. Only those whose provider is in the restored state can be imported; the others are named.
 */
async function declaredButMissing(
  pulumi: PulumiCli,
  deployment: ExportedStack["deployment"],
  say: (line: string) => void,
): Promise<PendingOperation[]> {
  let preview: { steps?: { op: string; newState?: StateResource }[] };
  try {
    preview = JSON.parse(await pulumi.run(["preview", "--json"])) as typeof preview;
  } catch (e) {
    say(
      `Cannot list the program's declared resources (${(e as Error).message}): objects made after the backup ` +
        "cannot be checked; look for them before `pulumi up`.",
    );
    return [];
  }
  const have = new Set((deployment.resources ?? []).map((r) => r.urn));
  const pendingUrns = new Set((deployment.pending_operations ?? []).map((p) => p.resource.urn));
  const out: PendingOperation[] = [];
  for (const step of preview.steps ?? []) {
    const r = step.newState;
    if (step.op !== "create" || !r?.custom || have.has(r.urn) || pendingUrns.has(r.urn)) continue;
    if (!kindOfResource(r.type, unwrapSecrets(r.inputs ?? {}) as Props)) continue;
    const provider =
      typeof r.provider === "string" ? r.provider.split("::").slice(0, -1).join("::") : undefined;
    if (provider && !have.has(provider)) {
      say(
        `  ${r.urn}: declared, and its provider is not in the restored state either: look for it yourself.`,
      );
      continue;
    }
    // The fields of a state's resource (pulumi/pulumi sdk/go/common/apitype/core.go, ResourceV3) that a preview
    // step's new state carries; the rest of it (source positions, stack traces) is the preview's.
    const kept = Object.fromEntries(Object.entries(r).filter(([k]) => RESOURCE_FIELDS.has(k)));
    out.push({ type: "creating", resource: { ...(kept as StateResource), outputs: {} }, declaredOnly: true });
  }
  return out;
}

const RESOURCE_FIELDS = new Set([
  "urn",
  "custom",
  "type",
  "inputs",
  "parent",
  "provider",
  "dependencies",
  "propertyDependencies",
  "additionalSecretOutputs",
  "protect",
  "retainOnDelete",
  "deleteBeforeReplace",
  "ignoreChanges",
  "replaceOnChanges",
  "aliases",
  "customTimeouts",
  "deletedWith",
]);

/** Adds the `recover` subcommand. */
export function registerRecoverCommand(program: Command): void {
  program
    .command("recover")
    .description(
      "After `pulumi up` was killed: unlock the stack, restore a torn checkpoint, and settle interrupted creates " +
        "(finds each one's object on the service, imports it, or clears a create that never landed).",
    )
    .option("--stack <name>", "the stack (default: the selected one)")
    .option("--cwd <dir>", "the project's folder, where `pulumi` runs (default: the current one)")
    .option("--dry-run", "show what it finds and would do; change nothing")
    .addHelpText(
      "after",
      "\nCredentials come as the provider takes them: the stack's observability:* config, else OBSERVABILITY_*.\n" +
        'See docs/recovery.md, "When `pulumi up` is interrupted".',
    )
    .action(
      action("recover", async (flags: RecoverFlags) =>
        recover(flags, {
          env: process.env,
          write: (line) => process.stdout.write(`${line}\n`),
          processes: localProcesses,
        }),
      ),
    );
}
