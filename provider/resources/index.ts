/** The Pulumi dynamic resources and their Args, exported from `pulumi-observability`. */
export * from "./annotation";
export * from "./monitor";
export * from "./notifier";
export * from "./role";
export * from "./starred-query";
export * from "./organization-name";
export { providerShim, SHIM_METHODS, type ResourceKind, type ShimMethod } from "./shim";
export { UNKNOWN, type LifecycleDiff } from "./lifecycle";
