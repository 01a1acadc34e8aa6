/**
 * The engine's side of `pulumi up` for the example tests: each registration goes through the real
 * dynamic-provider host over gRPC (test/helpers/host.ts), check then create on the first pass,
 * check then diff against the first pass's state on the second.
 */
import { formatFailures } from "../../provider/schemas";
import { urnOf, type HostCheck, type ProviderHost } from "../helpers/host";
import type { ProgramRun, RegisterRequest, RegisterResult } from "./program";

/** The host calls these steps use (plain JS values; the harness does the protobuf). */
export type HostCalls = Pick<ProviderHost, "check" | "create" | "diff">;

/** One diff the second pass asked for. */
export interface DiffRecord {
  type: string;
  name: string;
  /** True when the host reported a change (DIFF_SOME) or could not tell (DIFF_UNKNOWN). */
  changed: boolean;
  replaces: string[];
}

/** The URN the engine would send: the kind is the last segment of `pulumi-nodejs:dynamic/observability:<Kind>`. */
function urn(req: RegisterRequest, project: string): string {
  return urnOf(req.type.slice(req.type.lastIndexOf(":") + 1), req.name, project);
}

function checked(req: RegisterRequest, result: HostCheck): Record<string, unknown> {
  if (result.failures.length > 0) {
    throw new Error(`check failed for ${req.type} "${req.name}": ${formatFailures(result.failures)}`);
  }
  return result.inputs ?? req.inputs;
}

/** What the engine stores per resource after create: the checked inputs as well as the state. */
export interface CreatedResult extends RegisterResult {
  /** The inputs Check returned; the next Check receives them as `olds`. */
  checkedInputs: Record<string, unknown>;
}

/** First pass: check (no olds), then create, exactly as `pulumi up` does for a new resource. */
export function createStep(
  host: HostCalls,
  project: string,
): (req: RegisterRequest) => Promise<CreatedResult> {
  return async (req) => {
    const inputs = checked(req, await host.check(urn(req, project), {}, req.inputs));
    const created = await host.create(urn(req, project), inputs);
    return { id: created.id, outputs: created.properties, checkedInputs: inputs };
  };
}

/**
 * Second pass over an unchanged program: check with the first pass's checked inputs as olds, then diff against
 * the first pass's state; each diff is recorded and the resource keeps its id and state.
 */
export function diffStep(
  host: HostCalls,
  project: string,
  previous: ProgramRun,
  diffs: DiffRecord[],
): (req: RegisterRequest) => Promise<RegisterResult> {
  return async (req) => {
    const before = previous.registrations.find((r) => r.type === req.type && r.name === req.name);
    if (!before) throw new Error(`${req.type} "${req.name}" was not registered by the first pass`);
    const oldInputs = (before as { checkedInputs?: Record<string, unknown> }).checkedInputs ?? before.inputs;
    const inputs = checked(req, await host.check(urn(req, project), oldInputs, req.inputs));
    const diff = await host.diff(urn(req, project), before.id, before.outputs, inputs);
    diffs.push({ type: req.type, name: req.name, changed: diff.changes !== "none", replaces: diff.replaces });
    return { id: before.id, outputs: before.outputs };
  };
}
