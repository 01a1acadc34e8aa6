/**
 * Runs an example's real `index.ts` under `pulumi.runtime.setMocks`, handing every resource registration to a
 * caller-supplied engine step (engine.ts sends it through the real dynamic-provider host). Only what the
 * engine itself would do is done here: secrets are stripped from inputs before the provider sees them (the
 * dynamic host answers `acceptSecrets=false`), and outputs are re-marked secret where the input was secret or
 * the resource named them in `additionalSecretOutputs`.
 *
 * It depends on no test runner: the caller says how to load the program afresh.
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";

/** Pulumi's wire marker for a secret value (`rpc.specialSigKey` / `rpc.specialSecretSig`). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** The repository's examples folder. */
export const EXAMPLES_DIR = path.resolve(__dirname, "../../examples");

/** One resource registration as the engine would hand it to the provider. */
export interface RegisterRequest {
  /** Full type token, e.g. `pulumi-nodejs:dynamic/observability:Monitor`. */
  type: string;
  /** The logical name given in the program. */
  name: string;
  /** Inputs with secrets unwrapped, `__provider` included: exactly what the host's Check receives. */
  inputs: Record<string, unknown>;
  /** The resources (as `type::name`) this one depends on, as the program declared them to the engine. */
  dependencies: string[];
}

/** What the engine step returns: the id and the outputs (state) the provider produced. */
export interface RegisterResult {
  id: string;
  outputs: Record<string, unknown>;
}

/** A registration, completed. */
export interface Registration extends RegisterRequest, RegisterResult {
  /** Top-level input keys whose value was (or contained) a secret. */
  secretInputs: string[];
  /** The `additionalSecretOutputs` resource option the program registered the resource with. */
  additionalSecretOutputs: string[];
}

/** Everything one run of a program produced. */
export interface ProgramRun {
  /** In registration order. */
  registrations: Registration[];
  /** The program's stack outputs, fully resolved. */
  exports: Record<string, unknown>;
  /** The stack outputs that are secret (wholly or in part), to be masked wherever they are shown. */
  secretExports: string[];
}

/** How to run one example. */
export interface RunOptions {
  /** Folder name under `examples/`. */
  example: string;
  /** Project name, as in the example's Pulumi.yaml; it namespaces the example's own config keys. */
  project: string;
  /** Stack name; defaults to `test`. */
  stack?: string;
  /** Stack config, with full keys (`observability:url`, `<project>:slackWebhookUrl`). */
  config: Record<string, string>;
  /** The keys of `config` that are secrets. */
  secretKeys: string[];
  /** The engine step for each registration: e.g. host check then create, or check then diff. */
  register: (req: RegisterRequest) => Promise<RegisterResult>;
  /**
   * Loads the program's entry file afresh and returns its exports: each run must construct its resources
   * again (jest: `jest.isolateModules`; the demo, one run per process: `require`).
   */
  load: (file: string) => Record<string, unknown>;
}

function isSecretWrapper(v: unknown): v is { value: unknown } {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/** Removes secret wrappers at any depth, reporting whether there were any. */
export function unwrapSecrets(value: unknown): { value: unknown; hadSecret: boolean } {
  if (isSecretWrapper(value)) return { value: unwrapSecrets(value.value).value, hadSecret: true };
  if (Array.isArray(value)) {
    let hadSecret = false;
    const out = value.map((v) => {
      const r = unwrapSecrets(v);
      hadSecret ||= r.hadSecret;
      return r.value;
    });
    return { value: out, hadSecret };
  }
  if (typeof value === "object" && value !== null) {
    let hadSecret = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = unwrapSecrets(v);
      hadSecret ||= r.hadSecret;
      out[k] = r.value;
    }
    return { value: out, hadSecret };
  }
  return { value, hadSecret: false };
}

/** Resolves every Output inside `value` (at any depth) to its plain value. */
export function resolveOutputs<T>(value: T): Promise<pulumi.Unwrap<T>> {
  return new Promise((resolve, reject) => {
    try {
      pulumi.output(value).apply((v) => {
        resolve(v);
        return v;
      });
    } catch (err) {
      reject(err);
    }
  });
}

type MonitorLike = {
  registerResource: (req: RegisterResourceRequestLike, cb: unknown) => unknown;
};
type RegisterResourceRequestLike = {
  getType(): string;
  getName(): string;
  getAdditionalsecretoutputsList(): string[];
  getDependenciesList(): string[];
};

