/**
 * What every example test does before asserting: a fresh emulator, a client on it, the real dynamic-provider
 * host configured with the emulator's URL and a secret token, then two runs of the example's real program through
 * the driver in engine.ts: one that checks and creates, one that checks and diffs against the first (an unchanged
 * second `pulumi up`).
 */
import { ObservabilityClient } from "../../provider/client";
import type { RunningEmulator } from "../../emulator";
import { useEmulator } from "../helpers/emulator";
import { startProviderHost, type ProviderHost } from "../helpers/host";
import { up } from "./engine";
import type { ProgramRun } from "./program";

/** The example's own config (keys without the project prefix) and which of it is secret. */
export interface ExampleConfig {
  plain?: Record<string, string>;
  secret?: Record<string, string>;
}

/** One diff the second pass asked for. */
export interface DiffRecord {
  type: string;
  name: string;
  /** True when the host reported a change (DIFF_SOME) or could not tell (DIFF_UNKNOWN). */
  changed: boolean;
  replaces: string[];
}

/** Loads a program afresh in jest's module registry, so each pass constructs its resources again. */
export function loadIsolated(file: string): Record<string, unknown> {
  let exports: Record<string, unknown> = {};
  jest.isolateModules(() => {
    exports = require(file);
  });
  return exports;
}

/** Options of {@link useExampleRun}. */
export interface ExampleRunOptions {
  /** Folder under `examples/`; also the project name, as in its Pulumi.yaml. */
  example: string;
  /** Runs before the program (e.g. creates objects to adopt) and returns the example's own config. */
  prepare?(client: ObservabilityClient, em: RunningEmulator): Promise<ExampleConfig> | ExampleConfig;
}

/** The outcome of both runs, for the file's tests; read it inside tests only. */
export interface ExampleRun {
  readonly em: RunningEmulator;
  readonly client: ObservabilityClient;
  /** The first pass: check then create for every registration. */
  readonly first: ProgramRun;
  /** The second pass over the unchanged program: check then diff. */
  readonly second: ProgramRun;
  /** The diffs the second pass asked for. */
  readonly diffs: DiffRecord[];
}

/** Registers the file's beforeAll/afterAll that run the example twice against a fresh emulator. */
export function useExampleRun(options: ExampleRunOptions): ExampleRun {
  const project = options.example;
  const em = useEmulator();
  let host: ProviderHost | undefined;
  let client: ObservabilityClient | undefined;
  let first: ProgramRun | undefined;
  let second: ProgramRun | undefined;
  const diffs: DiffRecord[] = [];

  beforeAll(async () => {
    const providerConfig = {
      "observability:url": em.current.url,
      "observability:token": em.current.token,
      "observability:orgId": em.current.orgId,
    };
    client = new ObservabilityClient({
      url: em.current.url,
      token: em.current.token,
      orgId: em.current.orgId,
    });
    const own = (await options.prepare?.(client, em.current)) ?? {};
    const config: Record<string, string> = { ...providerConfig };
    for (const [k, v] of Object.entries({ ...own.plain, ...own.secret })) config[`${project}:${k}`] = v;
    const secretKeys = [
      "observability:token",
      ...Object.keys(own.secret ?? {}).map((k) => `${project}:${k}`),
    ];

    host = await startProviderHost({ config: providerConfig, secretKeys: ["observability:token"], project });
    await host.configure();
    const program = { example: options.example, config, secretKeys, load: loadIsolated };
    const created = await up({ host, project, program });
    first = created.run;
    const again = await up({ host, project, program, state: created.state });
    second = again.run;
    for (const step of again.steps) {
      // A step without a diff was a create or a delete: a change all the same.
      const diff = step.diff ?? { changes: "unknown", replaces: [] };
      diffs.push({
        type: step.type,
        name: step.name,
        changed: diff.changes !== "none",
        replaces: diff.replaces,
      });
    }
  }, 60_000);

  afterAll(async () => {
    await host?.close();
    await client?.close();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useExampleRun: ${what} is not ready (use it inside a test)`);
    return value;
  };
  return {
    get em() {
      return em.current;
    },
    get client() {
      return ready(client, "the client");
    },
    get first() {
      return ready(first, "the first run");
    },
    get second() {
      return ready(second, "the second run");
    },
    diffs,
  };
}
