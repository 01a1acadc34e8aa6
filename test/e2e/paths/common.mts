/**
 * What the engine paths share. These paths are the ones test/provider/engine-paths.test.ts reproduces around the
 * real dynamic-provider host (test/helpers/engine-steps.ts), here run by the real engine, each file on a fresh
 * emulator and stacks of small inline programs.
 */
import type * as Obs from "pulumi-observability";
import type { EngineStack } from "../../../scripts/lib.mts";
import { exportState } from "../support.mts";

/** The package as the inline programs import it: the build, through node_modules, as a user's program would. */
export const obs = () => import("pulumi-observability") as Promise<typeof Obs>;
export type { Obs };

/** The type token's prefix of this package's resources. */
export const TYPE = "pulumi-nodejs:dynamic/observability:";

/** A random suffix, so that a value found in a file can only have come from this run. */
export const random = () => Math.random().toString(36).slice(2, 10);

/** The URN of this package's resource `name` in `stack`'s state. */
export async function urnOf(stack: EngineStack, name: string): Promise<string> {
  const found = (await exportState(stack)).resources.find((r) => r.urn.endsWith(`::${name}`));
  if (!found) throw new Error(`no resource ${name} in the state of ${stack.name}`);
  return found.urn;
}

/** A value of `pulumi stack export --show-secrets`: a secret is `{<signature>, plaintext: <its JSON>}`. */
export function revealed(v: unknown): unknown {
  const secret = v as { plaintext?: string } | undefined;
  return typeof secret?.plaintext === "string" ? JSON.parse(secret.plaintext) : v;
}
