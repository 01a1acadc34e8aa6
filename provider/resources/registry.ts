/**
 * Every resource kind the dynamic provider serves, collected from the public exports (index.ts): each Resource
 * class carries its kind's declaration, so a kind is registered by exporting its file, and `ResourceKind` is
 * derived from the same list. The native provider plugin reads the same declarations from kinds.ts instead, which
 * does not load the Resource classes (nor so @pulumi/pulumi).
 */
import * as resources from "./index";
import type { DeclaredKind } from "./lifecycle";

type Exported = (typeof resources)[keyof typeof resources];
type KindClass = Extract<Exported, { readonly declaration: DeclaredKind }>;

/** The name of a resource kind, as the shim and errors name it. */
export type ResourceKind = KindClass["declaration"]["kind"];

function isKindClass(value: unknown): value is KindClass {
  return typeof value === "function" && "declaration" in value;
}

/** Every kind's Resource class, by kind name. */
export const KIND_CLASSES: ReadonlyMap<ResourceKind, KindClass> = new Map(
  Object.values(resources)
    .filter(isKindClass)
    .map((cls) => [cls.declaration.kind, cls] as const),
);

/** Every declared kind, by name. */
export const KINDS: ReadonlyMap<ResourceKind, DeclaredKind<ResourceKind>> = new Map(
  [...KIND_CLASSES].map(([kind, cls]) => [kind, cls.declaration] as const),
);
