/**
 * What `observability migrate terraform` decides for each object of a Terraform state: taken into the import file
 * (`pulumi import --file`), or skipped with the reason; the Pulumi name of each one taken; and where Terraform's
 * record and the service differ.
 *
 * Names follow Pulumi's own converter (pulumi/pulumi-converter-terraform pkg/convert/tf_state.go, `TranslateState`):
 * the Terraform name, `-<index>` for count and `-<key>` for for_each, its special characters made `_`; the
 * converter drops the module path, which clashes when two modules hold the same name (pulumi/pulumi#17386), so here
 * the module path is put in front where, and only where, it tells two apart. The unreplaced form is kept as
 * `logicalName`, the name in the resource's URN, so a for_each key reads as it does in Terraform.
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
  /**
   * Why the name is not the converter's: `module`, its module path put in front to tell it from another's;
   * `numbered`, a number added where even that left two alike.
   */
  renamed?: "module" | "numbered";
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

/** A managed instance of this provider that is current and has an id, before the service is asked. */
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

/** Splits the state's objects into candidates and those skipped before any request. */
export function classify(
  instances: readonly StateInstance[],
  selection: Selection = {},
): { candidates: Candidate[]; skipped: Skipped[] } {
  const candidates: Candidate[] = [];
  const skipped: Skipped[] = [];
  const seen = new Map<string, string>();
  for (const instance of instances) {
    const address = addressOf(instance);
    const label = instance.deposed ? `${address} (deposed object ${instance.deposed})` : address;
    const skip = (reason: string) => skipped.push({ address: label, reason });
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
          ? `made through the provider configuration ${TERRAFORM_PROVIDER}.${provider.alias}, whose objects may be in another organization: run again with its credentials and --alias ${provider.alias}`
          : `made through the default provider configuration, not ${TERRAFORM_PROVIDER}.${selection.alias}: run again without --alias, with its credentials`,
      );
      continue;
    }
    const resource = TERRAFORM_RESOURCES.get(instance.type);
    if (!resource || !DECLARATIONS.has(resource.kind as DeclaredKindName)) {
      skip(`no kind of this package manages ${instance.type}`);
      continue;
    }
    if (instance.status === "tainted") {
      skip(
        "tainted: Terraform would replace it at its next apply; settle it in Terraform first (`terraform apply`, or `terraform untaint` if it is sound)",
      );
      continue;
    }
    if (instance.status === "deposed") {
      skip(
        "a deposed object, left by an interrupted replacement; Terraform deletes it at its next apply: settle it there first",
      );
      continue;
    }
    let id: string;
    try {
      id = resource.importId(instance.attributes);
    } catch (e) {
      skip(`its id cannot be read from the state: ${(e as Error).message}`);
      continue;
    }
    if (typeof id !== "string" || id === "") {
      skip("the state records no id for it");
      continue;
    }
    let inputs: Props;
    try {
      inputs = resource.inputs(instance.attributes);
    } catch (e) {
      skip(`its attributes cannot be read as ${resource.kind}'s inputs: ${(e as Error).message}`);
      continue;
    }
    const kind = resource.kind as DeclaredKindName;
    const twin = seen.get(`${kind}\u0000${id}`);
    if (twin) {
      skip(
        `the same object (${kind} ${id}) as ${twin}, which is taken; a second Pulumi resource would fight it`,
      );
      continue;
    }
    seen.set(`${kind}\u0000${id}`, address);
    candidates.push({
      address,
      instance,
      resource,
      kind,
      id,
      inputs,
      ...(provider.module ? { providerModule: provider.module } : {}),
    });
  }
  return { candidates, skipped };
}

/** A shell word: single-quoted, a quote inside closed, escaped and reopened. */
const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command that makes Terraform forget the object at `address` (the object stays on the service). */
export const stateRm = (address: string) => `terraform state rm ${quoted(address)}`;

