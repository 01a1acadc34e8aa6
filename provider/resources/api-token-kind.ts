/**
 * How the lifecycle engine handles ApiToken (its declaration), apart from the Resource class in api-token.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import type { ObservabilityClient } from "../client";
import { NotFoundError } from "../client/errors";
import {
  ApiTokenInputSchema,
  DEFAULT_ROTATION_GRACE_PERIOD,
  fieldNames,
  parseDurationMs,
  type ApiToken as ApiApiToken,
  type TokenCreate,
} from "../schemas";
import { inputChanges, type Descriptor, type KindRules } from "./descriptor";
import { declareKind, fromSchema, type Props } from "./lifecycle";
import { createReconciled } from "./reconcile";
import { dropUndefined, pick } from "./values";

const INPUT_KEYS = fieldNames(ApiTokenInputSchema);
export const OUTPUT_KEYS = [
  ...INPUT_KEYS,
  "token",
  "tokenId",
  "retiredTokenIds",
  "samlAuthenticated",
] as const;
/** The value is secret wherever it is: in the create's answer, in state, after refresh. */
export const SECRET_OUTPUTS = ["token"] as const;
/** The token's own fields: what the service stores; `rotationGracePeriod` is the provider's alone. */
const TOKEN_KEYS = INPUT_KEYS.filter((k) => k !== "rotationGracePeriod");
const GRACE = "rotationGracePeriod";

/** A token as the lifecycle holds it: `id` the resource's (first) id, `tokenId` the current token's. */
type HeldToken = ApiApiToken & {
  tokenId?: string;
  retiredTokenIds?: string[];
  rotationGracePeriod?: string;
};

/** An empty action list grants nothing, so it equals an absent one (the service omits them). */
function canonicalize(inputs: Props): Props {
  const prune = (caps: unknown): unknown => {
    if (!caps || typeof caps !== "object" || Array.isArray(caps)) return caps;
    return Object.fromEntries(Object.entries(caps).filter(([, v]) => !Array.isArray(v) || v.length > 0));
  };
  const pruneNested = (byName: unknown): unknown => {
    if (!byName || typeof byName !== "object" || Array.isArray(byName)) return byName;
    return Object.fromEntries(Object.entries(byName).map(([name, caps]) => [name, prune(caps)]));
  };
  const out = { ...inputs };
  out.orgCapabilities = prune(out.orgCapabilities);
  out.datasetCapabilities = pruneNested(out.datasetCapabilities);
  out.viewCapabilities = pruneNested(out.viewCapabilities);
  return out;
}

/** The token fields of a body, as the service takes them (the grace period is not the service's). */
const tokenBody = (body: Props): TokenCreate => dropUndefined(pick(body, TOKEN_KEYS)) as TokenCreate;

/** The grace period of `props` in ms; the default when absent. */
function graceMs(props: Props): number {
  const text = typeof props[GRACE] === "string" ? (props[GRACE] as string) : DEFAULT_ROTATION_GRACE_PERIOD;
  return parseDurationMs(text) ?? parseDurationMs(DEFAULT_ROTATION_GRACE_PERIOD)!;
}

const stringList = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

const rules: Pick<KindRules, "kind" | "inputKeys" | "defaults" | "setPaths" | "timePaths" | "canonicalize"> =
  {
    kind: "ApiToken",
    inputKeys: INPUT_KEYS,
    defaults: fromSchema(ApiTokenInputSchema).defaults,
    setPaths: ["orgCapabilities.*", "datasetCapabilities.*.*", "viewCapabilities.*.*"],
    timePaths: ["expiresAt"],
    canonicalize,
  };

/** The id of the current token of the resource `id`: the prior outputs' `tokenId` when they have one. */
const currentOf = (id: string, olds: Props): string =>
  typeof olds.tokenId === "string" && olds.tokenId !== "" ? olds.tokenId : id;

/**
 * The token `t` as the resource `id` holds it, with what the prior outputs recorded and the service does not
 * hold (the grace period, the retired ids). No key holds undefined: the host cannot send it to the engine.
 */
const heldOf = (id: string, t: ApiApiToken, olds: Props, extra: Partial<HeldToken> = {}): HeldToken =>
  dropUndefined({
    ...t,
    id,
    tokenId: t.id,
    rotationGracePeriod: typeof olds[GRACE] === "string" ? (olds[GRACE] as string) : undefined,
    retiredTokenIds: Array.isArray(olds.retiredTokenIds) ? stringList(olds.retiredTokenIds) : undefined,
    ...extra,
  }) as HeldToken;

