/**
 * Property values as the engine sends them to a provider that accepts secrets (pulumi/pulumi
 * sdk/go/common/resource/plugin/rpc.go, MarshalPropertyValue): a secret is an object carrying the signature key
 * `4dabf18193072939515e22adb298388d` with the secret value's signature and its `value`; an unknown is a fixed
 * string, which the lifecycle engine reads as is (resources/unknowns.ts).
 */

/** The signature key of a special value. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
/** The signature of a secret. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

type Props = Record<string, unknown>;

/** Whether `v` is a secret as the engine marshals one. */
export function isSecret(v: unknown): v is { value: unknown } {
  return typeof v === "object" && v !== null && (v as Props)[SIG_KEY] === SECRET_SIG;
}

/** `v` marked secret (once). */
export function secret(v: unknown): unknown {
  return isSecret(v) ? v : { [SIG_KEY]: SECRET_SIG, value: v };
}

/**
 * A property bag without its secret markers, and the top-level keys that held a secret anywhere inside: what
 * comes back from the provider under those keys is marked secret as a whole.
 */
export function unwrapProps(props: Props): { plain: Props; secretKeys: Set<string> } {
  const secretKeys = new Set<string>();
  const plain: Props = {};
  for (const [k, v] of Object.entries(props)) {
    const found = { secret: false };
    plain[k] = revealNoting(v, found);
    if (found.secret) secretKeys.add(k);
  }
  return { plain, secretKeys };
}

/** `v` with every secret replaced by its value, at any depth, in one walk (every request's properties go through
 * it); `found.secret` is set when a secret was met. */
function revealNoting(v: unknown, found: { secret: boolean }): unknown {
  if (isSecret(v)) {
    found.secret = true;
    return revealNoting(v.value, found);
  }
  if (Array.isArray(v)) return v.map((x) => revealNoting(x, found));
  if (typeof v === "object" && v !== null) {
    const out: Props = {};
    for (const [k, x] of Object.entries(v)) out[k] = revealNoting(x, found);
    return out;
  }
  return v;
}

/** `props` with each of `keys` that it holds marked secret, and no undefined values (a Struct holds none). */
export function wrapProps(props: Props, keys: Iterable<string>): Props {
  const out = JSON.parse(JSON.stringify(props)) as Props;
  for (const key of keys) if (out[key] !== undefined && out[key] !== null) out[key] = secret(out[key]);
  return out;
}
