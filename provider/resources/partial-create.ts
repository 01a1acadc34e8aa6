/**
 * The error of a create that made its object and then failed, apart from the lifecycle engine (lifecycle.ts), which
 * re-exports it: the native plugin's server needs the class at start, and the engine loads the schemas.
 */
import type { Props } from "./values";

/**
 * A create that made its object and then failed: the engine records the object (its id and outputs) with the
 * failure as its initialization error, instead of forgetting an object that exists (an orphan that the next
 * `pulumi up` would make a second time). The next `pulumi up` updates it, which finishes the create: the engine
 * updates a resource whose state holds initialization errors even when diff finds no change (pulumi/pulumi
 * pkg/resource/deploy/step_generator.go, `hasInitErrors`).
 *
 * Its fields are those the two hosts read. Pulumi's dynamic-provider host sends an error with `id` as the
 * `pulumirpc.ErrorResourceInitFailed` detail of its gRPC status, with `properties` and `reasons` (@pulumi/pulumi
 * cmd/dynamic-provider/index.js, `grpcResponseFromError`); the native plugin does the same with `inputs` as well
 * (provider/native/server.ts).
 */
export class PartialCreateError extends Error {
  constructor(
    message: string,
    /** The object's id. */
    readonly id: string,
    /** The resource's outputs; `__provider` among them for a dynamic resource, whose later calls need it. */
    readonly properties: Props,
    /** The inputs the create was given. */
    readonly inputs: Props,
    /** What failed, as the engine lists it. */
    readonly reasons: string[],
  ) {
    super(message);
  }
}
