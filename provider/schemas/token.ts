/**
 * API token: the OpenAPI v2 document's (axiomhq/docs `content/docs/(api-reference)/restapi/versions/v2.json`)
 * `CreateAPIToken`, `APIToken`, `CreateAPITokenResponse` and `RegenerateAPIToken`. Endpoints: `/v2/tokens`,
 * `/v2/tokens/{id}`, `POST /v2/tokens/{id}/regenerate`; there is no PUT.
 */
import { z } from "zod";
import { DateTimeSchema, NonEmptyStringSchema, absentWhenUnset, serviceDefault } from "./common";
import {
  DATASET_CAPABILITY_ACTIONS,
  ORG_CAPABILITY_ACTIONS,
  VIEW_CAPABILITY_ACTIONS,
  capabilityObject,
} from "./role";

/** What every API token value starts with (axiom-cli internal/cmdutil/chain.go: "an API token (xaat-*)"). */
export const API_TOKEN_PREFIX = "xaat-";

/** The grace period a rotation gives the old value when none is declared (Terraform's default, 48 hours). */
export const DEFAULT_ROTATION_GRACE_PERIOD = "48h";

const DURATION_UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};
const DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;

/**
 * A Go duration string (`48h`, `1h30m`, `90s`, `0s`) in milliseconds; undefined when it is not one or is
 * negative. Go's `time.ParseDuration` also takes a sign; a grace period cannot be negative, so none is read.
 */
export function parseDurationMs(text: string): number | undefined {
  if (text === "0") return 0;
  if (!DURATION.test(text)) return undefined;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g))
    ms += Number(n) * DURATION_UNIT_MS[unit];
  return Number.isFinite(ms) ? ms : undefined;
}

const DURATION_RULE =
  'must be a duration such as "48h", "30m" or "1h30m" (units h, m, s, ms, us, ns), not negative';

/** A non-negative Go duration string. */
export const DurationSchema = z
  .string({ error: DURATION_RULE })
  .refine((s) => parseDurationMs(s) !== undefined, { error: DURATION_RULE });

const tokenFields = () => ({
  /** Required. Names need not be unique (the service allows two tokens of one name). */
  name: NonEmptyStringSchema,
  description: serviceDefault(z.string({ error: "must be a string" }).optional(), ""),
  /** RFC 3339; absent (or the zero time some clients send) means the token never expires. */
  expiresAt: DateTimeSchema.optional(),
  /** Dataset name (or `*`, every dataset) to its capabilities. */
  datasetCapabilities: serviceDefault(
    z.record(NonEmptyStringSchema, capabilityObject(DATASET_CAPABILITY_ACTIONS, true)).optional(),
    {},
  ),
  /** Organization-wide capabilities: the Role's keys and action sets, `views` included. */
  orgCapabilities: serviceDefault(capabilityObject(ORG_CAPABILITY_ACTIONS, true).optional(), {}),
  /** View name to its capabilities. */
  viewCapabilities: serviceDefault(
    z.record(NonEmptyStringSchema, capabilityObject(VIEW_CAPABILITY_ACTIONS, true)).optional(),
    {},
  ),
});

/**
 * Body of `POST /v2/tokens` (and `newToken` of a regenerate). Read as official clients send it: axiom-go posts
 * `"expiresAt":"0001-01-01T00:00:00Z"` for no expiry and `"ingest":null` for every unset dataset capability
 * (axiom/tokens.go:91-116, 170-183); axiom-py posts every unset field as null (src/axiom_py/tokens.py). Both read
 * as absent. Unknown capability keys are refused: dropping one would grant less than asked.
 */
const TokenCreateObject = z.object(tokenFields());
export const TokenCreateSchema = absentWhenUnset(TokenCreateObject, { zeroIsAbsent: true });
export type TokenCreate = z.input<typeof TokenCreateObject>;

/**
 * Body of `POST /v2/tokens/{id}/regenerate` (axiom-go axiom/tokens.go:193-204): the old value keeps working until
 * `existingTokenExpiresAt`; the new token expires at `newTokenExpiresAt` (or never), and takes its name,
 * description and capabilities from `newToken` when given, else from the old token.
 */
const TokenRegenerateObject = z.object({
  existingTokenExpiresAt: DateTimeSchema,
  newTokenExpiresAt: DateTimeSchema.optional(),
  newToken: TokenCreateSchema.optional(),
});
export const TokenRegenerateSchema = absentWhenUnset(TokenRegenerateObject, { zeroIsAbsent: true });
export type TokenRegenerate = z.input<typeof TokenRegenerateObject>;

/** What a user declares: the create body, and how long a rotation lets the old value work. */
export const ApiTokenInputSchema = z.strictObject({
  ...tokenFields(),
  /** How long the old value keeps working after a change rotates the token. */
  rotationGracePeriod: serviceDefault(DurationSchema.optional(), DEFAULT_ROTATION_GRACE_PERIOD),
});

const capabilityMap = z.record(z.string(), z.array(z.string()));

/**
 * A token as the service returns it; unknown fields survive. `token`, the value, is present only in the answers
 * to create and regenerate; GET and list never carry it. A capability sent as null reads as absent.
 */
export const ApiTokenSchema = absentWhenUnset(
  z
    .looseObject({
      name: z.string(),
      description: z.string(),
      expiresAt: z.string(),
      datasetCapabilities: z.record(z.string(), capabilityMap),
      orgCapabilities: capabilityMap,
      viewCapabilities: z.record(z.string(), capabilityMap),
      samlAuthenticated: z.boolean(),
      token: z.string(),
    })
    .partial()
    .extend({ id: z.string() }),
  { keepMismatched: true, zeroIsAbsent: true },
);
export type ApiToken = z.infer<typeof ApiTokenSchema>;
