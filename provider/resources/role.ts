/** Role (RBAC): a named set of permissions and its members. POST/GET/PUT/DELETE `/v2/rbac/roles[/{id}]`. */
import * as pulumi from "@pulumi/pulumi";
import { RoleInputSchema } from "../schemas";
import { resourceProps, uniqueIdentityOptions, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./role-kind";

/** An action a capability allows. */
export type RoleAction = "create" | "read" | "update" | "delete";
/** Capability name to the actions allowed; order does not matter. */
export type CapabilityArgs = Record<string, pulumi.Input<pulumi.Input<RoleAction>[]>>;

/** Inputs of a {@link Role}. */
export interface RoleArgs {
  /** Required: unique name in the organization (a clash is a 409). */
  name: pulumi.Input<string>;
  /** Free text. Defaults to "". */
  description?: pulumi.Input<string>;
  /** User ids assigned to the role, no duplicates; order does not matter. Defaults to none. */
  members?: pulumi.Input<pulumi.Input<string>[]>;
  /** Org-wide permissions: annotations, apiTokens, dashboards, datasets, endpoints, flows, integrations, monitors, notifiers, rbac, users, views allow CRUD; auditLog only read; billing and sharedAccessKeys read and update. Defaults to none. */
  orgCapabilities?: pulumi.Input<CapabilityArgs>;
  /** Dataset name to capabilities: ingest [create], query [read], data [delete], trim/vacuum [update], share [create, read, delete], starredQueries/virtualFields CRUD. Defaults to none. */
  datasetCapabilities?: pulumi.Input<Record<string, pulumi.Input<CapabilityArgs>>>;
  /** View name to capabilities: query [read], share [create, read, delete]. Defaults to none. */
  viewCapabilities?: pulumi.Input<Record<string, pulumi.Input<CapabilityArgs>>>;
  /** Id of an existing role to take under management instead of creating one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<RoleArgs, typeof RoleInputSchema>>;

/** A role: permissions on the organization, datasets and views, and the users who hold them. */
export class Role extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** Unique name. */
  declare readonly name: pulumi.Output<string>;
  /** Free text. */
  declare readonly description: pulumi.Output<string | undefined>;
  /** User ids assigned to the role. */
  declare readonly members: pulumi.Output<string[] | undefined>;
  /** Org-wide permissions. */
  declare readonly orgCapabilities: pulumi.Output<Record<string, RoleAction[]> | undefined>;
  /** Per-dataset permissions. */
  declare readonly datasetCapabilities: pulumi.Output<
    Record<string, Record<string, RoleAction[]>> | undefined
  >;
  /** Per-view permissions. */
  declare readonly viewCapabilities: pulumi.Output<Record<string, Record<string, RoleAction[]>> | undefined>;
  /** The adopted id, when the role was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /**
   * Declares a role. Replacements delete first (`deleteBeforeReplace` defaults to true; yours wins): the name is
   * unique, so a replacement created first would fail with 409. An adopted role keeps create-before-delete,
   * since deleting first would destroy the object its replacement adopts, and `adopt` with an explicit
   * `deleteBeforeReplace: true` is refused. Whether the role is adopted is decided here, while the program runs:
   * an `adopt` key holding an Output counts as adopted even if it resolves to undefined (its value is not known
   * yet), so leave the key out rather than pass an Output of undefined.
   */
  constructor(name: string, args: RoleArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link Role.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: RoleArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const options = uniqueIdentityOptions(declaration.kind, name, args, opts);
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), options);
  }

  /** Looks up an existing role by id without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Role {
    return new Role(name, undefined, { ...opts, id });
  }
}
