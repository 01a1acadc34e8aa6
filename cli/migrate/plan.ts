/**
 * What `observability migrate terraform` decides for each object of a Terraform state: taken into the import file
 * (`pulumi import --file`), or skipped with the reason; the Pulumi names of each one taken (names.ts); where
 * Terraform's record and the service differ; and the addresses the hand-over makes Terraform forget.
 *
 * The hand-over leaves every object the service has in exactly one tool's state. `terraform state rm <address>`
 * forgets every object recorded at the address (its current object and any deposed one), so an address is handed
 * over only where each object it records is taken, is the same object as one taken, or is no longer on the
 * service; and every address that records a taken object is handed over (a second resource holding the same
 * object, a tainted record of it), or Terraform would go on managing what Pulumi manages.
 */
import { ForbiddenError, NotFoundError } from "../../provider/client/errors";
import { SECRET_SIG, SIG_KEY } from "../../provider/native/values";
import type { ObservabilityClient } from "../../provider/client";
import {
  READS_ONE_BY_ONE,
  canonical,
  inputChanges,
  normalize,
  type Descriptor,
} from "../../provider/resources/descriptor";
import { DECLARATIONS, SECRET_KEYS, type DeclaredKindName } from "../../provider/resources/kinds";
import { sharedListing } from "../../provider/resources/listings";
import { valueLost } from "../../provider/resources/recovery";
import { isPlainObject, sameJson, type Props } from "../../provider/resources/values";
import {
  fieldMappings,
  TERRAFORM_PROVIDER,
  TERRAFORM_PROVIDER_SOURCE,
  TERRAFORM_RESOURCES,
  type TerraformResource,
} from "../../provider/terraform";
import { CommandError } from "../exit";
import { nameAll, type Names } from "./names";
import { addressOf, parseProviderAddress, stringsAt, type StateInstance } from "./tfstate";

/**
 * terraform-provider-axiom's source without its registry host (`axiomhq/axiom`): a state written by OpenTofu
 * names `registry.opentofu.org/axiomhq/axiom` for the same provider.
 */
const PROVIDER_ADDRESS = TERRAFORM_PROVIDER_SOURCE.split("/").slice(-2).join("/");

/** A resource of the import file (pulumi/pulumi pkg/cmd/pulumi/operations/import.go, `importSpec`). */
export interface ImportSpec {
  type: string;
  name: string;
  logicalName: string;
  id: string;
  /** Supplied with `outputs` for a kind whose value the service never returns again (an API token's). */
  inputs?: Props;
  /** The whole output state: the engine then takes it instead of calling the provider's Read. */
  outputs?: Props;
}

/** The file `pulumi import --file` reads. */
export interface ImportFile {
  resources: ImportSpec[];
}

/** One field where Terraform's record and the service differ. */
export interface Drift {
  path: string;
  /** Both values, as JSON; absent for a secret field. */
  terraform?: string;
  service?: string;
}

/** An object taken into the import file. */
export interface Taken {
  address: string;
  instance: StateInstance;
  resource: TerraformResource;
  kind: DeclaredKindName;
  id: string;
  name: string;
  logicalName: string;
  renamed?: Names["renamed"];
  drift: Drift[];
  /** Secret outputs carried from Terraform's state (an API token's value), by output key. */
  carried: string[];
  /** Secret outputs the service does not return and Terraform's state did not hold either. */
  lost: string[];
  /** Why the drift found may be off: the instance was recorded under another schema version than v1.6.1 writes. */
  schemaNote?: string;
  spec: ImportSpec;
}

/** An object of the state that is not taken, and why. */
export interface Skipped {
  address: string;
  reason: string;
}

/** A managed object of this provider whose id and inputs the state records, before the service is asked. */
interface Candidate {
  address: string;
  instance: StateInstance;
  resource: TerraformResource;
  kind: DeclaredKindName;
  id: string;
  /** The attributes as the kind's inputs. */
  inputs: Props;
  /** The module that declares the provider configuration it was made through, when not the root module. */
  providerModule?: string;
}

