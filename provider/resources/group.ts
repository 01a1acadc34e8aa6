/** Group (RBAC): a named set of users and the roles they hold. POST/GET/PUT/DELETE `/v2/rbac/groups[/{id}]`. */
import * as pulumi from "@pulumi/pulumi";
import { GroupInputSchema } from "../schemas";
import { resourceProps, uniqueIdentityOptions, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./group-kind";

/** Inputs of a {@link Group}. */
export interface GroupArgs {
  /** Required: unique name in the organization (a clash is a 409). */
  name: pulumi.Input<string>;
  /** Free text. Defaults to "". */
  description?: pulumi.Input<string>;
  /** User ids in the group (e.g. `User` ids), no duplicates; order does not matter. Defaults to none. */
  members?: pulumi.Input<pulumi.Input<string>[]>;
  /** Role ids the members hold (e.g. `role.id`), no duplicates; order does not matter. Defaults to none. */
  roles?: pulumi.Input<pulumi.Input<string>[]>;
  /** Id of an existing group to take under management instead of creating one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<GroupArgs, typeof GroupInputSchema>>;

/** A group: users who together hold a set of roles. */
export class Group extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** Unique name. */
  declare readonly name: pulumi.Output<string>;
  /** Free text. */
  declare readonly description: pulumi.Output<string | undefined>;
  /** User ids in the group. */
  declare readonly members: pulumi.Output<string[] | undefined>;
  /** Role ids the members hold. */
  declare readonly roles: pulumi.Output<string[] | undefined>;
  /** Whether the service manages the group (read-only). */
  declare readonly isManaged: pulumi.Output<boolean | undefined>;
  /** The adopted id, when the group was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /**
   * Declares a group. Replacements delete first (`deleteBeforeReplace` defaults to true; yours wins): the name is
   * unique, so a replacement created first would fail with 409. An adopted group keeps create-before-delete,
   * since deleting first would destroy the object its replacement adopts, and `adopt` with an explicit
   * `deleteBeforeReplace: true` is refused.
   */
  constructor(name: string, args: GroupArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link Group.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: GroupArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const options = uniqueIdentityOptions(declaration.kind, name, args, opts);
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), options);
  }

  /** Looks up an existing group by id without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Group {
    return new Group(name, undefined, { ...opts, id });
  }
}
