/**
 * The engine's side of `pulumi up` for the example tests: each registration goes through the real
 * dynamic-provider host over gRPC (D's harness in test/helpers/host.ts), check then create on the first pass,
 * check then diff against the first pass's state on the second.
 */
import { formatFailures } from "../../provider/schemas";
import type { ProgramRun, RegisterRequest, RegisterResult } from "./program";

/** The host calls these steps use, on plain JS values (the harness does the protobuf). */
export interface HostCalls {
  check(
    urn: string,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<{ inputs?: Record<string, unknown>; failures: { property: string; reason: string }[] }>;
  create(
    urn: string,
    inputs: Record<string, unknown>,
  ): Promise<{ id: string; properties: Record<string, unknown> }>;
  diff(
    urn: string,
    id: string,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<{ changes: number | string | boolean; replaces: string[]; diffs?: string[] }>;
}

/** One diff the second pass asked for. */
export interface DiffRecord {
  type: string;
  name: string;
  /** True when the host reported a change (DIFF_SOME) or could not tell (DIFF_UNKNOWN). */
  changed: boolean;
  replaces: string[];
  diffs: string[];
}

function urnOf(req: RegisterRequest): string {
  return `urn:pulumi:test::examples::${req.type}::${req.name}`;
}

function checked(
  req: RegisterRequest,
  result: Awaited<ReturnType<HostCalls["check"]>>,
): Record<string, unknown> {
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
export function createStep(host: HostCalls): (req: RegisterRequest) => Promise<CreatedResult> {
  return async (req) => {
    const urn = urnOf(req);
    const inputs = checked(req, await host.check(urn, {}, req.inputs));
    const created = await host.create(urn, inputs);
    return { id: created.id, outputs: created.properties, checkedInputs: inputs };
  };
}

/**
 * Second pass over an unchanged program: check with the first pass's checked inputs as olds, then diff against
 * the first pass's state; each diff is recorded and the resource keeps its id and state.
 */
export function diffStep(
  host: HostCalls,
  previous: ProgramRun,
  diffs: DiffRecord[],
): (req: RegisterRequest) => Promise<RegisterResult> {
  return async (req) => {
    const before = previous.registrations.find((r) => r.type === req.type && r.name === req.name);
    if (!before) throw new Error(`${req.type} "${req.name}" was not registered by the first pass`);
    const oldInputs = (before as { checkedInputs?: Record<string, unknown> }).checkedInputs ?? before.inputs;
    const urn = urnOf(req);
    const inputs = checked(req, await host.check(urn, oldInputs, req.inputs));
    const diff = await host.diff(urn, before.id, before.outputs, inputs);
    const none = diff.changes === false || diff.changes === 1 || diff.changes === "DIFF_NONE";
    diffs.push({
      type: req.type,
      name: req.name,
      changed: !none,
      replaces: diff.replaces,
      diffs: diff.diffs ?? [],
    });
    return { id: before.id, outputs: before.outputs };
  };
}
