/**
 * The processes a test run starts, found again by a mark in their environment. Every process inherits its
 * parent's environment, and the engine passes its own to the plugins and hosts it starts (pulumi/pulumi
 * pkg/resource/plugin/plugin.go runs them with os.Environ()), so a variable set before the CLI starts is in
 * every process beneath it, even one that outlived its parent and was adopted by init: a `kill -9` of `pulumi up`
 * leaves its dynamic-provider hosts so, out of the process group the test killed (the engine gives each plugin
 * its own). `npm run test:e2e` marks the whole run (scripts/test-e2e.mts); a test that kills or interrupts the
 * CLI marks what it starts more narrowly, ends what is left when it is done, and the run's global teardown fails,
 * naming them, if any plugin or host of the run outlives it.
 *
 * Linux only (/proc); elsewhere nothing is found. Erasable syntax only: loaded by ts-jest and by Node's type
 * stripping (test/e2e).
 */
import { readdirSync, readFileSync } from "node:fs";

/** The variable that marks a run's processes: its value is the run's id, then `/` and a test's own tag. */
export const PROCESS_MARK = "OBS_TEST_PROCESSES";

/**
 * The commands that are the engine's plugins and hosts: what must not outlive a run. The engine runs a plugin's
 * executable, `pulumi-resource-<name>` or `pulumi-language-<name>`; this package's plugin execs Node on its entry
 * (dist/provider/native/main.js from the build, provider.js in an installed release), and the dynamic-provider
 * launcher starts Node on @pulumi/pulumi's cmd/dynamic-provider.
 */
const PLUGIN = new RegExp(
  [
    /(^|\/)pulumi-(resource|language|analyzer)-[^/\s]*( |$)/.source,
    /\/cmd\/dynamic-provider(\/index\.js)?( |$)/.source,
    /\/dist\/provider\/native\/main\.js( |$)/.source,
    /\/resource-observability-v[^/\s]+\/provider\.js( |$)/.source,
  ].join("|"),
);

/**
 * Whether `p` is a dynamic-provider host (`node …/@pulumi/pulumi/cmd/dynamic-provider/index.js <engine>`) or its
 * launcher (`pulumi-resource-pulumi-nodejs <engine>`, a shell script that waits for the host, then exits).
 */
export const isDynamicHost = (p: MarkedProcess): boolean =>
  /\/cmd\/dynamic-provider(\/index\.js)? |(^|\/)pulumi-resource-pulumi-nodejs /.test(p.command);

/** A marked process. */
export interface MarkedProcess {
  pid: number;
  mark: string;
  command: string;
}

/** `env` with the mark `mark` (under the run's, when there is one: `<run>/<mark>`). */
export function markedEnv<T extends Record<string, string | undefined>>(env: T, mark: string): T {
  const run = process.env[PROCESS_MARK];
  return { ...env, [PROCESS_MARK]: run ? `${run}/${mark}` : mark };
}

/** The mark `markedEnv(env, mark)` gives. */
export function markOf(mark: string): string {
  const run = process.env[PROCESS_MARK];
  return run ? `${run}/${mark}` : mark;
}

/**
 * The running plugins and hosts whose mark is `mark` or lies under it (`mark/…`). Zombies are left out: they are
 * gone, waiting only for a parent to read their status.
 */
export function markedPlugins(mark: string): MarkedProcess[] {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const found: MarkedProcess[] = [];
  for (const pid of pids) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      const entry = env.find((e) => e.startsWith(`${PROCESS_MARK}=`));
      const value = entry?.slice(PROCESS_MARK.length + 1);
      if (value === undefined || (value !== mark && !value.startsWith(`${mark}/`))) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z") continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      if (PLUGIN.test(command)) found.push({ pid: Number(pid), mark: value, command });
    } catch {
      // Ended while being read, or not ours to read.
    }
  }
  return found;
}

/**
 * Waits up to `graceMs` for every plugin and host marked `mark` (those `graceFor` picks, when given) to end by
 * itself, then ends the rest (SIGKILL:
 * their engine is gone, nothing of theirs is worth waiting for), and resolves, with those it had to kill, once none
 * is left running. It looks at /proc again every `pollMs` meanwhile: a process leaves it when the kernel has
 * reaped it, which no event announces to a process that is not its parent.
 */
export async function endMarkedPlugins(
  mark: string,
  options: { graceMs?: number; pollMs?: number; graceFor?: (p: MarkedProcess) => boolean } = {},
): Promise<MarkedProcess[]> {
  const { graceMs = 0, pollMs = 20, graceFor = () => true } = options;
  const until = async (deadline: number, done: () => boolean) => {
    while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, pollMs));
    return done();
  };
  await until(Date.now() + graceMs, () => !markedPlugins(mark).some(graceFor));
  const killed = markedPlugins(mark);
  for (const p of killed) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  const stillThere = () => markedPlugins(mark).filter((p) => killed.some((k) => k.pid === p.pid));
  if (!(await until(Date.now() + 10_000, () => stillThere().length === 0)))
    throw new Error(`still running 10 s after SIGKILL: ${stillThere().map(shown).join("; ")}`);
  return killed;
}

const shown = (p: MarkedProcess) => `${p.pid} \`${p.command}\``;

/**
 * The run's global teardown: fails, naming them, if any plugin or host of the run (marked with its id) is still
 * running a few seconds after the last test (time for the last engine's own shutdown, and for a host's next health
 * check), after ending them so that they do not outlive it either way.
 */
export async function checkNoneOutlive(
  runMark: string | undefined,
  suite: string,
  graceMs = 5_000,
): Promise<void> {
  if (!runMark) return;
  const left = await endMarkedPlugins(runMark, { graceMs });
  if (left.length > 0)
    throw new Error(
      `${suite}: ${left.length} plugin or host process(es) outlived the tests that started them (now killed): ` +
        left.map((p) => `${shown(p)} (${p.mark})`).join("; "),
    );
}
