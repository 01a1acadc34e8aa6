/**
 * `observability recover` from start to end against an emulator and a file backend laid out as pulumi/pulumi
 * pkg/backend/diy lays it out (store.go: `.pulumi/stacks/<project>/<stack>.json`, `backups/<project>/<stack>/
 * <stack>.<unix ns>.json`; state.go saveCheckpoint: the `.bak` copy before each write; lock.go: `locks/
 * organization/<project>/<stack>/<uuid>.json` holding pid, username, hostname and timestamp). The `pulumi`
 * it drives is a stand-in (PULUMI_COMMAND) that reads and writes that layout as the CLI does, fails on a torn
 * checkpoint as the CLI does (`failed to load checkpoint`), and logs each command, so the test sees which
 * operations recover ran. The real CLI runs it in test/e2e-native/recover.test.ts.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ObservabilityClient } from "../../provider/client";
import { normalize } from "../../provider/resources/descriptor";
import { descriptorOf } from "../../provider/resources/recovery";
import { recover } from "../../cli/commands/recover";
import {
  judgeCheckpoint,
  judgeLocks,
  removeTornSidecar,
  stackFiles,
  type ProcessProbe,
} from "../../cli/recover/file-backend";
import type { Deployment, PendingOperation, StateResource } from "../../cli/recover/plan";
import { useEmulator } from "../helpers/emulator";
import { useTempDir } from "../helpers/cli";

const em = useEmulator();
const tmp = useTempDir();
let client: ObservabilityClient;
beforeAll(() => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token, orgId: em.current.orgId });
});
afterAll(() => client.close());

const NODE = path.join(__dirname, "..", "..", "node_modules", ".bin", "node");

/** The stand-in `pulumi`: the file backend's layout, the commands recover runs, each logged. */
const FAKE_PULUMI = `#!${NODE}
const fs = require("node:fs"), path = require("node:path");
const args = process.argv.slice(2);
const stack = args[args.indexOf("--stack") + 1];
const root = process.env.PULUMI_BACKEND_URL.replace("file://", "");
const file = path.join(root, ".pulumi", "stacks", process.env.FAKE_PROJECT, stack + ".json");
fs.appendFileSync(process.env.FAKE_LOG, args.filter((a) => a !== "--non-interactive").join(" ") + "\\n");
const load = () => {
  const text = fs.readFileSync(file, "utf8");
  try { return JSON.parse(text); } catch { console.error("error: failed to load checkpoint: EOF"); process.exit(255); }
};
if (args[0] === "stack" && args[1] === "export") {
  console.log(JSON.stringify({ version: 3, deployment: load().checkpoint.latest }));
} else if (args[0] === "stack" && args[1] === "import") {
  const chk = load();
  chk.checkpoint.latest = JSON.parse(fs.readFileSync(args[args.indexOf("--file") + 1], "utf8")).deployment;
  fs.writeFileSync(file, JSON.stringify(chk));
} else if (args[0] === "config") {
  console.log(JSON.stringify({
    "observability:url": { value: process.env.FAKE_URL, secret: false },
    "observability:token": { value: process.env.FAKE_TOKEN, secret: true },
  }));
} else if (args[0] === "refresh") {
  load();
} else if (args[0] === "preview") {
  console.log(fs.readFileSync(process.env.FAKE_PREVIEW, "utf8"));
} else { console.error("unexpected: " + args.join(" ")); process.exit(1); }
`;

const PROJECT = "recover-cmd";
const STACK_URN = `urn:pulumi:dev::${PROJECT}::pulumi:pulumi:Stack::${PROJECT}-dev`;
const PROVIDER = `urn:pulumi:dev::${PROJECT}::pulumi:providers:observability::default`;

let serial = 0;
const monitorInputs = () => ({
  name: `cmd-${++serial}-${Date.now()}`,
  type: "MatchEvent",
  aplQuery: "['logs'] | where level == 'panic'",
  intervalMinutes: 1,
  rangeMinutes: 1,
});
const monitorResource = (name: string, inputs: Record<string, unknown>): StateResource => ({
  urn: `urn:pulumi:dev::${PROJECT}::observability:index:Monitor::${name}`,
  type: "observability:index:Monitor",
  custom: true,
  inputs,
  parent: STACK_URN,
  provider: `${PROVIDER}::prov-id`,
});

