/** Every validation rule of the service, one file per resource; used by check(), the client and the emulator. */
export * from "./common";
export * from "./int64";
export * from "./annotation";
export * from "./monitor";
export * from "./notifier";
export * from "./role";
export * from "./org";
export * from "./starred-query";
export * from "./user";
export * from "./virtual-field";
export * from "./query";
export * from "./view";
export * from "./group";
export * from "./token";
export * from "./dashboard";
export * from "./dataset";
