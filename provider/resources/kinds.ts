/**
 * Every kind's declaration, without its Resource class: what the native provider plugin serves. Each kind's
 * declaration lives in `<kind>-kind.ts`, which imports the lifecycle engine, the client and the schemas but not
 * @pulumi/pulumi, whose index takes most of a second to load; the plugin starts once per `pulumi up`, `preview`
 * and `refresh`. registry.ts collects the same declarations from the Resource classes for the dynamic provider;
 * test/provider/registry.test.ts holds the two lists equal.
 *
 * A kind's declaration is loaded at its first use, not at start: the declarations load zod and the kinds'
 * schemas, most of what the plugin would otherwise load before it can print its port, and an operation usually
 * touches a few kinds. The names and the secret keys are data, here, so that naming a kind loads nothing.
 */
import type { DeclaredKind } from "./lifecycle";

/** How each kind's declaration is loaded: a `require` each, which a bundler follows and runs at its first call. */
const LOADERS = {
  Annotation: () => (require("./annotation-kind") as typeof import("./annotation-kind")).declaration,
  Monitor: () => (require("./monitor-kind") as typeof import("./monitor-kind")).declaration,
  Notifier: () => (require("./notifier-kind") as typeof import("./notifier-kind")).declaration,
  Role: () => (require("./role-kind") as typeof import("./role-kind")).declaration,
  StarredQuery: () => (require("./starred-query-kind") as typeof import("./starred-query-kind")).declaration,
  OrganizationName: () =>
    (require("./organization-name-kind") as typeof import("./organization-name-kind")).declaration,
  View: () => (require("./view-kind") as typeof import("./view-kind")).declaration,
  Group: () => (require("./group-kind") as typeof import("./group-kind")).declaration,
  User: () => (require("./user-kind") as typeof import("./user-kind")).declaration,
  VirtualField: () => (require("./virtual-field-kind") as typeof import("./virtual-field-kind")).declaration,
  ApiToken: () => (require("./api-token-kind") as typeof import("./api-token-kind")).declaration,
  Dashboard: () => (require("./dashboard-kind") as typeof import("./dashboard-kind")).declaration,
  Dataset: () => (require("./dataset-kind") as typeof import("./dataset-kind")).declaration,
} satisfies Record<string, () => DeclaredKind>;

/** The name of a kind whose declaration the plugin serves. */
export type DeclaredKindName = keyof typeof LOADERS;

/** Keys of a kind whose values are always secret: in its outputs, and in its inputs. */
export interface SecretKeys {
  readonly outputs: readonly string[];
  readonly inputs: readonly string[];
}

/** Every declared kind, by name, each loaded when first read. */
class Declarations implements ReadonlyMap<DeclaredKindName, DeclaredKind<DeclaredKindName>> {
  private readonly loaded = new Map<DeclaredKindName, DeclaredKind<DeclaredKindName>>();
  private readonly names = Object.keys(LOADERS) as DeclaredKindName[];

  get size(): number {
    return this.names.length;
  }
  has(kind: string): boolean {
    return Object.hasOwn(LOADERS, kind);
  }
  get(kind: DeclaredKindName): DeclaredKind<DeclaredKindName> | undefined {
    if (!this.has(kind)) return undefined;
    let declared = this.loaded.get(kind);
    if (!declared) {
      declared = LOADERS[kind]();
      this.loaded.set(kind, declared);
    }
    return declared;
  }
  keys(): MapIterator<DeclaredKindName> {
    return this.names[Symbol.iterator]();
  }
  *values(): MapIterator<DeclaredKind<DeclaredKindName>> {
    for (const kind of this.names) yield this.get(kind)!;
  }
  *entries(): MapIterator<[DeclaredKindName, DeclaredKind<DeclaredKindName>]> {
    for (const kind of this.names) yield [kind, this.get(kind)!];
  }
  [Symbol.iterator](): MapIterator<[DeclaredKindName, DeclaredKind<DeclaredKindName>]> {
    return this.entries();
  }
  forEach(
    f: (
      value: DeclaredKind<DeclaredKindName>,
      key: DeclaredKindName,
      map: ReadonlyMap<DeclaredKindName, DeclaredKind<DeclaredKindName>>,
    ) => void,
  ): void {
    for (const [kind, declared] of this.entries()) f(declared, kind, this);
  }
}

/** Every declared kind, by name; a kind's declaration is loaded at its first `get`. */
export const DECLARATIONS: ReadonlyMap<DeclaredKindName, DeclaredKind<DeclaredKindName>> = new Declarations();

const NONE: SecretKeys = { outputs: [], inputs: [] };

/**
 * The secret keys of every kind, by name; none for most. The kinds' own (their Resource classes' `secretKeys`,
 * from notifier-kind.ts and api-token-kind.ts), which test/provider/registry.test.ts holds these equal to.
 */
export const SECRET_KEYS: ReadonlyMap<DeclaredKindName, SecretKeys> = new Map(
  (Object.keys(LOADERS) as DeclaredKindName[]).map((kind) => [
    kind,
    kind === "Notifier"
      ? { outputs: ["properties"], inputs: ["properties"] }
      : kind === "ApiToken"
        ? { outputs: ["token"], inputs: [] }
        : NONE,
  ]),
);
