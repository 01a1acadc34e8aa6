/** Shared in-process harness: the real provider implementation, configured against a per-file emulator. */
import { ObservabilityClient } from "../../provider/client";
import * as dynamic from "../../provider/resources/dynamic";
import { UNKNOWN, type Lifecycle, type Props } from "../../provider/resources/lifecycle";
import type { ResourceKind } from "../../provider/resources/registry";
import type { EmulatorOptions } from "../../emulator";
import { useEmulator } from "../helpers/emulator";

export { UNKNOWN };
export type { Props };

/** Points the provider module at `url` with `token`, exactly as the host's `configure` would. */
export async function configureProvider(url: string, token: string): Promise<void> {
  await dynamic.reset();
  const config: Record<string, string> = { "observability:url": url, "observability:token": token };
  await dynamic.configure({ config: { get: (k: string) => config[k] } });
}

/** Starts an emulator for the file and configures the provider module against it, as `configure` would. */
export function useProvider(options: EmulatorOptions = {}) {
  const em = useEmulator(options);
  let oob: ObservabilityClient | undefined;
  beforeAll(async () => {
    await configureProvider(em.current.url, em.current.token);
    oob = new ObservabilityClient({ url: em.current.url, token: em.current.token });
  });
  afterAll(async () => {
    await dynamic.reset();
    await oob?.close();
  });
  return {
    em,
    /** The lifecycle of one kind, exactly what the host calls. */
    impl: (kind: ResourceKind): Lifecycle => dynamic.implementation(kind),
    /** An out-of-band client, for drift made behind the provider's back. */
    client: (): ObservabilityClient => {
      if (!oob) throw new Error("useProvider: not started");
      return oob;
    },
  };
}

/** check, asserting it passes, and returning the normalized inputs the engine would carry. */
export async function checked(impl: Lifecycle, news: Props, olds: Props = {}): Promise<Props> {
  const result = await impl.check(olds, news);
  expect(result.failures).toEqual([]);
  return result.inputs as Props;
}

/** check → create, as `pulumi up` does for a new resource; returns id, outputs and the checked inputs. */
export async function created(
  impl: Lifecycle,
  args: Props,
): Promise<{ id: string; outs: Props; inputs: Props }> {
  const inputs = await checked(impl, args);
  const result = await impl.create(inputs);
  expect(result.id).toBeTruthy();
  return { id: result.id, outs: result.outs as Props, inputs };
}

/** Any error's message, or "" when the promise resolves. */
export async function messageOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "";
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
