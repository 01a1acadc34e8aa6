/**
 * `observability recover` names and stops the dynamic-provider hosts a killed run left running
 * (cli/recover/hosts.ts): a host in the project's folder whose engine address no longer answers the gRPC health
 * check (pulumi/pulumi rpcutil.Healthcheck's test). First with a probe the test writes, then with this machine's
 * processes and a real host whose engine is stopped, as a host of a version without the health check stays.
 */
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  leftoverHosts,
  localHosts,
  stopHost,
  type HostProbe,
  type SeenProcess,
} from "../../cli/recover/hosts";
import type { EngineState } from "../../provider/resources/engine-health";
import { REPO_ROOT, startProviderHost } from "../helpers/host";

const PROJECT = "/work/project";
const HOST = "/work/project/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";
const LAUNCHER = "/home/u/.pulumi/bin/pulumi-resource-pulumi-nodejs";

/** A probe over `processes`, with engines alive or not by address, and signals that do what `onSignal` says. */
function probeOf(
  processes: SeenProcess[],
  engines: Record<string, EngineState>,
  onSignal: (pid: number, signal: string) => boolean = () => true,
) {
  const running = new Set(processes.map((p) => p.pid));
  const sent: string[] = [];
  let paused = 0;
  const probe: HostProbe = {
    list: () => processes.filter((p) => running.has(p.pid)),
    engine: async (address) => engines[address] ?? { alive: false, reason: "UNAVAILABLE: refused" },
    signal: (pid, signal) => {
      if (!running.has(pid)) return false;
      sent.push(`${signal} ${pid}`);
      if (onSignal(pid, signal)) running.delete(pid);
      return true;
    },
    alive: (pid) => running.has(pid),
    pause: async (ms) => {
      paused += ms;
    },
  };
  return { probe, sent, paused: () => paused };
}

const processes: SeenProcess[] = [
  { pid: 10, ppid: 1, argv: ["/bin/sh", LAUNCHER, "127.0.0.1:4001"], cwd: PROJECT },
  { pid: 11, ppid: 10, argv: ["node", HOST, "127.0.0.1:4001"], cwd: PROJECT },
  // A live run's host in the same project: its engine answers.
  { pid: 21, ppid: 20, argv: ["node", HOST, "127.0.0.1:4002"], cwd: PROJECT },
  // Another project's leftover host: not this recovery's.
  { pid: 31, ppid: 1, argv: ["node", HOST, "127.0.0.1:4003"], cwd: "/work/other" },
  // Not a host: a program's own node in the folder.
  { pid: 41, ppid: 1, argv: ["node", "index.js", "127.0.0.1:4004"], cwd: PROJECT },
  // A process whose folder cannot be read (another user's).
  { pid: 51, ppid: 1, argv: ["node", HOST, "127.0.0.1:4005"] },
];
const engines: Record<string, EngineState> = {
  "127.0.0.1:4001": { alive: false, reason: "UNAVAILABLE: No connection established" },
  "127.0.0.1:4002": { alive: true },
};

test("a host in the project whose engine is gone, with its launcher; no other process", async () => {
  const { probe } = probeOf(processes, engines);
  expect(await leftoverHosts(PROJECT, probe)).toEqual([
    {
      pid: 11,
      engine: "127.0.0.1:4001",
      reason: "UNAVAILABLE: No connection established",
      command: `node ${HOST} 127.0.0.1:4001`,
      launcher: { pid: 10, command: `/bin/sh ${LAUNCHER} 127.0.0.1:4001` },
    },
  ]);
  expect(await leftoverHosts("/work/empty", probe)).toEqual([]);
});

test("stopping: SIGTERM; SIGKILL only when the host is still there after the grace; gone already", async () => {
  const [host] = await leftoverHosts(PROJECT, probeOf(processes, engines).probe);
  const polite = probeOf(processes, engines);
  expect(await stopHost(host, polite.probe)).toBe("terminated");
  expect(polite.sent).toEqual(["SIGTERM 11"]);

  const stubborn = probeOf(processes, engines, (_pid, signal) => signal === "SIGKILL");
  expect(await stopHost(host, stubborn.probe, 1_000)).toBe("killed");
  expect(stubborn.sent).toEqual(["SIGTERM 11", "SIGKILL 11"]);
  expect(stubborn.paused()).toBe(1_000);

  const none = probeOf(
    processes.filter((p) => p.pid !== 11),
    engines,
  );
  expect(await stopHost(host, none.probe)).toBe("gone");
  expect(none.sent).toEqual([]);
});

test("on this machine: a real host whose engine stopped is found by its folder and dead engine, and stopped", async () => {
  // The program's folder, where the engine starts its hosts; the host here never loads this package's code, so
  // it stays as a host without the health check would.
  const project = mkdtempSync(path.join(os.tmpdir(), "recover-hosts-"));
  symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(project, "node_modules"), "dir");
  const host = await startProviderHost({ config: {}, cwd: project });
  try {
    expect(await leftoverHosts(project, localHosts)).toEqual([]);
    host.stopEngine();
    const found = await leftoverHosts(project, localHosts);
    expect(found).toEqual([
      {
        pid: host.pid,
        engine: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        reason: expect.stringMatching(/^UNAVAILABLE: /),
        command: expect.stringMatching(/cmd\/dynamic-provider\/index\.js 127\.0\.0\.1:\d+$/),
        launcher: undefined,
      },
    ]);
    expect(await stopHost(found[0], localHosts)).toBe("terminated");
    expect(await host.exited).toBe("SIGTERM");
  } finally {
    await host.close();
    rmSync(project, { recursive: true, force: true });
  }
});
