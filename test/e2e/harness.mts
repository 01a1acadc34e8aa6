/**
 * The real-engine tests' shape on jest: a describe that is skipped, saying why, when no CLI can be had; steps that
 * run in order and stop at the first that fails (each later one fails saying which step it waited on); the
 * resource types each file deployed, for coverage.test.mts; and the engine paths' frame: a fresh emulator, stacks
 * that are destroyed at the end, after which the service must be empty again.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { EngineStack, InlineProgram, PulumiCli } from "../../scripts/lib.mts";
import { cliOfRun, workRoot } from "./run-env.ts";
import type { ServiceContents } from "../helpers/service-contents.ts";
import {
  assertServiceEmpty,
  exportState,
  freshLookups,
  freshService,
  openStack,
  packageResources,
  projectDir,
  currentContents,
  type Client,
  type RunningEmulator,
} from "./support.mts";

/** How long one step may take: a real `pulumi up` of a dozen resources on a loaded machine takes a minute. */
export const STEP_TIMEOUT_MS = 10 * 60_000;

/** The CLI of this run, or undefined when global-setup.mts found none (every test is then skipped). */
export const cli: PulumiCli | undefined = cliOfRun();

/** `describe`, or `describe.skip` when no CLI can be had (global-teardown.mts prints why, last). */
export const describeEngine: jest.Describe = cli ? describe : describe.skip;

/**
 * Steps that run in order and depend on one another: once one fails, each later one fails at once, naming the
 * step it needed, instead of running against a stack left halfway.
 */
export function steps(): (name: string, fn: () => Promise<void>) => void {
  let failed: string | undefined;
  return (name, fn) =>
    it(
      name,
      async () => {
        if (failed !== undefined) throw new Error(`not run: the step "${failed}" failed`);
        try {
          await fn();
        } catch (err) {
          failed = name;
          throw err;
        }
      },
      STEP_TIMEOUT_MS,
    );
}

/** Adds the resource types `slug`'s stacks deployed to this run's record. */
export function recordDeployed(slug: string, types: string[]): void {
  const dir = path.join(workRoot(), "deployed");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${slug}.json`);
  let known: string[] = [];
  try {
    known = JSON.parse(readFileSync(file, "utf8")) as string[];
  } catch {
    // First record of this slug.
  }
  writeFileSync(file, JSON.stringify([...new Set([...known, ...types])]));
}

/** Every resource type recorded in this run, and by which slugs. */
export function deployedInThisRun(): { types: Set<string>; slugs: string[] } {
  const dir = path.join(workRoot(), "deployed");
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".json"));
  } catch {
    // Nothing recorded yet.
  }
  const types = new Set(
    files.flatMap((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")) as string[]),
  );
  return { types, slugs: files.map((f) => f.slice(0, -".json".length)) };
}

/**
 * A program that runs `file` (a Pulumi program such as an example's index.ts) afresh on every run, as `pulumi up`
 * runs it in a new process each time, and returns its exports as outputs. Each run imports a copy of its own
 * beside it: jest's module loader keeps one module per path and ignores the query string by which
 * scripts/lib.mts's programFromFile asks Node for a fresh one. What the program imports is shared across runs, as
 * there, so a stack opens it with freshLookups around it (PathContext.stack and the examples' lifecycle do).
 */
export function programFromCopies(file: string): InlineProgram {
  return async () => {
    // Numbered across every program of the file: two stacks of one program must not import the same copy.
    const copy = path.join(path.dirname(file), `.run-${++copies}.${path.basename(file)}`);
    copyFileSync(file, copy);
    return { ...((await import(pathToFileURL(copy).href)) as Record<string, unknown>) };
  };
}

let copies = 0;

/** What an engine path's steps get: the service, the folders, and a way to open stacks cleaned up afterwards. */
export interface PathContext {
  readonly cli: PulumiCli;
  readonly em: RunningEmulator;
  readonly client: Client;
  readonly workDir: string;
  readonly stateDir: string;
  stack(
    name: string,
    program: InlineProgram,
    options?: { credentials?: boolean; workDir?: string },
  ): Promise<EngineStack>;
  /** Output options that stream to ours and keep a copy in `output`. */
  readonly out: { onOutput: (s: string) => void };
  readonly output: string[];
  /** Runs `fn` after the path's steps, before the clean-up checks that the service is empty: to delete what a
   * step made by hand. */
  afterSteps(fn: () => Promise<void>): void;
}

/**
 * An engine path named `group`, on a fresh emulator, its stacks under `<run>/<slug>`. `body` declares the path's
 * setup (beforeAll) and steps; after them every stack it opened is destroyed, and the service must be empty again.
 */
export function enginePath(group: string, slug: string, body: (ctx: PathContext) => void): void {
  describeEngine(group, () => {
    let service: Awaited<ReturnType<typeof freshService>> | undefined;
    let baseline: ServiceContents;
    const opened: EngineStack[] = [];
    const output: string[] = [];
    const afterSteps: (() => Promise<void>)[] = [];
    const ready = <T,>(value: T | undefined, what: string): T => {
      if (value === undefined) throw new Error(`${what} is used before the path's setup ran`);
      return value;
    };
    let dirs: { workDir: string; stateDir: string } | undefined;
    const ctx: PathContext = {
      get cli() {
        return ready(cli, "the CLI");
      },
      get em() {
        return ready(service, "the emulator").em;
      },
      get client() {
        return ready(service, "the client").client;
      },
      get workDir() {
        return ready(dirs, "the project folder").workDir;
      },
      get stateDir() {
        return ready(dirs, "the state folder").stateDir;
      },
      output,
      afterSteps: (fn) => void afterSteps.push(fn),
      out: {
        onOutput: (s) => {
          output.push(s);
          process.stdout.write(s);
        },
      },
      stack: async (name, program, options = {}) => {
        const stack = await openStack({
          cli: ctx.cli,
          workDir: options.workDir ?? ctx.workDir,
          stateDir: ctx.stateDir,
          stackName: name,
          program: freshLookups(program),
          em: ctx.em,
          credentials: options.credentials,
        });
        opened.push(stack);
        return stack;
      },
    };

    beforeAll(async () => {
      service = await freshService();
      baseline = await currentContents(service.client);
      const root = path.join(workRoot(), slug);
      dirs = {
        workDir: projectDir(root, "engine-paths", "Small programs for the engine's paths."),
        stateDir: path.join(root, "state"),
      };
    }, STEP_TIMEOUT_MS);

    body(ctx);

    it(
      "clean up: destroy, after which the emulator is empty",
      async () => {
        for (const fn of afterSteps) await fn();
        for (const stack of opened) {
          const { resources } = await exportState(stack);
          recordDeployed(
            slug,
            packageResources(resources).map((r) => r.type),
          );
          if (resources.length > 0) await stack.stack.destroy({ ...ctx.out });
          await stack.workspace.removeStack(stack.name);
        }
        await assertServiceEmpty(ctx.client, baseline);
      },
      STEP_TIMEOUT_MS,
    );

    afterAll(async () => {
      await service?.close();
    });
  });
}