/** A managed object of the selected provider configuration, current, tainted or deposed. */
interface Recorded {
  address: string;
  instance: StateInstance;
  /** Its kind, id and inputs, where the state's record can be read. */
  candidate?: Candidate;
}

/** What to take from the state: the unaliased provider configuration, or the one with this alias. */
export interface Selection {
  alias?: string;
}

/** Every secret string of the state: at the kind's secret paths and wherever Terraform marks one sensitive. */
export function secretsOfState(instances: readonly StateInstance[]): string[] {
  const out = new Set<string>();
  for (const i of instances) {
    const paths = [...i.sensitivePaths, ...(TERRAFORM_RESOURCES.get(i.type)?.secretPaths ?? [])];
    for (const p of paths) for (const s of stringsAt(i.attributes, p)) out.add(s);
  }
  return [...out];
}

/** The data source's lookup function, for the reason a data source is skipped. */
function lookupOf(tfType: string): string | undefined {
  for (const r of TERRAFORM_RESOURCES.values())
    if (r.dataSource.tfType === tfType) return r.dataSource.functionToken;
  return undefined;
}

/** The provider configuration an instance was made through, as the report names it. */
function configurationOf(p: { alias?: string; module?: string }): string {
  const name = p.alias ? `${TERRAFORM_PROVIDER}.${p.alias}` : TERRAFORM_PROVIDER;
  if (p.module) return `the provider configuration ${name} that ${p.module} declares`;
  return p.alias ? `the provider configuration ${name}` : "the default provider configuration";
}

/**
 * Splits the state's objects, before any request: `candidates`, the current objects that may be taken;
 * `records`, every managed object of the selected provider configuration (current, tainted or deposed), which the
 * hand-over must account for since `terraform state rm` forgets every object at an address; and what is skipped
 * for what the state alone says.
 */
export function classify(
  instances: readonly StateInstance[],
  selection: Selection = {},
): { candidates: Candidate[]; records: Recorded[]; skipped: Skipped[] } {
  const candidates: Candidate[] = [];
  const records: Recorded[] = [];
  const skipped: Skipped[] = [];
  for (const instance of instances) {
    const address = addressOf(instance);
    const skip = (reason: string) => skipped.push({ address: labelOf(instance), reason });
    const provider = parseProviderAddress(instance.provider);
    const ours =
      provider !== undefined && provider.source.split("/").slice(-2).join("/") === PROVIDER_ADDRESS;
    if (instance.mode === "data") {
      const lookup = ours ? lookupOf(instance.type) : undefined;
      skip(
        `a data source: Terraform reads it and manages nothing${lookup ? `; in Pulumi, read it with the function ${lookup}` : ""}`,
      );
      continue;
    }
    if (!ours) {
      skip(
        provider?.source === `-/${TERRAFORM_PROVIDER}`
          ? "recorded with the legacy provider address of Terraform 0.12; run `terraform state replace-provider -- -/axiom axiomhq/axiom` first"
          : `another provider's resource (${provider?.source ?? instance.provider}, not ${PROVIDER_ADDRESS})`,
      );
      continue;
    }
    if ((provider.alias ?? undefined) !== selection.alias) {
      skip(
        provider.alias
          ? `made through ${configurationOf(provider)}, whose objects may be in another organization: run again with its credentials and --alias ${provider.alias}`
          : `made through ${configurationOf(provider)}, not ${TERRAFORM_PROVIDER}.${selection.alias}: run again without --alias, with its credentials`,
      );
      continue;
    }
    const resource = TERRAFORM_RESOURCES.get(instance.type);
    if (!resource || !DECLARATIONS.has(resource.kind as DeclaredKindName)) {
      skip(`no kind of this package manages ${instance.type}`);
      continue;
    }
    const record: Recorded = { address, instance };
    records.push(record);
    let id: string;
    try {
      id = resource.importId(instance.attributes);
    } catch (e) {
      if (instance.status === "current")
        skip(`its id cannot be read from the state: ${(e as Error).message}`);
      continue;
    }
    let inputs: Props;
    try {
      inputs = resource.inputs(instance.attributes);
    } catch (e) {
      if (instance.status === "current")
        skip(`its attributes cannot be read as ${resource.kind}'s inputs: ${(e as Error).message}`);
      continue;
    }
    const candidate: Candidate = {
      address,
      instance,
      resource,
      kind: resource.kind as DeclaredKindName,
      id,
      inputs,
      ...(provider.module ? { providerModule: provider.module } : {}),
    };
    record.candidate = candidate;
    if (instance.status === "current") candidates.push(candidate);
  }
  return { candidates, records, skipped };
}

