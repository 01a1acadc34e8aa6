/**
 * User: a member of the organization. POST `/v2/users` invites, GET `/v2/users/{id}` reads, a role change is
 * PUT `/v2/users/{id}/role`, and DELETE `/v2/users/{id}` removes the user from the organization.
 *
 * Terraform's provider sends every update as `PUT /v2/users/{id} {name}` (terraform-provider-axiom
 * axiom/resource_user.go:151, axiom-go `Users.Update`), so its role changes never reach the service; here a role
 * change is `PUT /v2/users/{id}/role`, the document's operation for it. The document has no way to rename another
 * user (only the caller renames themself, `PUT /v2/user`), so a change of `name` replaces the user, like a change
 * of `email`.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ObservabilityClient } from "../client";
import { UserCreateSchema, UserInputSchema, fieldNames, type User as ApiUser } from "../schemas";
import { resourceProps, uniqueIdentityOptions, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { declareKind, fromSchema, requestBody, type Props } from "./lifecycle";
import { dropUndefined, pick } from "./values";

/** A built-in role's id. */
export type BuiltInUserRole = "none" | "read-only" | "user" | "admin" | "owner";

/** Inputs of a {@link User}. */
export interface UserArgs {
  /** Required: the user's full name, non-empty. The API cannot rename another user, so a change replaces the user. */
  name: pulumi.Input<string>;
  /** Required: the user's email address, unique in the organization (a clash is a 409); a change replaces the user. */
  email: pulumi.Input<string>;
  /**
   * Required: a built-in role's id (`none`, `read-only`, `user`, `admin`, `owner`), or a custom role's id
   * (`Role.id`). Changes in place, through `PUT /v2/users/{id}/role`.
   */
  role: pulumi.Input<BuiltInUserRole | (string & {})>;
  /** Id of an existing user to take under management instead of inviting one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

const INPUT_KEYS = fieldNames(UserInputSchema);
type _ArgsMatchSchema = Assert<ArgsMatchSchema<UserArgs, typeof UserInputSchema>>;
const OUTPUT_KEYS = [...INPUT_KEYS, "roleName", "adopt"] as const;

/** The fields no update can change: the API has no call for them, so their change replaces the user. */
const FIXED = ["email", "name"] as const;

/** Emails are compared without regard to case, so a service that lowers their case shows no drift. */
function canonicalize(inputs: Props): Props {
  return typeof inputs.email === "string" ? { ...inputs, email: inputs.email.toLowerCase() } : inputs;
}

function sameFixed(key: (typeof FIXED)[number], had: string, wanted: unknown): boolean {
  return key === "email"
    ? typeof wanted === "string" && had.toLowerCase() === wanted.toLowerCase()
    : had === wanted;
}

/** A user as the service returns it, in the Args' shape: the role by its id. */
function toInputs(user: ApiUser): Props {
  return dropUndefined({ name: user.name, email: user.email, role: user.role?.id });
}

/**
 * The family the lifecycle drives. Update is only reached for a role change (name and email replace), or by an
 * adoption, whose `olds` are the adopted user's outputs: a declared name or email other than the user's cannot be
 * applied, so it fails, naming the field, before anything is sent.
 */
function family(client: ObservabilityClient, olds: Props) {
  return {
    get: (id: string) => client.users.get(id),
    create: (body: Props) => client.users.create(requestBody(UserCreateSchema, body)),
    async update(id: string, body: Props) {
      for (const key of FIXED) {
        const had = olds[key];
        if (typeof had === "string" && !sameFixed(key, had, body[key])) {
          throw new Error(
            `${key}: the object's ${key} is ${JSON.stringify(had)}, and the API cannot change another account's ` +
              `${key} in place (only the role changes, through PUT /v2/users/{id}/role); declare ${key} ` +
              `${JSON.stringify(had)} to adopt it`,
          );
        }
      }
      return client.users.setRole(id, { role: String(body.role) });
    },
    delete: (id: string) => client.users.delete(id),
  };
}

/** @internal How the lifecycle engine handles users. */
const declaration = declareKind<ApiUser, "User">({
  kind: "User",
  ...fromSchema(UserInputSchema),
  setPaths: [],
  replaceKeys: [...FIXED],
  adoptable: true,
  // Emails are unique: the replacement could not be invited while the old user holds the email.
  deleteBeforeReplace: true,
  canonicalize,
  family,
  toBody: (inputs) => dropUndefined(pick(inputs, INPUT_KEYS)),
  toInputs,
  // The role as its id (what `role` is declared as) and its name beside it.
  toOutputs: (user) =>
    dropUndefined({ ...user, ...toInputs(user), role: user.role?.id, roleName: user.role?.name }),
  // The email is the natural key: no creation time, so the baseline listing decides, and a 409 on a resend means
  // the email was taken since (perhaps by us): the user of that email is taken when name and role match too.
  reconcile: { list: (client) => client.users.list(), listedBy: () => "", timed: () => false },
  // The listing holds every user of the organization, each as its GET returns it (the role as `{id, name}`).
  readAll: { listedBy: () => "", list: (client) => client.users.list() },
});

/** A member of the organization, with a built-in or custom role. */
export class User extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** Full name. */
  declare readonly name: pulumi.Output<string>;
  /** Email address. */
  declare readonly email: pulumi.Output<string>;
  /** The role's id: a built-in role's id or a custom role's id. */
  declare readonly role: pulumi.Output<string>;
  /** The role's name, e.g. `Admin` or a custom role's name. */
  declare readonly roleName: pulumi.Output<string | undefined>;
  /** The adopted id, when the user was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /**
   * Declares a user of the organization. Replacements (a change of `email` or `name`) delete first
   * (`deleteBeforeReplace` defaults to true; yours wins): the email is unique, so a replacement invited first
   * would fail with 409. An adopted user keeps create-before-delete, since deleting first would remove the user
   * its replacement adopts, and `adopt` with an explicit `deleteBeforeReplace: true` is refused.
   */
  constructor(name: string, args: UserArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link User.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: UserArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const options = uniqueIdentityOptions(declaration.kind, name, args, opts);
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), options);
  }

  /** Looks up an existing user by id without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): User {
    return new User(name, undefined, { ...opts, id });
  }
}
