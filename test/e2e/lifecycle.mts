/**
 * An example, deployed by the real engine: Pulumi's own integration-test sequence (pulumi/pulumi
 * pkg/testing/integration/program.go, `TestLifeCycleInitAndDestroy`): preview and up; a `stack export`/`import`
 * round trip; preview and up expecting no changes; refresh expecting no changes; then this project's own: the
 * example's steps, an out-of-band edit that `up --refresh` undoes, an edit of the stack's config that updates
 * exactly one resource, and destroy, after which the emulator is empty.
 */
import { cpSync, readFileSync, rmSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT, type EngineStack } from "../../scripts/lib.mts";
import {
  STEP_TIMEOUT_MS,
  cli,
  describeEngine,
  programFromCopies,
  recordDeployed,
  steps,
} from "./harness.mts";
import { workRoot } from "./run-env.ts";
import type { ServiceContents } from "../helpers/service-contents.ts";
import {
  assertServiceEmpty,
  exportState,
  freshLookups,
  freshService,
  openStack,
  packageResources,
  currentContents,
  type Client,
  type RunningEmulator,
} from "./support.mts";

/** What an example's own steps get: the service, the deployed stack, its outputs and its folder. */
export interface ScenarioContext {
  readonly client: Client;
  readonly em: RunningEmulator;
  readonly stack: EngineStack;
  readonly outputs: Record<string, unknown>;
  readonly workDir: string;
}

/** What one example needs beyond the common sequence. */
export interface ExampleScenario {
  /** Its folder under examples/. */
  example: string;
  /** The example's own config (`secret` values go in with `--secret`), made against `em`. */
  config(
    client: Client,
    em: RunningEmulator,
  ): Promise<{ plain: Record<string, string>; secret: Record<string, string> }>;
  /** Changes one managed object behind Pulumi's back; returns the check that `up --refresh` undid it. */
  drift(client: Client, outputs: Record<string, unknown>): Promise<() => Promise<void>>;
  /** How many resources that drift touches, each updated by `up --refresh` (default 1). */
  driftUpdates?: number;
  /** The example's own steps, run on the deployed stack after the no-change refresh. */
  steps?: [string, (ctx: ScenarioContext) => Promise<void>][];
  /**
   * An edit of the stack's config (a key the program reads) that updates exactly one resource, and its check: the
   * program's text is not touched, so no reformatting of it can break the edit.
   */
  edit: {
    config: Record<string, string>;
    /** Given the stack's outputs after the edit's up. */
    check(client: Client, outputs: Record<string, unknown>, em: RunningEmulator): Promise<void>;
  };
}

/** `outputs[key]`, or `outputs[key][sub]`, as a string (an id). */
export const id = (outputs: Record<string, unknown>, key: string, sub?: string): string =>
  String(sub ? (outputs[key] as Record<string, unknown>)[sub] : outputs[key]);

/** The changes an operation reported, e.g. `{ create: 8 }`, without the unchanged ones. */
function changes(summary: { resourceChanges?: Record<string, number> } | undefined): Record<string, number> {
  return Object.fromEntries(
    Object.entries(summary?.resourceChanges ?? {}).filter(([op, n]) => op !== "same" && n > 0),
  );
}

/** Declares the example's tests: the common sequence around its own steps, on a fresh emulator and stack. */
export function exampleLifecycle(scenario: ExampleScenario): void {
  describeEngine(`examples/${scenario.example} under the real engine`, () => {
    let service: Awaited<ReturnType<typeof freshService>>;
    let baseline: ServiceContents;
    let stack: EngineStack;
    let workDir: string;
    let outputs: Record<string, unknown> = {};
    let resourceCount = 0;
    const out = { onOutput: (s: string) => void process.stdout.write(s) };

    beforeAll(async () => {
      service = await freshService();
      baseline = await currentContents(service.client);
      workDir = path.join(workRoot(), scenario.example);
      cpSync(path.join(REPO_ROOT, "examples", scenario.example), workDir, {
        recursive: true,
        filter: (src) => !/Pulumi\.[^/]+\.yaml$|node_modules/.test(src),
      });
      stack = await openStack({
        cli: cli!,
        workDir,
        stateDir: path.join(workRoot(), `${scenario.example}-state`),
        stackName: "e2e",
        program: freshLookups(programFromCopies(path.join(workDir, "index.ts"))),
        em: service.em,
      });
    }, STEP_TIMEOUT_MS);

    afterAll(async () => {
      await service?.close();
    });

    const step = steps();

    step("config", async () => {
      const extra = await scenario.config(service.client, service.em);
      await stack.setConfig(extra.plain);
      await stack.setSecrets(extra.secret);
    });

    step("preview", async () => {
      const preview = await stack.stack.preview({ ...out, diff: true });
      expect(preview.changeSummary.create).toBeGreaterThan(1);
    });

    step("up", async () => {
      const up = await stack.stack.up(out);
      expect(up.summary.result).toBe("succeeded");
      outputs = await stack.outputs();
      const deployed = packageResources((await exportState(stack)).resources);
      resourceCount = deployed.length;
      recordDeployed(
        scenario.example,
        deployed.map((r) => r.type),
      );
      // Every resource of the package, and the stack.
      expect(changes(up.summary)).toEqual({ create: resourceCount + 1 });
    });

    step("stack export, then stack import of the same file", async () => {
      const file = path.join(workDir, "stack.json");
      await stack.run(["stack", "export", "--file", file]);
      expect(readFileSync(file, "utf8")).toContain('"ciphertext"');
      await stack.run(["stack", "import", "--file", file]);
      rmSync(file);
    });

    step("preview and up, expecting no changes", async () => {
      await stack.stack.preview({ ...out, expectNoChanges: true });
      await stack.stack.up({ ...out, expectNoChanges: true });
    });

    step("refresh, expecting no changes", async () => {
      await stack.stack.refresh({ ...out, expectNoChanges: true });
    });

    for (const [name, fn] of scenario.steps ?? []) {
      step(name, () =>
        fn({
          client: service.client,
          em: service.em,
          stack,
          outputs,
          workDir,
        }),
      );
    }

    step("an out-of-band edit, undone by up --refresh", async () => {
      const undone = await scenario.drift(service.client, outputs);
      const up = await stack.stack.up({ ...out, refresh: true });
      expect(changes(up.summary)).toEqual({ update: scenario.driftUpdates ?? 1 });
      await undone();
    });

    step("an edit of the stack's config updates exactly one resource", async () => {
      await stack.setConfig(scenario.edit.config);
      const preview = await stack.stack.preview({ ...out, diff: true });
      expect(preview.changeSummary.update).toBe(1);
      const up = await stack.stack.up(out);
      expect(changes(up.summary)).toEqual({ update: 1 });
      await scenario.edit.check(service.client, await stack.outputs(), service.em);
    });

    // Whatever got created is destroyed, even after a failed step, so the emulator is left clean either way.
    it(
      "destroy, after which the emulator is empty",
      async () => {
        const destroyed = await stack.stack.destroy(out);
        if (resourceCount > 0) expect(changes(destroyed.summary)).toEqual({ delete: resourceCount + 1 });
        expect((await exportState(stack)).resources).toEqual([]);
        await assertServiceEmpty(service.client, baseline);
        await stack.workspace.removeStack("e2e");
      },
      STEP_TIMEOUT_MS,
    );
  });
}