/** How the report names an object of the state: its address, and a deposed object's key. */
const labelOf = (i: StateInstance) =>
  i.deposed ? `${addressOf(i)} (deposed object ${i.deposed})` : addressOf(i);

/** A shell word: single-quoted, a quote inside closed, escaped and reopened. */
const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command that makes Terraform forget the object at `address` (the object stays on the service). */
export const stateRm = (address: string) => `terraform state rm ${quoted(address)}`;

/** The kind's declaration as data. */
function descriptor(kind: DeclaredKindName): Descriptor<{ id: string }> {
  return DECLARATIONS.get(kind)!.rules as Descriptor<{ id: string }>;
}

/**
 * The objects of each candidate's family, by id: one listing per family (per listing parameter, such as a
 * virtual field's dataset), shared by every candidate of it, as a refresh shares one (listings.ts); a kind that
 * reads one by one sends its GET per object.
 */
export async function findOnService(
  client: ObservabilityClient,
  candidates: readonly Candidate[],
): Promise<Map<Candidate, { id: string } | undefined>> {
  const found = new Map<Candidate, { id: string } | undefined>();
  await Promise.all(
    candidates.map(async (c) => {
      const d = descriptor(c.kind);
      const props = c.inputs;
      const rule = d.readAll;
      const key = rule === READS_ONE_BY_ONE ? undefined : rule.listedBy(props);
      if (rule === READS_ONE_BY_ONE || key === undefined) {
        try {
          found.set(c, await d.family(client, {}).get(c.id));
        } catch (e) {
          if (!(e instanceof NotFoundError)) throw e;
          found.set(c, undefined);
        }
        return;
      }
      const byId = await sharedListing(client, {
        kind: c.kind,
        key: `migrate\u0000${key}`,
        list: async () => {
          try {
            return new Map((await rule.list(client, props)).map((o) => [o.id, o]));
          } catch (e) {
            // A listing under a parent that is gone (a virtual field's dataset) holds nothing; a family's whole
            // listing is never a 404, so one is an error like any other.
            if (e instanceof NotFoundError && key !== "") return new Map<string, { id: string }>();
            if (e instanceof ForbiddenError)
              throw new CommandError(
                `the service refused the token (${e.status}${e.serviceMessage ? `: ${e.serviceMessage}` : ""}) when listing the ${c.kind} objects, ` +
                  "which the check needs: check the token (the stack's observability:token, OBSERVABILITY_TOKEN or --token-file), and that it may read them",
              );
            throw e;
          }
        },
        fresh: () => true,
        afterOwnWrites: false,
      });
      const listed = byId?.get(rule.listedId?.(c.id, {}) ?? c.id);
      found.set(c, listed && rule.asRead ? rule.asRead(listed, c.id, {}) : listed);
    }),
  );
  return found;
}

/** A value as a short line of JSON. */
function shown(v: unknown): string {
  if (v === undefined) return "absent";
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The paths under which `a` and `b` differ: objects are walked, lists and scalars compared whole. */
function differingPaths(a: unknown, b: unknown, path: string, out: string[]): void {
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
      differingPaths(a[k], b[k], `${path}.${k}`, out);
    return;
  }
  if (!sameJson(a, b)) out.push(path);
}