function checkpointOf(pending: PendingOperation[]): string {
  const deployment: Deployment = {
    manifest: { time: new Date().toISOString() },
    resources: [
      { urn: STACK_URN, type: "pulumi:pulumi:Stack", custom: false },
      { urn: PROVIDER, type: "pulumi:providers:observability", custom: true, id: "prov-id" },
    ],
    pending_operations: pending,
  };
  return JSON.stringify({
    version: 3,
    checkpoint: { stack: `organization/${PROJECT}/dev`, latest: deployment },
  });
}

/** A pid no process has: a child that has exited and been reaped. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

/** A project folder and a file backend whose stack `dev` was killed in the middle of creating two monitors. */
async function killedStack(name: string, lock: { hostname?: string; pid?: number } = {}) {
  const root = path.join(tmp.path, name);
  const work = path.join(root, "project");
  mkdirSync(work, { recursive: true });
  writeFileSync(path.join(work, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: yaml\n`);
  const stacks = path.join(root, "state", ".pulumi", "stacks", PROJECT);
  mkdirSync(stacks, { recursive: true });
  const landed = monitorInputs();
  const lost = monitorInputs();
  const d = descriptorOf("Monitor");
  const made = await d.family(client, {}).create(d.toBody(normalize(d, landed)));
  // Made by a create whose every record was lost with the torn write: only the program still declares it.
  const unrecorded = monitorInputs();
  const madeUnrecorded = await d.family(client, {}).create(d.toBody(normalize(d, unrecorded)));
  const preview = path.join(root, "preview.json");
  writeFileSync(
    preview,
    JSON.stringify({
      steps: [
        { op: "same", newState: { urn: STACK_URN, type: "pulumi:pulumi:Stack", custom: false } },
        { op: "create", newState: monitorResource("landed", landed) },
        { op: "create", newState: { ...monitorResource("unrecorded", unrecorded), id: "" } },
        { op: "create", newState: { ...monitorResource("never-sent", monitorInputs()), id: "" } },
      ],
    }),
  );
  const pending = [
    { type: "creating", resource: monitorResource("landed", landed) },
    { type: "creating", resource: monitorResource("lost", lost) },
  ];
  // The kill tore the last write: the checkpoint is empty, the copy before it whole.
  writeFileSync(path.join(stacks, "dev.json"), "");
  writeFileSync(path.join(stacks, "dev.json.bak"), checkpointOf(pending));
  const lockDir = path.join(root, "state", ".pulumi", "locks", "organization", PROJECT, "dev");
  mkdirSync(lockDir, { recursive: true });
  const lockFile = path.join(lockDir, "6f0c3a9e-lock.json");
  writeFileSync(
    lockFile,
    JSON.stringify({
      pid: lock.pid ?? deadPid(),
      username: "ci",
      hostname: lock.hostname ?? os.hostname(),
      timestamp: new Date(Date.now() - 5_000).toISOString(),
    }),
  );
  const fake = path.join(root, "pulumi");
  writeFileSync(fake, FAKE_PULUMI, { mode: 0o755 });
  const log = path.join(root, "commands.log");
  writeFileSync(log, "");
  const env = {
    ...process.env,
    PULUMI_COMMAND: fake,
    PULUMI_BACKEND_URL: `file://${path.join(root, "state")}`,
    FAKE_PROJECT: PROJECT,
    FAKE_LOG: log,
    FAKE_URL: em.current.url,
    FAKE_TOKEN: em.current.token,
    FAKE_PREVIEW: preview,
  };
  const lines: string[] = [];
  const run = (dryRun = false) =>
    recover(
      { stack: "dev", cwd: work, dryRun },
      { env, write: (l) => lines.push(l), processes: realProcesses },
    );
  return {
    run,
    lines,
    log,
    lockFile,
    checkpoint: path.join(stacks, "dev.json"),
    landedId: made.id,
    unrecordedId: madeUnrecorded.id,
  };
}

const realProcesses: ProcessProbe = require("../../cli/recover/file-backend").localProcesses;

it("removes the dead process's lock, restores the torn checkpoint from .bak, imports what landed and clears what did not, in one import and one refresh", async () => {
  const s = await killedStack("full");
  expect(await s.run()).toBe(0);
  const out = s.lines.join("\n");
  expect(out).toMatch(
    /Lock locks\/organization\/recover-cmd\/dev\/6f0c3a9e-lock\.json: its process \d+ is gone; removed\./,
  );
  expect(out).toMatch(/Checkpoint: it is empty; restored it from stacks\/recover-cmd\/dev\.json\.bak/);
  expect(out).toMatch(new RegExp(`::landed: found ${s.landedId}; import it`));
  expect(out).toMatch(
    /::lost: no object of the service matches its inputs: the create never landed; clear it\./,
  );
  // The declared resource the restored state lacks is found like an interrupted create; the one never sent is not.
  expect(out).toMatch(
    /2 declared resource\(s\) of this package are in neither the restored state nor its pending/,
  );
  expect(out).toMatch(new RegExp(`::unrecorded: found ${s.unrecordedId}; import it`));
  expect(out).toMatch(/1 other declared resource\(s\): not on the service; `pulumi up` makes them\./);
  expect(existsSync(s.lockFile)).toBe(false);
  expect(existsSync(`${s.checkpoint}.torn`)).toBe(true);
  expect(
    readFileSync(s.log, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(" --")[0]),
  ).toEqual(["stack export", "preview", "config", "stack import", "refresh"]);
  const latest = (JSON.parse(readFileSync(s.checkpoint, "utf8")) as { checkpoint: { latest: Deployment } })
    .checkpoint.latest;
  expect(latest.pending_operations).toEqual([]);
  const ours = (id: string) =>
    latest.resources!.filter((r) => r.id === id).map((r) => r.urn.split("::").at(-1));
  expect(ours(s.landedId)).toEqual(["landed"]);
  expect(ours(s.unrecordedId)).toEqual(["unrecorded"]);
  expect(latest.resources!.some((r) => r.urn.endsWith("::never-sent"))).toBe(false);
  // The token reached nothing it printed.
  expect(out).not.toContain(em.current.token);
});

it("--dry-run shows the same and changes nothing", async () => {
  const s = await killedStack("dry");
  const before = { lock: readFileSync(s.lockFile, "utf8"), checkpoint: readFileSync(s.checkpoint, "utf8") };
  expect(await s.run(true)).toBe(0);
  const out = s.lines.join("\n");
  expect(out).toMatch(/its process \d+ is gone; would remove it\./);
  expect(out).toMatch(/would restore it from stacks\/recover-cmd\/dev\.json\.bak/);
  expect(out).toMatch(new RegExp(`found ${s.landedId}; would import it`));
  expect(out).toMatch(/Dry run: would import 2, clear 1/);
  expect(readFileSync(s.lockFile, "utf8")).toBe(before.lock);
  expect(readFileSync(s.checkpoint, "utf8")).toBe(before.checkpoint);
  expect(existsSync(`${s.checkpoint}.torn`)).toBe(false);
  expect(readFileSync(s.log, "utf8")).not.toMatch(/^(stack import|refresh)/m);
});

it("leaves another host's lock alone, says why, and changes nothing", async () => {
  const s = await killedStack("elsewhere", { hostname: "build-agent-7", pid: 4242 });
  await expect(s.run()).rejects.toThrow(/locked by an operation that may still be running/);
  expect(s.lines.join("\n")).toMatch(/held by pid 4242 on build-agent-7, another host/);
  expect(existsSync(s.lockFile)).toBe(true);
  expect(readFileSync(s.checkpoint, "utf8")).toBe("");
});

describe("locks", () => {
  const files = () => stackFiles(`file://${tmp.path}/locks`, "p", "s");
  function lockWith(content: unknown, name: string) {
    const dir = files().lockDirs[0];
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  }
  it("judges each lock by its host and whether its process still runs pulumi", () => {
    const stamp = "2026-11-26T10:00:00Z";
    lockWith({ pid: 10, hostname: "here", timestamp: stamp }, "a.json");
    lockWith({ pid: 11, hostname: "here", timestamp: stamp }, "b.json");
    lockWith({ pid: 12, hostname: "here", timestamp: stamp }, "c.json");
    lockWith({ pid: 13, hostname: "there", timestamp: stamp }, "d.json");
    lockWith("{", "e.json");
    const probe: ProcessProbe = {
      hostname: () => "here",
      commandOf: (pid) => ({ 11: "/usr/bin/pulumi up --yes", 12: "/usr/sbin/sshd -D" })[pid as 11 | 12],
    };
    const verdicts = Object.fromEntries(judgeLocks(files(), probe).map((l) => [path.basename(l.file), l]));
    expect(verdicts["a.json"]).toMatchObject({ verdict: "stale", reason: "its process 10 is gone" });
    expect(verdicts["a.json"].timestamp?.toISOString()).toBe("2026-11-26T10:00:00.000Z");
    expect(verdicts["b.json"]).toMatchObject({ verdict: "live" });
    expect(verdicts["c.json"]).toMatchObject({ verdict: "stale" });
    expect(verdicts["c.json"].reason).toMatch(/that pid now runs `\/usr\/sbin\/sshd -D`/);
    expect(verdicts["d.json"]).toMatchObject({ verdict: "elsewhere" });
    expect(verdicts["e.json"]).toMatchObject({ verdict: "unreadable" });
  });
});

describe("checkpoints", () => {
  it("restores from the newest backup that loads: the .bak, else the backups folder", () => {
    const f = stackFiles(`file://${tmp.path}/ckpt`, "p", "s");
    mkdirSync(path.dirname(f.checkpoint), { recursive: true });
    mkdirSync(f.backupsDir, { recursive: true });
    writeFileSync(f.checkpoint, '{"version":3,"checkpoint":{"stack":"organization/p/s","lat');
    writeFileSync(`${f.checkpoint}.bak`, "");
    const whole = '{"version":3,"checkpoint":{"stack":"organization/p/s","latest":null}}';
    writeFileSync(path.join(f.backupsDir, "s.1700000000000000000.json"), whole);
    writeFileSync(path.join(f.backupsDir, "s.1800000000000000000.json"), whole);
    writeFileSync(path.join(f.backupsDir, "s.1900000000000000000.json"), "{");
    const judged = judgeCheckpoint(f);
    expect(judged.problem).toMatch(/not whole JSON/);
    expect(judged.backup).toMatchObject({ kind: "backups folder" });
    expect(path.basename(judged.backup!.file)).toBe("s.1800000000000000000.json");

    writeFileSync(`${f.checkpoint}.bak`, whole);
    expect(judgeCheckpoint(f).backup).toMatchObject({ kind: "bak", file: `${f.checkpoint}.bak` });
    writeFileSync(f.checkpoint, whole);
    expect(judgeCheckpoint(f)).toEqual({ file: f.checkpoint });
    // The blob store's metadata beside it, truncated by a kill before the new checkpoint was renamed in
    // (gocloud.dev/blob/fileblob attrs.go): the checkpoint is whole, the sidecar torn.
    writeFileSync(`${f.checkpoint}.attrs`, "");
    expect(judgeCheckpoint(f)).toEqual({ file: f.checkpoint, sidecar: "it is empty" });
    removeTornSidecar(judgeCheckpoint(f));
    expect(existsSync(`${f.checkpoint}.attrs`)).toBe(false);
    expect(existsSync(`${f.checkpoint}.attrs.torn`)).toBe(true);
    expect(judgeCheckpoint(f)).toEqual({ file: f.checkpoint });
  });
});
