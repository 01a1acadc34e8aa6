/**
 * The engine's side of `pulumi up`, as far as the example tests need it: each registration of a real program goes
 * through the real dynamic-provider host over gRPC (test/helpers/host.ts) in the order the engine uses. New:
 * check, then create. Known: check (the old checked inputs as olds), then diff against the old state, then update
 * when the diff says so. Gone from the program: delete, dependents first.
 *
 * A test driver, not an engine: no refresh, no replacement, no parallelism, no plugins, and the state is a plain
 * object. The real engine runs the same examples in test/e2e/.
 */
import { formatFailures } from "../../provider/schemas";
import { urnOf, type HostCheck, type ProviderHost } from "../helpers/host";
import { runProgram, type ProgramRun, type RegisterRequest, type RunOptions } from "./program";

/** The host calls the driver makes (plain JS values; host.ts does the protobuf). */
export type HostCalls = Pick<ProviderHost, "check" | "diff" | "create" | "update" | "delete">;

/** What is known about one resource after a step: what the engine keeps in its state. */
export interface ResourceState {
  /** Full type token, e.g. `pulumi-nodejs:dynamic/observability:Monitor`. */
  type: string;
  /** The logical name given in the program. */
  name: string;
  id: string;
  /** The inputs Check returned; the next Check receives them as `olds`. */
  inputs: Record<string, unknown>;
  /** What the provider returned (Create, Update); the next Diff, Update and Delete receive them. */
  outputs: Record<string, unknown>;
  /** `type::name` of the resources this one depends on: they are deleted after it. */
  dependencies: string[];
}

/** The whole state of one stack. Holds what the provider returned, secrets included, in plaintext. */
export interface StackState {
  version: 1;
  project: string;
  resources: ResourceState[];
}

/** What a step did to a resource; `same` when Diff reported no change. */
export type Action = "create" | "update" | "same" | "delete";

/** One step, as it happened. */
export interface Step {
  action: Action;
  type: string;
  name: string;
  id: string;
  /** For `same` and `update`: what Diff answered. */
  diff?: { changes: "unknown" | "none" | "some"; replaces: string[] };
}

/** Options of the driver. */
export interface DriverOptions {
  host: HostCalls;
  /** The project name, as in Pulumi.yaml: part of every URN. */
  project: string;
  /** The state to start from; not modified (the new one is returned). */
  state?: StackState;
  /** Called after every step. */
  onStep?(step: Step): void;
}

/** What {@link up} needs beyond {@link DriverOptions}: how to run the program (`register` is the driver's). */
export interface UpOptions extends DriverOptions {
  program: Omit<RunOptions, "register" | "project">;
}

/** The outcome of {@link up}. */
export interface UpResult {
  run: ProgramRun;
  steps: Step[];
  state: StackState;
}

/** `type::name`: how a resource is known across runs. */
const keyOf = (r: { type: string; name: string }) => `${r.type}::${r.name}`;

/** The URN the engine would send: the kind is the last segment of `pulumi-nodejs:dynamic/observability:<Kind>`. */
function urn(r: { type: string; name: string }, project: string): string {
  return urnOf(r.type.slice(r.type.lastIndexOf(":") + 1), r.name, project);
}

function checked(req: RegisterRequest, result: HostCheck): Record<string, unknown> {
  if (result.failures.length > 0) {
    throw new Error(`check failed for ${req.type} "${req.name}": ${formatFailures(result.failures)}`);
  }
  return result.inputs ?? req.inputs;
}

/** Keeps the state, in step order, and tells `onStep` of every change. */
class Ledger {
  readonly steps: Step[] = [];
  private readonly byKey: Map<string, ResourceState>;
  private readonly options: DriverOptions;

  constructor(options: DriverOptions, resources: ResourceState[]) {
    this.options = options;
    this.byKey = new Map(resources.map((r) => [keyOf(r), r]));
  }

  get(key: string): ResourceState | undefined {
    return this.byKey.get(key);
  }

  get resources(): ResourceState[] {
    return [...this.byKey.values()];
  }

  record(step: Step, resource: ResourceState | undefined): void {
    if (resource) this.byKey.set(keyOf(step), resource);
    else this.byKey.delete(keyOf(step));
    this.steps.push(step);
    this.options.onStep?.(step);
  }

  state(): StackState {
    return { version: 1, project: this.options.project, resources: this.resources };
  }
}

/**
 * `pulumi up`, small: runs the program once, creating or updating each resource as it registers, then deletes
 * what the state holds and the program no longer declares. A resource whose diff asks for replacement stops
 * the run: replacement is the engine's business, and doing it half right would lose data.
 */
export async function up(options: UpOptions): Promise<UpResult> {
  const { host, project } = options;
  const ledger = new Ledger(options, options.state?.resources ?? []);
  const registered = new Set<string>();

  const register = async (req: RegisterRequest) => {
    const at = urn(req, project);
    const old = ledger.get(keyOf(req));
    registered.add(keyOf(req));
    const inputs = checked(req, await host.check(at, old?.inputs ?? {}, req.inputs));
    const base = { type: req.type, name: req.name, inputs, dependencies: req.dependencies };
    if (!old) {
      const created = await host.create(at, inputs);
      ledger.record(
        { action: "create", type: req.type, name: req.name, id: created.id },
        { ...base, id: created.id, outputs: created.properties },
      );
      return { id: created.id, outputs: created.properties };
    }
    const diff = await host.diff(at, old.id, old.outputs, inputs);
    if (diff.replaces.length > 0) {
      throw new Error(
        `${req.type} "${req.name}" would be replaced (${diff.replaces.join(", ")} changed); this driver ` +
          "does not replace resources: destroy first, or use the Pulumi CLI",
      );
    }
    // DIFF_UNKNOWN: the engine then compares the old and new inputs itself.
    const changed =
      diff.changes === "some" ||
      (diff.changes === "unknown" && JSON.stringify(old.inputs) !== JSON.stringify(inputs));
    const step = {
      type: req.type,
      name: req.name,
      id: old.id,
      diff: { changes: diff.changes, replaces: [] },
    };
    if (!changed) {
      ledger.record({ ...step, action: "same" }, { ...base, id: old.id, outputs: old.outputs });
      return { id: old.id, outputs: old.outputs };
    }
    const updated = await host.update(at, old.id, old.outputs, inputs);
    ledger.record({ ...step, action: "update" }, { ...base, id: old.id, outputs: updated.properties });
    return { id: old.id, outputs: updated.properties };
  };

  const run = await runProgram({ ...options.program, project, register });
  await deleteInOrder(options, ledger, (r) => !registered.has(keyOf(r)));
  return { run, steps: ledger.steps, state: ledger.state() };
}

/** Deletes the chosen resources, each only once nothing left in the state depends on it. */
async function deleteInOrder(
  options: DriverOptions,
  ledger: Ledger,
  chosen: (r: ResourceState) => boolean,
): Promise<void> {
  for (;;) {
    const left = ledger.resources;
    const needed = new Set(left.flatMap((r) => r.dependencies));
    // Latest first among the free ones: the reverse of the order they were created in.
    const next = left.filter((r) => chosen(r) && !needed.has(keyOf(r))).at(-1);
    if (!next) break;
    await options.host.delete(urn(next, options.project), next.id, next.outputs);
    ledger.record({ action: "delete", type: next.type, name: next.name, id: next.id }, undefined);
  }
  const stuck = ledger.resources.filter(chosen);
  if (stuck.length > 0) {
    throw new Error(
      `cannot delete ${stuck.map(keyOf).join(", ")}: resources the program still declares depend on them`,
    );
  }
}
