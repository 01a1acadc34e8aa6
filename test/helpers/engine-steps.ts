/**
 * Small reproductions of what the Pulumi engine does around a provider call, where that matters to the result:
 * stripping and re-marking secrets, the Read of a refresh or a `Resource.get`, and the order of a forced
 * replacement's steps. Each cites the pulumi/pulumi source it follows. Values are plain JS, with secrets in
 * the wire form `{[SECRET_SIG]: SECRET_VALUE_SIG, value}`; calls go through the real host (./host.ts).
 */
import type { ProviderHost } from "./host";
import { SECRET_SIG, SECRET_VALUE_SIG, unwrapSecret } from "./provider-text";

type Props = Record<string, unknown>;

/** A value marked secret, as the engine keeps it in state. */
export function secret(value: unknown): Props {
  return { [SECRET_SIG]: SECRET_VALUE_SIG, value };
}

/** Whether `v` is marked secret itself. */
export function isSecret(v: unknown): boolean {
  return unwrapSecret(v).secret;
}

function isObject(v: unknown): v is Props {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isSecret(v);
}

/** `PropertyValue.ContainsSecrets`: the value, or anything inside it, is marked secret. */
export function containsSecrets(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecrets);
  if (isObject(v)) return Object.values(v).some(containsSecrets);
  return false;
}

/**
 * The value without secret markers. The dynamic-provider host answers Configure with `acceptSecrets=false`, so
 * the engine marshals every call's properties without them (pkg/resource/plugin/provider_plugin.go,
 * `MarshalProperties` with `KeepSecrets: p.acceptSecrets`).
 */
export function stripSecrets<T>(v: T): T {
  if (isSecret(v)) return stripSecrets(unwrapSecret(v).value) as T;
  if (Array.isArray(v)) return v.map(stripSecrets) as T;
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, stripSecrets(x)])) as T;
  return v;
}

/**
 * pkg/resource/plugin/provider_plugin.go, `annotateSecrets(outs, ins)`: for each key of `ins` also in `outs`,
 * recurse when both are objects; otherwise mark the returned value secret when the old one contained a secret.
 * A returned key the old value did not have stays plaintext.
 */
export function annotateSecrets(outs: Props, ins: Props): Props {
  const out: Props = { ...outs };
  for (const [key, inValue] of Object.entries(ins)) {
    if (!(key in out)) continue;
    const outValue = out[key];
    if (isObject(outValue) && isObject(inValue)) out[key] = annotateSecrets(outValue, inValue);
    else if (!isSecret(outValue) && containsSecrets(inValue)) out[key] = secret(outValue);
  }
  return out;
}

/** What the engine keeps per resource. */
export interface EngineState {
  id: string;
  inputs: Props;
  outputs: Props;
}

/**
 * `pulumi up` of a new resource: Check and Create with secrets stripped; the state's inputs are Check's answer
 * re-marked against the registered inputs, its outputs Create's answer re-marked the same way
 * (provider_plugin.go, `provider.Check` and `provider.Create`, both via `annotateSecrets`).
 */
export async function up(host: ProviderHost, urn: string, registered: Props): Promise<EngineState> {
  const checked = await host.check(urn, {}, stripSecrets(registered));
  expect(checked.failures).toEqual([]);
  const made = await host.create(urn, checked.inputs);
  return {
    id: made.id,
    inputs: annotateSecrets(checked.inputs, registered),
    outputs: annotateSecrets(made.properties, registered),
  };
}

/** A later `pulumi up` with `news` declared: Check against the state's inputs, then Diff against its outputs. */
export async function plan(host: ProviderHost, urn: string, state: EngineState, news: Props) {
  const checked = await host.check(urn, state.inputs, stripSecrets(news));
  expect(checked.failures).toEqual([]);
  return { inputs: checked.inputs, diff: await host.diff(urn, state.id, state.outputs, checked.inputs) };
}

/**
 * `pulumi refresh` of one resource: pkg/resource/deploy/step.go, `RefreshStep.Apply`, calls the provider's
 * Read with the state's inputs and outputs (secrets stripped); `provider.Read` in provider_plugin.go re-marks
 * the returned inputs against the old inputs and the outputs against the old outputs (`annotateSecrets`), and
 * the returned inputs replace the state's. An empty id means the object is gone.
 */
export async function refresh(host: ProviderHost, urn: string, state: EngineState): Promise<EngineState> {
  const read = await host.read(urn, state.id, stripSecrets(state.outputs), stripSecrets(state.inputs));
  return {
    id: read.id,
    inputs: read.inputs ? annotateSecrets(read.inputs, state.inputs) : state.inputs,
    outputs: annotateSecrets(read.properties, state.outputs),
  };
}

/**
 * `Resource.get(name, id)`: pkg/resource/deploy/step.go, `ReadStep.Apply`, calls Read with the id, no
 * properties, and the get's registered inputs, which hold only `__provider`.
 */
export function getRead(host: ProviderHost, urn: string, id: string, getInputs: Props) {
  return host.read(urn, id, {}, stripSecrets(getInputs));
}

/**
 * A forced replacement (`pulumi up --replace`, `replacementTrigger`, `replaceWith`, `deletedWith`): the provider's
 * diff is not asked. pkg/resource/deploy/step_generator.go, `continueStepsFromDiff`: the resource option
 * `deleteBeforeReplace` decides the order; with it, the old resource is deleted first
 * (`NewDeleteReplacementStep`), otherwise the replacement is created first (`NewCreateReplacementStep`) and
 * the old one deleted after all creates and updates. The new inputs go through Check first.
 */
export async function forceReplace(
  host: ProviderHost,
  urn: string,
  old: EngineState,
  news: Props,
  deleteBeforeReplace: boolean,
): Promise<EngineState> {
  const checked = await host.check(urn, stripSecrets(old.inputs), stripSecrets(news));
  if (checked.failures.length > 0) throw new Error(`check failed: ${JSON.stringify(checked.failures)}`);
  const deleteOld = () => host.delete(urn, old.id, stripSecrets(old.outputs), stripSecrets(old.inputs));
  if (deleteBeforeReplace) await deleteOld();
  const made = await host.create(urn, checked.inputs);
  if (!deleteBeforeReplace) await deleteOld();
  return { id: made.id, inputs: checked.inputs, outputs: made.properties };
}
