/**
 * What `observability recover` decides about a stack's pending operations, from its exported deployment (the
 * `pulumi stack export --show-secrets` format, version 3: pulumi/pulumi sdk/go/common/apitype/core.go,
 * DeploymentV3 and OperationV2) and the service, and the edited deployment that carries the decisions out.
 *
 * When the engine writes a pending operation (pulumi/pulumi pkg/backend/snapshot.go, the snapshot manager): a
 * create's `creating` operation is saved before the provider is called (BeginMutation persists, then the step
 * runs), and replaced by the resource, with its id, in the save after the provider answered. So a `creating`
 * operation means the provider may have been called, and the object may exist; a create whose operation was
 * never saved was never sent. An `updating` or `deleting` operation names a resource the state still holds
 * with its id: the refresh that follows reads it and records what the service holds, and the engine drops those
 * operations at its next save (only `creating` ones are carried over).
 */
import { canonical } from "../../provider/resources/descriptor";
import { SECRET_KEYS, type DeclaredKindName } from "../../provider/resources/kinds";
import {
  createdCandidates,
  descriptorOf,
  inputsOf,
  kindOfResource,
  outputsOf,
  valueLost,
} from "../../provider/resources/recovery";
import { stableStringify, type Props } from "../../provider/resources/values";
import type { ObservabilityClient } from "../../provider/client";

/** A resource as a deployment holds it (the fields recover reads or writes; the rest are carried as they are). */
export interface StateResource {
  urn: string;
  type: string;
  custom?: boolean;
  id?: string;
  inputs?: Props;
  outputs?: Props;
  [field: string]: unknown;
}

/** A pending operation. */
export interface PendingOperation {
  resource: StateResource;
  type: "creating" | "updating" | "deleting" | "reading" | "importing" | string;
  /** Not in the state: a declared resource the restored state lacks, searched for as a create (recover.ts). */
  declaredOnly?: boolean;
}

/** The `deployment` of an exported stack. */
export interface Deployment {
  manifest?: unknown;
  resources?: StateResource[];
  pending_operations?: PendingOperation[];
  [field: string]: unknown;
}

/** `pulumi stack export` output. */
export interface ExportedStack {
  version: number;
  deployment: Deployment;
}

/** What `pulumi preview --json` shows for a secret value, with or without `--show-secrets`. */
export const HIDDEN_SECRET = "[secret]";

/** The marker of a secret value in a deployment (pulumi/pulumi sdk/go/common/resource/sig/sig.go, Secret). */
export const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_SIG_VALUE = "1b47061264138c4ac30d75fd1eb44270";

/** `value` with every secret shown by `--show-secrets` replaced by its plaintext value. */
export function unwrapSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (value === null || typeof value !== "object") return value;
  const obj = value as Record<string, unknown>;
  if (obj[SECRET_SIG] === SECRET_SIG_VALUE) {
    if (typeof obj.plaintext === "string") return unwrapSecrets(JSON.parse(obj.plaintext));
    throw new Error(
      "the deployment holds an encrypted secret: recover reads it with `pulumi stack export --show-secrets`",
    );
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, unwrapSecrets(v)]));
}

/** `value` as a secret in a deployment; `pulumi stack import` encrypts it with the stack's secrets provider. */
export function wrapSecret(value: unknown): Record<string, unknown> {
  return { [SECRET_SIG]: SECRET_SIG_VALUE, plaintext: JSON.stringify(value) };
}

/** What recover does with one pending operation. */
export type Decision =
  | { urn: string; kind: DeclaredKindName; action: "import"; id: string; evidence: string }
  | { urn: string; kind: DeclaredKindName; action: "clear"; evidence: string }
  | { urn: string; kind?: DeclaredKindName; action: "leave"; candidates: string[]; evidence: string }
  | { urn: string; kind?: DeclaredKindName; action: "refresh"; operation: string; evidence: string };

/** The decisions, one per pending operation, in the deployment's order. */
export interface Plan {
  decisions: Decision[];
  /** The objects found for the imported creates, by URN, as the service listed them. */
  objects: Map<string, { id: string }>;
}

/** Ids of this package's objects that a resource of the deployment holds, by kind. */
function heldIds(deployment: Deployment): Map<DeclaredKindName, Set<string>> {
  const held = new Map<DeclaredKindName, Set<string>>();
  for (const r of deployment.resources ?? []) {
    const kind = kindOfResource(r.type, r.inputs);
    if (!kind || !r.id) continue;
    const set = held.get(kind) ?? new Set<string>();
    set.add(r.id);
    held.set(kind, set);
  }
  return held;
}