const valueAt = (v: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Props)[k] : undefined), v);

/** Go's zero value of a scalar: what Go's encoding of an absent field reads as. */
const isGoZero = (v: unknown) => v === 0 || v === false || v === "";

/**
 * Where Terraform's record and the service's object differ, compared as the kind's diff compares: both through
 * the kind's normalization (its defaults, lists without order, times as instants). terraform-provider-axiom records
 * each scalar the service leaves out as Go's zero value (axiom/resource_monitor.go `flattenMonitor`:
 * `types.Float64Value(monitor.Threshold)` is 0 for a MatchEvent monitor, which has no threshold), so a zero in
 * Terraform's record where the normalized service object has no value at all is the same reading, not drift.
 */
export function driftOf(kind: DeclaredKindName, recorded: Props, serviceObject: { id: string }): Drift[] {
  const d = descriptor(kind);
  const service = normalize(d, d.toInputs(serviceObject));
  const normalized = canonical(d, service);
  const terraform: Props = {};
  for (const [key, value] of Object.entries(recorded))
    if (!(normalized[key] === undefined && isGoZero(value))) terraform[key] = value;
  const { diffs } = inputChanges(d, service, terraform);
  const a = canonical(d, terraform);
  const b = canonical(d, service);
  const secret = new Set([
    ...(SECRET_KEYS.get(kind)?.inputs ?? []),
    ...(SECRET_KEYS.get(kind)?.outputs ?? []),
  ]);
  const out: Drift[] = [];
  for (const key of diffs) {
    const paths: string[] = [];
    differingPaths(a[key], b[key], key, paths);
    if (paths.length === 0) paths.push(key);
    for (const path of paths) {
      out.push(
        secret.has(key)
          ? { path }
          : { path, terraform: shown(valueAt(a, path)), service: shown(valueAt(b, path)) },
      );
    }
  }
  return out;
}

/**
 * A secret value as the import file carries it: a serialized secret (the signature key and a secret's signature,
 * as on the wire) with its value as JSON in `plaintext`, which the CLI encrypts with the stack's secrets provider
 * (pulumi/pulumi pkg/resource/stack/deployment.go, `DeserializePropertyValue`: "exactly one of `ciphertext` or
 * `plaintext`").
 */
function secretValue(value: unknown): Props {
  return { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) };
}

/**
 * The import resource of an object: type, names and id; and for a kind whose secret value the service never
 * returns again (an API token's), the inputs and the whole output state, so the engine keeps the value Terraform's
 * state holds instead of reading the object without it (pulumi/pulumi pkg/resource/deploy/step.go,
 * `ImportStep.Apply`: supplied outputs are taken as they are, and the provider's Read is not called).
 */
function specOf(
  c: Candidate,
  names: { name: string; logicalName: string },
  serviceObject: { id: string },
): { spec: ImportSpec; carried: string[]; lost: string[] } {
  const spec: ImportSpec = {
    type: c.resource.token,
    name: names.name,
    logicalName: names.logicalName,
    id: c.id,
  };
  if (!valueLost(c.kind)) return { spec, carried: [], lost: [] };
  const d = descriptor(c.kind);
  const outputs = d.toOutputs(serviceObject);
  delete outputs.id;
  const carried: string[] = [];
  const lost: string[] = [];
  const { fields } = fieldMappings(c.resource.tfType);
  for (const key of SECRET_KEYS.get(c.kind)?.outputs ?? []) {
    // Terraform's name for the output, from the mapping's own table; an output Terraform has no attribute for is lost.
    const tfPath = fields.find((f) => f.path === key)?.tfPath;
    const value = tfPath === undefined ? undefined : c.instance.attributes[tfPath];
    if (typeof value === "string" && value !== "") {
      outputs[key] = secretValue(value);
      carried.push(key);
    } else lost.push(key);
  }
  if (carried.length === 0) return { spec, carried, lost };
  return {
    spec: { ...spec, inputs: normalize(d, d.toInputs(serviceObject)), outputs },
    carried,
    lost,
  };
}

