/**
 * User: the OpenAPI v2 document's `User`, `CreateUserRequest`, `UpdateUserRoleRequest` and
 * `UpdateCurrentUserRequest` (axiomhq/docs `restapi/versions/v2.json`). Endpoints: `/v2/users`, `/v2/users/{id}`,
 * `PUT /v2/users/{id}/role`, and `GET`/`PUT /v2/user` (the caller).
 */
import { z } from "zod";
import { NonEmptyStringSchema, absentWhenUnset } from "./common";

/**
 * The built-in roles, id to name. A user's role is `{id, name}`; a built-in role's id is one of these words
 * (axiom-js packages/js/test/unit/users.test.ts: `{id: "owner", name: "Owner"}`; axiom-go axiom/users.go, the
 * `UserRole` enum `none`, `read-only`, `user`, `admin`, `owner`), and a custom role's id is the id of an RBAC role.
 */
export const BUILT_IN_ROLES = {
  none: "None",
  "read-only": "Read-only",
  user: "User",
  admin: "Admin",
  owner: "Owner",
} as const;
export type BuiltInRole = keyof typeof BUILT_IN_ROLES;

/** Whether `id` is a built-in role's id. */
export function isBuiltInRole(id: string): id is BuiltInRole {
  return Object.prototype.hasOwnProperty.call(BUILT_IN_ROLES, id);
}

const squash = (s: string) => s.toLowerCase().replace(/[\s_-]/g, "");

/**
 * The built-in role `value` misspells, if any: `Admin`, `ADMIN`, `read_only` or `Read-only` mean a built-in
 * role but are not its id, and the service would take them for a custom role's id that does not exist.
 */
export function misspelledBuiltInRole(value: string): BuiltInRole | undefined {
  if (isBuiltInRole(value)) return undefined;
  return (Object.keys(BUILT_IN_ROLES) as BuiltInRole[]).find((id) => squash(id) === squash(value));
}

const BUILT_IN_LIST = Object.keys(BUILT_IN_ROLES).join(", ");

/** A role reference: a built-in role's id, or a custom role's id (`Role.id`). */
export const UserRoleRefSchema = NonEmptyStringSchema.superRefine((value, ctx) => {
  const meant = misspelledBuiltInRole(value);
  if (meant !== undefined) {
    ctx.addIssue({
      code: "custom",
      message: `must be a built-in role's id (${BUILT_IN_LIST}) or a custom role's id; "${value}" is written "${meant}"`,
    });
  }
});

/** An email address, as `CreateUserRequest.email`. */
export const EmailSchema = z.email({ error: "must be an email address" });

const userFields = {
  /** The user's full name. */
  name: NonEmptyStringSchema,
  /** The user's email address: the natural key of a user in an organization. */
  email: EmailSchema,
  /** A built-in role's id or a custom role's id. */
  role: UserRoleRefSchema,
};

/** Body of `POST /v2/users` (`CreateUserRequest`: every field required). */
const UserCreateObjectSchema = z.object(userFields);
export const UserCreateSchema = absentWhenUnset(UserCreateObjectSchema);
export type UserCreate = z.input<typeof UserCreateObjectSchema>;

/** Body of `PUT /v2/users/{id}/role` (`UpdateUserRoleRequest`). */
const UserRoleUpdateObjectSchema = z.object({ role: UserRoleRefSchema });
export const UserRoleUpdateSchema = absentWhenUnset(UserRoleUpdateObjectSchema);
export type UserRoleUpdate = z.input<typeof UserRoleUpdateObjectSchema>;

/**
 * Body of `PUT /v2/user` (`UpdateCurrentUserRequest`), and of `PUT /v2/users/{id}`, which the document lacks but
 * axiom-go `Users.Update` sends (axiom/users.go:185-199) with this very body.
 */
const UserNameUpdateObjectSchema = z.object({ name: NonEmptyStringSchema });
export const UserNameUpdateSchema = absentWhenUnset(UserNameUpdateObjectSchema);
export type UserNameUpdate = z.input<typeof UserNameUpdateObjectSchema>;

/** What a user declares: the create body, unknown fields refused. */
export const UserInputSchema = z.strictObject(userFields);

/** A role as a user object carries it (`UserDetailsRole`). */
export const UserRoleSchema = z.looseObject({ id: z.string(), name: z.string() }).partial();

/**
 * A user as the service returns it; unknown fields survive. `role` may be absent: the document requires it, but
 * the live `PUT /v2/user` omits it on an account without RBAC roles (alchemy-run/distilled
 * patches/v2/004-user-role-optional.patch.json), and axiom-js types it `role?: UserRole | null`.
 */
export const UserSchema = absentWhenUnset(
  z
    .looseObject({
      name: z.string(),
      email: z.string(),
      role: UserRoleSchema,
    })
    .partial()
    .extend({ id: z.string() }),
  { keepMismatched: true },
);
export type User = z.infer<typeof UserSchema>;
