/**
 * The Pulumi dynamic resources and their Args, exported from `pulumi-observability`: one line per kind. This list
 * is also the registry's (registry.ts): a kind exported here is served by the dynamic provider, and one that is
 * not is neither public nor served.
 */
export * from "./annotation";
export * from "./monitor";
export * from "./notifier";
export * from "./role";
export * from "./starred-query";
export * from "./organization-name";
export * from "./view";
export * from "./group";
export * from "./user";
export * from "./virtual-field";
export * from "./api-token";
export * from "./dashboard";
export * from "./dataset";