/** What the migration of a state does with its objects. */
export interface Plan {
  taken: Taken[];
  /** What stays with Terraform, and why. */
  skipped: Skipped[];
  /** Records the hand-over makes Terraform forget besides those of the objects taken, and why that is right. */
  alsoForgotten: Skipped[];
  /** The addresses of step 5's `terraform state rm`, in the state's order. */
  handover: string[];
  /** How many current objects were looked for on the service, and how many it did not have. */
  checked: number;
  missing: number;
}

/** The object a record holds, as a key: its kind and id. */
const objectKey = (c: Candidate) => `${c.kind}\u0000${c.id}`;

/** The migration of a state's objects: what is taken, with names, ids and drift, what is skipped, what is handed over. */
export async function planMigration(
  client: ObservabilityClient,
  instances: readonly StateInstance[],
  selection: Selection = {},
): Promise<Plan> {
  const { candidates, records, skipped } = classify(instances, selection);
  // Every record whose id is readable is looked for: a tainted or deposed object still on the service is one the
  // hand-over must not leave in neither tool.
  const found = await findOnService(
    client,
    records.flatMap((r) => (r.candidate ? [r.candidate] : [])),
  );
  const onService = (r: Recorded) => r.candidate === undefined || found.get(r.candidate) !== undefined;
  const byAddress = new Map<string, Recorded[]>();
  for (const r of records) byAddress.set(r.address, [...(byAddress.get(r.address) ?? []), r]);
  const recordsOf = (key: string) => records.filter((r) => r.candidate && objectKey(r.candidate) === key);

  // Each object the service has is taken by the first current record of it, in the state's order.
  const takers = new Map<string, Candidate>();
  const missing: Candidate[] = [];
  for (const c of candidates) {
    if (!found.get(c)) missing.push(c);
    else if (!takers.has(objectKey(c))) takers.set(objectKey(c), c);
  }
  // An object is taken only if every address recording it can be handed over: each other object recorded there is
  // taken too, or gone from the service. Dropping one can block another, so this runs until nothing changes.
  const blocked = new Map<string, string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const [key, taker] of takers) {
      const addresses = [...new Set(recordsOf(key).map((r) => r.address))];
      const blocker = addresses
        .flatMap((a) => byAddress.get(a)!)
        .find(
          (r) =>
            onService(r) &&
            !(r.candidate && (objectKey(r.candidate) === key || takers.has(objectKey(r.candidate)))),
        );
      if (!blocker) continue;
      blocked.set(key, blockedReason(taker, blocker));
      takers.delete(key);
      changed = true;
    }
  }
  const handover = new Set<string>();
  for (const r of records) if (r.candidate && takers.has(objectKey(r.candidate))) handover.add(r.address);

  const alsoForgotten: Skipped[] = [];
  for (const r of records) {
    const c = r.candidate;
    const label = labelOf(r.instance);
    const key = c ? objectKey(c) : undefined;
    const taker = key !== undefined ? takers.get(key) : undefined;
    if (taker === c && c !== undefined) continue;
    const what = c ? `${c.kind} ${c.id}` : "";
    if (taker && r.instance.status === "current") {
      alsoForgotten.push({
        address: label,
        reason: `the same object (${what}) as ${taker.address}, which is taken: Pulumi manages it from step 5, so Terraform forgets this record of it too`,
      });
    } else if (taker && r.instance.status === "tainted") {
      alsoForgotten.push({
        address: label,
        reason: `tainted, and the same object (${what}) as ${taker.address}, which is taken: Terraform forgets this record too, or its next apply would replace the object Pulumi manages`,
      });
    } else if (taker) {
      alsoForgotten.push({
        address: label,
        reason: `a deposed record of the same object (${what}) as ${taker.address}, which is taken: Terraform forgets it with its address`,
      });
    } else if (handover.has(r.address)) {
      // Only an object the service no longer has can share a handed-over address with what is not taken.
      alsoForgotten.push({
        address: label,
        reason: `${r.instance.status === "deposed" ? "a deposed object" : "an object"} the service no longer has${c ? ` (${what})` : ""}: \`${stateRm(r.address)}\` forgets its record with the rest of the address`,
      });
    } else if (key !== undefined && blocked.has(key) && r.instance.status === "current") {
      skipped.push({ address: label, reason: blocked.get(key)! });
    } else if (r.instance.status === "tainted") {
      skipped.push({
        address: label,
        reason:
          "tainted: Terraform would replace it at its next apply; settle it in Terraform first (`terraform apply`, or `terraform untaint` if it is sound)",
      });
    } else if (r.instance.status === "deposed") {
      skipped.push({
        address: label,
        reason:
          "a deposed object, left by an interrupted replacement; Terraform deletes it at its next apply: settle it there first",
      });
    } else if (c && !found.get(c)) {
      skipped.push({
        address: label,
        reason: c.providerModule
          ? `the service these credentials reach has no ${c.kind} ${c.id}; it was made through the provider configuration ` +
            `that ${c.providerModule} declares, which may point at another organization: check it there before \`${stateRm(c.address)}\``
          : `the service no longer has ${c.kind} ${c.id}: nothing to take; Terraform forgets it at its next refresh, or \`${stateRm(c.address)}\``,
      });
    }
  }
  // Skipped ones in the state's order.
  const order = new Map(instances.map((i, k) => [labelOf(i), k]));
  skipped.sort((a, b) => (order.get(a.address) ?? 0) - (order.get(b.address) ?? 0));

  // Names over every object that could be taken, so that what is skipped renames nothing.
  const nameable = records.filter((r) => r.instance.status !== "deposed");
  const names = new Map(nameAll(nameable.map((r) => r.instance)).map((n, k) => [nameable[k].instance, n]));
  const taken = candidates
    .filter((c) => takers.get(objectKey(c)) === c)
    .map((c): Taken => {
      const obj = found.get(c)!;
      const named = names.get(c.instance)!;
      const { spec, carried, lost } = specOf(c, named, obj);
      const written = c.resource.schemaVersion;
      const schemaNote =
        c.instance.schemaVersion === written
          ? undefined
          : `recorded under schema version ${c.instance.schemaVersion}, where terraform-provider-axiom v1.6.1 writes ${written}: ` +
            "its attributes may be laid out otherwise, so drift may be misreported (the import reads the service, and is not affected); " +
            "`terraform apply -refresh-only` with that provider rewrites it";
      return {
        ...c,
        ...named,
        ...(schemaNote ? { schemaNote } : {}),
        drift: driftOf(c.kind, c.inputs, obj),
        carried,
        lost,
        spec,
      };
    });
  return {
    taken,
    skipped,
    alsoForgotten,
    handover: [...handover],
    checked: candidates.length,
    missing: missing.length,
  };
}

/** Why an object is not taken: an address recording it also records another object that would be left in neither tool. */
function blockedReason(taker: Candidate, blocker: Recorded): string {
  const what = blocker.candidate
    ? `${blocker.candidate.kind} ${blocker.candidate.id}, which the service still has`
    : "whose id cannot be read from the state";
  const other =
    blocker.instance.status === "deposed"
      ? `the deposed object ${blocker.instance.deposed} (${what})`
      : `${blocker.instance.status === "tainted" ? "a tainted object" : "an object"} (${what})`;
  const where =
    blocker.address === taker.address
      ? "its address also records"
      : `${blocker.address}, which records the same object, also records`;
  const settle =
    blocker.instance.status === "deposed"
      ? `\`terraform apply -target=${quoted(blocker.address)}\` destroys a deposed object`
      : "`terraform apply`, or `terraform untaint` if it is sound";
  return (
    `not taken: ${where} ${other}, and \`terraform state rm\` forgets every object of an address, which would leave that one in neither tool. ` +
    `Settle it in Terraform first (${settle}), then pull the state and run this again`
  );
}
