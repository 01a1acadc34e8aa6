/**
 * test/helpers/run-processes.ts, with which the real-engine tests end what they start and their global teardowns
 * check that no plugin or host outlives the run: real processes, named as the engine's plugins are, marked
 * through their environment, one of them started by a parent that exits at once (as a host outlives a killed
 * engine, adopted by init).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  checkNoneOutlive,
  endMarkedPlugins,
  isDynamicHost,
  markedPlugins,
  PROCESS_MARK,
} from "./run-processes";

let dir: string;
const started: ChildProcess[] = [];
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "run-processes-"));
  // Named as the engine names a provider plugin: it waits until killed, or exits when told on stdin.
  writeFileSync(
    path.join(dir, "pulumi-resource-fake"),
    "process.stdin.on('data', () => process.exit(0)); setInterval(() => {}, 1 << 30);",
  );
  // Starts a "plugin" detached with the given mark, prints its pid, and exits: the plugin is left to init.
  writeFileSync(
    path.join(dir, "orphaner.js"),
    `const { spawn } = require("node:child_process");
     const c = spawn(process.execPath, [${JSON.stringify(path.join(dir, "pulumi-resource-fake"))}],
       { detached: true, stdio: "ignore" });
     c.unref(); console.log(c.pid);`,
  );
});
afterAll(() => {
  for (const c of started) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const run = `test-${process.pid}`;

/** A fake plugin with `mark` under this test's run mark, as a child of this process. */
function plugin(mark: string): ChildProcess {
  const child = spawn(process.execPath, [path.join(dir, "pulumi-resource-fake")], {
    env: { ...process.env, [PROCESS_MARK]: `${run}/${mark}` },
    stdio: ["pipe", "ignore", "ignore"],
  });
  started.push(child);
  return child;
}

/** Resolves once `mark`'s processes are what `want` says (the spawn is asynchronous). */
async function seen(mark: string, count: number) {
  for (;;) {
    const found = markedPlugins(mark);
    if (found.length === count) return found;
    await new Promise((r) => setImmediate(r));
  }
}

test("marked plugins are found by their mark and the marks under it, and nothing else", async () => {
  const a = plugin("a");
  const b = plugin("a/b");
  const other = plugin("other");
  const found = await seen(`${run}/a`, 2);
  expect(found.map((p) => p.pid).sort()).toEqual([a.pid, b.pid].sort());
  expect(found[0].command).toMatch(/pulumi-resource-fake$/);
  expect(markedPlugins(`${run}/a/b`).map((p) => p.pid)).toEqual([b.pid]);
  expect(markedPlugins(`${run}/oth`)).toEqual([]);
  // The test's own process is marked too (by no run here), but it is not a plugin.
  expect(markedPlugins(`${run}/other`).map((p) => p.pid)).toEqual([other.pid]);
  for (const c of [a, b, other]) c.kill("SIGKILL");
});

test("one that outlived its parent is found, and ended", async () => {
  const { execFileSync } = await import("node:child_process");
  const pid = Number(
    execFileSync(process.execPath, [path.join(dir, "orphaner.js")], {
      env: { ...process.env, [PROCESS_MARK]: `${run}/orphan` },
      encoding: "utf8",
    }).trim(),
  );
  expect((await seen(`${run}/orphan`, 1)).map((p) => p.pid)).toEqual([pid]);
  const ended = await endMarkedPlugins(`${run}/orphan`);
  expect(ended.map((p) => p.pid)).toEqual([pid]);
  expect(markedPlugins(`${run}/orphan`)).toEqual([]);
});

test("within the grace, one that ends by itself is not counted as ended here", async () => {
  const child = plugin("polite");
  await seen(`${run}/polite`, 1);
  const ending = endMarkedPlugins(`${run}/polite`, { graceMs: 30_000 });
  child.stdin!.write("exit\n");
  expect(await ending).toEqual([]);
});

test("the teardown's check fails naming what outlived the run, and ends it", async () => {
  const child = plugin("late");
  await seen(`${run}/late`, 1);
  await expect(checkNoneOutlive(`${run}/late`, "the suite", 0)).rejects.toThrow(
    new RegExp(
      `^the suite: 1 plugin or host process\\(es\\) outlived .*: ${child.pid} \`.*pulumi-resource-fake\``,
    ),
  );
  expect(markedPlugins(`${run}/late`)).toEqual([]);
  await expect(checkNoneOutlive(`${run}/late`, "the suite", 0)).resolves.toBeUndefined();
  await expect(checkNoneOutlive(undefined, "a run with no mark")).resolves.toBeUndefined();
});

test.each([
  ["node /p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js 127.0.0.1:4001", true],
  ["/bin/sh /home/u/.pulumi/bin/pulumi-resource-pulumi-nodejs 127.0.0.1:4001", true],
  ["/p/node_modules/node/bin/node /p/dist/provider/native/main.js 127.0.0.1:4001", false],
  ["/home/u/.pulumi/bin/pulumi-language-yaml 127.0.0.1:4001", false],
])("isDynamicHost(%s) is %s", (command, host) => {
  expect(isDynamicHost({ pid: 1, mark: "m", command })).toBe(host);
});
