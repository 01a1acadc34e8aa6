/**
 * How the lifecycle engine handles User (its declaration), apart from the Resource class in user.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import type { ObservabilityClient } from "../client";
import { UserCreateSchema, UserInputSchema, fieldNames, type User as ApiUser } from "../schemas";
import { declareKind, fromSchema, requestBody, type Props } from "./lifecycle";
import { dropUndefined, pick } from "./values";

const INPUT_KEYS = fieldNames(UserInputSchema);
export const OUTPUT_KEYS = [...INPUT_KEYS, "roleName", "adopt"] as const;

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
export const declaration = declareKind<ApiUser, "User">({
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