/**
 * The verbs the lifecycle drives, following `olds.tokenId` (the current token) rather than the resource's id
 * where the prior outputs have one (see the file comment).
 */
function family(client: ObservabilityClient, olds: Props) {
  const current = (id: string) => currentOf(id, olds);
  const held = (id: string, t: ApiApiToken, extra: Partial<HeldToken> = {}): HeldToken =>
    heldOf(id, t, olds, extra);

  /** The retired ids whose grace period has not ended: the others no longer work. */
  async function stillRetiring(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const now = Date.now();
    const listed = new Map((await client.tokens.list()).map((t) => [t.id, t]));
    return ids.filter((id) => {
      const at = listed.get(id)?.expiresAt;
      return listed.has(id) && (typeof at !== "string" || !(Date.parse(at) <= now));
    });
  }

  return {
    async get(id: string): Promise<HeldToken> {
      return held(id, await client.tokens.get(current(id)));
    },
    async create(body: Props): Promise<HeldToken> {
      const t = await client.tokens.create(tokenBody(body));
      return dropUndefined({ ...t, tokenId: t.id, rotationGracePeriod: body[GRACE] }) as HeldToken;
    },
    async update(id: string, body: Props): Promise<HeldToken> {
      const from = current(id);
      const grace = { rotationGracePeriod: body[GRACE] as string | undefined };
      // A new grace period alone rotates nothing: it only tells the next rotation how long to wait.
      const rotate = inputChanges(rules as KindRules, olds, body).diffs.some((k) => k !== GRACE);
      if (!rotate) return held(id, await client.tokens.get(from), grace);
      // A regenerate is a POST that makes a token: an unknown outcome is reconciled as a create's is (the token
      // it may have made is found, deleted as an orphan whose value is lost, and the regenerate sent again).
      const next = await createReconciled(descriptor, family(client, {}), client, body, (declared) =>
        client.tokens.regenerate(from, {
          existingTokenExpiresAt: new Date(Date.now() + graceMs(declared)).toISOString(),
          newTokenExpiresAt: tokenBody(declared).expiresAt,
          newToken: tokenBody(declared),
        }),
      );
      const retired = await stillRetiring(stringList(olds.retiredTokenIds));
      return held(id, next, { ...grace, retiredTokenIds: [...retired, from] });
    },
    async delete(id: string): Promise<void> {
      // The current token, and those a rotation retired that may still work: none of its values outlives it.
      for (const tokenId of new Set([current(id), ...stringList(olds.retiredTokenIds)])) {
        try {
          await client.tokens.delete(tokenId);
        } catch (e) {
          if (!(e instanceof NotFoundError)) throw e;
        }
      }
    },
  };
}

/** How the lifecycle engine handles API tokens. */
const descriptor: Descriptor<HeldToken, "ApiToken"> = {
  ...rules,
  kind: "ApiToken",
  ...fromSchema(ApiTokenInputSchema),
  adoptable: false,
  adoptRefusal:
    "a token cannot be adopted: the service never returns an existing token's value, so its `token` " +
    "output could not be known. Declare a new one (its value is set when it is created), move its users " +
    "to it, and delete the old token",
  // The value is in the create's and the rotation's answers only; the ids retired by rotations are ours.
  carryKeys: ["token", "retiredTokenIds"],
  secretStrings: (inputs) => (typeof inputs.token === "string" ? [inputs.token] : []),
  family,
  reconcile: {
    // Listed with the declared grace period, which the service does not hold, so that only the body decides.
    list: async (client, declared) =>
      (await client.tokens.list()).map((t) => ({ ...t, rotationGracePeriod: declared[GRACE] as string })),
    listedBy: () => "",
    timed: () => false,
    valueLost: true,
  },
  // The listing holds every token (without values, as a GET); a read looks for the current token (`tokenId`)
  // and holds it as the family's get does, the value carried over from the prior outputs by `carryKeys`.
  readAll: {
    listedBy: () => "",
    list: (client) => client.tokens.list(),
    listedId: currentOf,
    asRead: (t, id, props) => heldOf(id, t, props),
  },
  toBody: (inputs) => dropUndefined(inputs),
  toInputs: (t) =>
    Object.fromEntries(Object.entries(pick(t, INPUT_KEYS)).filter(([, v]) => v !== null && v !== undefined)),
  toOutputs: (t) => ({ ...t }),
};
/** @internal The kind as the registry holds it. */
export const declaration = declareKind(descriptor);