/** Pulumi's converter's special characters, each made `_` (tf_state.go, `specialRunes`). */
const SPECIAL = /[ \-./\\$@#%^&*()"'<>|]/g;

/** The module path as a name's prefix: `module.team["a"].module.x` is `team-a-x`. */
function modulePrefix(module: string): string {
  return module
    .split(/\.?module\./)
    .filter((p) => p !== "")
    .map((p) =>
      p.replace(
        /\[(?:"((?:[^"\\]|\\.)*)"|(\d+))\]/g,
        (_m, s: string | undefined, n: string | undefined) =>
          `-${s !== undefined ? JSON.parse(`"${s}"`) : n}`,
      ),
    )
    .join("-");
}

/** The names of the candidates, in their order: the converter's, with the module path where it avoids a clash. */
export function nameAll(
  items: readonly Pick<Candidate, "instance" | "resource">[],
): { name: string; logicalName: string; renamed?: "module" | "numbered" }[] {
  const plain = items.map(({ instance: i }) =>
    i.indexKey === undefined ? i.name : `${i.name}-${i.indexKey}`,
  );
  const key = (k: number, logical: string) =>
    `${items[k].resource.token}\u0000${logical.replace(SPECIAL, "_")}`;
  const counts = new Map<string, number>();
  plain.forEach((p, k) => counts.set(key(k, p), (counts.get(key(k, p)) ?? 0) + 1));
  const logical = plain.map((p, k) =>
    counts.get(key(k, p))! > 1 && items[k].instance.module
      ? `${modulePrefix(items[k].instance.module)}-${p}`
      : p,
  );
  // What still clashes (two objects of the root module whose names differ only in special characters, or two
  // module paths alike once made names) is numbered in the state's order.
  const taken = new Set<string>();
  return logical.map((l, k) => {
    let chosen = l;
    for (let n = 2; taken.has(key(k, chosen)); n++) chosen = `${l}-${n}`;
    taken.add(key(k, chosen));
    const renamed = chosen !== l ? "numbered" : l !== plain[k] ? "module" : undefined;
    return {
      name: chosen.replace(SPECIAL, "_"),
      // `::` separates a URN's parts, so a name holding it is taken as made an identifier.
      logicalName: chosen.includes("::") ? chosen.replace(SPECIAL, "_") : chosen,
      ...(renamed ? { renamed } : {}),
    };
  });
}

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

/** Where Terraform's record and the service's object differ, compared as the kind's diff compares. */
export function driftOf(kind: DeclaredKindName, terraform: Props, serviceObject: { id: string }): Drift[] {
  const d = descriptor(kind);
  const service = normalize(d, d.toInputs(serviceObject));
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

/** The migration of a state's objects: what is taken, with names, ids and drift, and what is skipped. */
export async function planMigration(
  client: ObservabilityClient,
  instances: readonly StateInstance[],
  selection: Selection = {},
): Promise<{ taken: Taken[]; skipped: Skipped[] }> {
  const { candidates, skipped } = classify(instances, selection);
  const found = await findOnService(client, candidates);
  const present = candidates.filter((c) => {
    if (found.get(c)) return true;
    skipped.push({
      address: c.address,
      reason: c.providerModule
        ? `the service these credentials reach has no ${c.kind} ${c.id}; it was made through the provider configuration ` +
          `declared in ${c.providerModule}, which may point at another organization: check it there before \`${stateRm(c.address)}\``
        : `the service no longer has ${c.kind} ${c.id}: nothing to take; Terraform forgets it at its next refresh, or \`${stateRm(c.address)}\``,
    });
    return false;
  });
  const names = nameAll(present);
  const taken = present.map((c, k): Taken => {
    const obj = found.get(c)!;
    const { spec, carried, lost } = specOf(c, names[k], obj);
    const written = c.resource.schemaVersion;
    const schemaNote =
      c.instance.schemaVersion === written
        ? undefined
        : `recorded under schema version ${c.instance.schemaVersion}, where terraform-provider-axiom v1.6.1 writes ${written}: ` +
          "its attributes may be laid out otherwise, so drift may be misreported (the import reads the service, and is not affected); " +
          "`terraform apply -refresh-only` with that provider rewrites it";
    return {
      ...c,
      ...names[k],
      ...(schemaNote ? { schemaNote } : {}),
      drift: driftOf(c.kind, c.inputs, obj),
      carried,
      lost,
      spec,
    };
  });
  return { taken, skipped };
}