/**
 * Decides every pending operation of `deployment`. Interrupted creates of this package's kinds are searched for
 * on the service; creates whose bodies are the same are searched together, since their objects are
 * interchangeable: no more objects than creates are taken, in order, and more objects than creates are named,
 * not chosen. Anything else is left to the refresh that follows (updates, deletes) or to the user (a create of
 * a resource this package does not serve).
 */
export async function planRecovery(
  deployment: Deployment,
  client: ObservabilityClient,
  options: { since?: Date } = {},
): Promise<Plan> {
  const held = heldIds(deployment);
  const ops = deployment.pending_operations ?? [];
  const decisions: (Decision | undefined)[] = ops.map(() => undefined);
  /** Interrupted creates of one kind and body: op indexes. */
  const groups = new Map<
    string,
    { kind: DeclaredKindName; declared: Props; unknownKeys: string[]; indexes: number[] }
  >();
  const objects = new Map<string, { id: string }>();

  ops.forEach((op, i) => {
    const urn = op.resource.urn;
    const inputs = unwrapSecrets(op.resource.inputs ?? {}) as Props;
    const kind = kindOfResource(op.resource.type, inputs);
    if (op.type !== "creating") {
      decisions[i] = {
        urn,
        kind,
        action: "refresh",
        operation: op.type,
        evidence: `interrupted while ${op.type}: the refresh reads it and records what the service holds`,
      };
      return;
    }
    if (!kind) {
      decisions[i] = {
        urn,
        action: "leave",
        candidates: [],
        evidence: `${op.resource.type} is not a resource of this package: its provider's objects are not searched`,
      };
      return;
    }
    if (typeof inputs.adopt === "string") {
      decisions[i] = {
        urn,
        kind,
        action: "import",
        id: inputs.adopt,
        evidence: "its `adopt` names the object it takes under management",
      };
      return;
    }
    const unknownKeys = Object.keys(inputs).filter((k) => inputs[k] === HIDDEN_SECRET);
    const key = `${kind}\u0000${stableStringify(canonical(descriptorOf(kind), inputs))}`;
    const group = groups.get(key) ?? { kind, declared: inputs, unknownKeys, indexes: [] };
    group.indexes.push(i);
    groups.set(key, group);
  });

  for (const { kind, declared, unknownKeys, indexes } of groups.values()) {
    const found = await createdCandidates(kind, client, declared, {
      held: held.get(kind) ?? new Set(),
      since: options.since,
      unknownKeys,
    });
    const urns = indexes.map((i) => ops[i].resource.urn);
    const same = indexes.length > 1 ? ` (${indexes.length} interrupted creates have this very body)` : "";
    if (found === "nothing to find") {
      for (const [n, i] of indexes.entries())
        decisions[i] = {
          urn: urns[n],
          kind,
          action: "clear",
          evidence: `a ${kind}'s create sends no POST, so nothing was left behind: the next \`pulumi up\` makes it`,
        };
      continue;
    }
    const ids = found.objects.map((o) => o.id);
    // Objects found that none of these creates can take: each is left to the user, naming them all.
    const untakable =
      valueLost(kind) && ids.length > 0
        ? `found ${ids.join(", ")}, which cannot be taken: a ${kind}'s secret value was only in the lost answer. ` +
          "Delete it, then clear this operation with `pulumi refresh --clear-pending-creates`"
        : ids.length > indexes.length
          ? `${ids.length} objects match its inputs${same} and no resource of the stack holds them: ` +
            "which is this create's cannot be told"
          : undefined;
    if (untakable !== undefined) {
      for (const [n, i] of indexes.entries())
        decisions[i] = { urn: urns[n], kind, action: "leave", candidates: ids, evidence: untakable };
      continue;
    }
    const how =
      (found.stamped
        ? "matches its inputs and was made after the interrupted operation began"
        : "matches its inputs and no resource of the stack holds it (no creation time to check: its inputs decide)") +
      (unknownKeys.length
        ? `; its secret ${unknownKeys.join(", ")}, hidden by the preview, not compared`
        : "");
    for (const [n, i] of indexes.entries()) {
      const obj = found.objects[n];
      if (obj) {
        decisions[i] = {
          urn: urns[n],
          kind,
          action: "import",
          id: obj.id,
          evidence: `${obj.id} ${how}${same}`,
        };
        objects.set(urns[n], obj);
        // Taken: no later group can take it (a different body cannot match it anyway).
        const set = held.get(kind) ?? new Set<string>();
        set.add(obj.id);
        held.set(kind, set);
      } else {
        decisions[i] = {
          urn: urns[n],
          kind,
          action: "clear",
          evidence: `no object of the service matches its inputs${same}: the create never landed`,
        };
      }
    }
  }
  return { decisions: decisions.map((d, i) => d ?? unreachable(ops[i].resource.urn)), objects };
}