/** `type::name` of a URN (`urn:pulumi:<stack>::<project>::<type chain>::<name>`): the key of a resource here. */
export function keyOfUrn(urn: string): string {
  const parts = urn.split("::");
  const typeChain = parts[2] ?? "";
  return `${typeChain.slice(typeChain.lastIndexOf("$") + 1)}::${parts.slice(3).join("::")}`;
}

/**
 * Runs `examples/<example>/index.ts` once, in a fresh module registry, and waits until every registration has
 * been answered. Throws the first registration error, if any, after all of them have settled.
 */
export async function runProgram(options: RunOptions): Promise<ProgramRun> {
  const registrations: Registration[] = [];
  const errors: Error[] = [];
  const secretOutputsByResource = new Map<string, string[]>();
  const dependenciesByResource = new Map<string, string[]>();

  await pulumi.runtime.setMocks(
    {
      newResource: async (args) => {
        // A component (an Slo) is the program's own grouping: the engine records it and no provider sees it.
        if (args.custom === false) return { id: "", state: {} };
        try {
          const { inputs, secretInputs } = stripSecrets(args.inputs as Record<string, unknown>);
          const dependencies = dependenciesByResource.get(`${args.type}::${args.name}`) ?? [];
          const req: RegisterRequest = { type: args.type, name: args.name, inputs, dependencies };
          const result = await options.register(req);
          const additionalSecretOutputs = secretOutputsByResource.get(`${args.type}::${args.name}`) ?? [];
          registrations.push({ ...req, ...result, secretInputs, additionalSecretOutputs });
          const secretKeys = new Set([...secretInputs, ...additionalSecretOutputs]);
          const state: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(result.outputs))
            state[k] = secretKeys.has(k) ? pulumi.secret(v) : v;
          return { id: result.id, state };
        } catch (err) {
          errors.push(err instanceof Error ? err : new Error(String(err)));
          throw err;
        }
      },
      call: (args) => {
        throw new Error(`the examples call no provider functions, but ${args.token} was called`);
      },
    },
    options.project,
    options.stack ?? "test",
    false,
  );

  // The mocks hide the registered resource options and dependencies; read them off the request as the engine
  // would (the driver deletes in reverse dependency order).
  const settings = require("@pulumi/pulumi/runtime/settings") as {
    getMonitor(): MonitorLike;
    waitForRPCs(): Promise<void>;
  };
  const monitor = settings.getMonitor();
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, cb) => {
    const key = `${req.getType()}::${req.getName()}`;
    secretOutputsByResource.set(key, req.getAdditionalsecretoutputsList());
    dependenciesByResource.set(key, [...new Set(req.getDependenciesList().map(keyOfUrn))]);
    return register(req, cb);
  };

  pulumi.runtime.setAllConfig(options.config, options.secretKeys);

  const programExports = options.load(path.join(EXAMPLES_DIR, options.example, "index.ts"));

  let exportsResolved: Record<string, unknown> = {};
  const secretExports: string[] = [];
  let resolveError: unknown;
  try {
    const plain = Object.fromEntries(Object.entries(programExports).filter(([k]) => k !== "__esModule"));
    exportsResolved = (await resolveOutputs(plain)) as Record<string, unknown>;
    for (const [k, v] of Object.entries(plain))
      if (await pulumi.isSecret(pulumi.output(v))) secretExports.push(k);
  } catch (err) {
    resolveError = err;
  }
  await settings.waitForRPCs();
  if (errors.length > 0) throw errors[0];
  if (resolveError) throw resolveError;
  return { registrations, exports: exportsResolved, secretExports };
}

/** The engine strips secrets before calling a provider that does not accept them; it remembers which were. */
function stripSecrets(inputs: Record<string, unknown>): {
  inputs: Record<string, unknown>;
  secretInputs: string[];
} {
  const out: Record<string, unknown> = {};
  const secretInputs: string[] = [];
  for (const [k, v] of Object.entries(inputs)) {
    const r = unwrapSecrets(v);
    out[k] = r.value;
    if (r.hadSecret) secretInputs.push(k);
  }
  return { inputs: out, secretInputs };
}

/** Registrations of one resource kind (`Monitor`, `Notifier`, …). */
export function ofKind(run: ProgramRun, kind: string): Registration[] {
  return run.registrations.filter((r) => r.type === `pulumi-nodejs:dynamic/observability:${kind}`);
}