function unreachable(urn: string): never {
  throw new Error(`no decision for ${urn}`);
}

/**
 * The deployment with the plan carried out: each imported create becomes a resource holding the found object's
 * id and the outputs its provider records (which the refresh then reads again), every cleared create is gone,
 * and the operations left for the user stay. `updating` and `deleting` operations stay too: the refresh settles
 * them. Secret values are kept as `--show-secrets` showed them, which `pulumi stack import` encrypts again.
 */
export function editedDeployment(exported: ExportedStack, plan: Plan): ExportedStack {
  const deployment = structuredClone(exported.deployment);
  const byUrn = new Map(plan.decisions.map((d) => [d.urn, d]));
  const kept: PendingOperation[] = [];
  const added: StateResource[] = [];
  for (const op of deployment.pending_operations ?? []) {
    const decision = op.type === "creating" ? byUrn.get(op.resource.urn) : undefined;
    if (decision?.action === "clear") continue;
    if (decision?.action !== "import") {
      // A declared resource that was never in the state stays out of it (named in the output when left).
      if (!op.declaredOnly) kept.push(op);
      continue;
    }
    const obj = plan.objects.get(decision.urn);
    const outputs: Props = obj ? outputsOf(decision.kind, obj) : {};
    const provider = op.resource.inputs?.__provider;
    if (provider !== undefined) outputs.__provider = provider;
    for (const key of secretOutputKeys(op.resource, decision.kind))
      if (outputs[key] !== undefined) outputs[key] = wrapSecret(outputs[key]);
    const inputs = { ...(op.resource.inputs ?? {}) };
    for (const key of Object.keys(inputs))
      if (inputs[key] === HIDDEN_SECRET && obj) inputs[key] = wrapSecret(inputsOf(decision.kind, obj)[key]);
    added.push({ ...op.resource, id: decision.id, inputs, outputs });
  }
  deployment.pending_operations = kept;
  deployment.resources = placeAfterDependencies(deployment.resources ?? [], added);
  return { ...exported, deployment };
}

/** The keys the native provider answers secret for a kind (its credentials); none for a dynamic resource. */
function secretOutputKeys(resource: StateResource, kind: DeclaredKindName): string[] {
  if (!resource.type.startsWith("observability:index:")) return [];
  // Whatever the recorded inputs held as secrets, and the kind's own secret keys.
  const secretInputs = Object.entries(resource.inputs ?? {})
    .filter(([, v]) => v !== null && typeof v === "object" && SECRET_SIG in (v as object))
    .map(([k]) => k);
  return [...new Set([...secretInputs, ...kindSecretOutputs(kind)])];
}

/** The kind's secret keys, as the plugin marks them in its answers (provider/native/tokens.ts secretKeysOf). */
function kindSecretOutputs(kind: DeclaredKindName): string[] {
  const keys = SECRET_KEYS.get(kind);
  return keys ? [...keys.outputs, ...keys.inputs] : [];
}

/**
 * `resources` with `added` inserted, each after the last resource it refers to (its parent, provider and
 * dependencies): a deployment must list a resource after everything it depends on (pulumi/pulumi
 * pkg/resource/deploy/snapshot.go, VerifyIntegrity).
 */
export function placeAfterDependencies(resources: StateResource[], added: StateResource[]): StateResource[] {
  const out = [...resources];
  for (const r of added) {
    const refs = new Set<string>();
    if (typeof r.parent === "string") refs.add(r.parent);
    if (typeof r.provider === "string") refs.add(r.provider.split("::").slice(0, -1).join("::"));
    for (const dep of (r.dependencies as string[] | undefined) ?? []) refs.add(dep);
    for (const deps of Object.values((r.propertyDependencies as Record<string, string[]>) ?? {}))
      for (const dep of deps) refs.add(dep);
    let at = 0;
    out.forEach((o, i) => {
      if (refs.has(o.urn)) at = i + 1;
    });
    out.splice(at, 0, r);
  }
  return out;
}
