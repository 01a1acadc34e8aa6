/**
 * OrganizationName: manages the organization's display name. Create reads the current name (kept as
 * `previousName`) and renames with PUT `/v2/orgs/{id}`; update renames; delete restores `previousName`.
 */
import * as pulumi from "@pulumi/pulumi";
import { resourceProps, withDeleteBeforeReplace, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, OrganizationNameInputSchema, declaration } from "./organization-name-kind";

/** Inputs of an {@link OrganizationName}. */
export interface OrganizationNameArgs {
  /** Required: id of the organization to rename; changing it replaces the resource (the old org gets its name back). */
  organizationId: pulumi.Input<string>;
  /** Required: the organization's new name, non-empty. */
  name: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<OrganizationNameArgs, typeof OrganizationNameInputSchema>>;

/** An organization's payment status. */
export type OrganizationPaymentStatus = "na" | "failed" | "success" | "blocked";
/** An organization's plan. */
export type OrganizationPlan =
  | "personal"
  | "basicDirect"
  | "teamMonthlyDirect"
  | "teamMonthlyAws"
  | "axiomCloud"
  | "teamPlus"
  | "enterprise"
  | "comped"
  | "accelerator";

/** The organization's name, set while this resource exists and restored when it is deleted. */
export class OrganizationName extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** The organization's id. */
  declare readonly organizationId: pulumi.Output<string>;
  /** The organization's current name. */
  declare readonly name: pulumi.Output<string>;
  /** The name before this resource renamed it; restored on delete. */
  declare readonly previousName: pulumi.Output<string | undefined>;
  /** Last usage sync time (server-set). */
  declare readonly lastUsageSync: pulumi.Output<string>;
  /** The org's license and its caps (server-set). */
  declare readonly license: pulumi.Output<Record<string, unknown>>;
  /** `na`, `failed`, `success` or `blocked` (server-set). */
  declare readonly paymentStatus: pulumi.Output<OrganizationPaymentStatus>;
  /** The org's plan (server-set). */
  declare readonly plan: pulumi.Output<OrganizationPlan>;
  /** When the plan started (server-set). */
  declare readonly planCreated: pulumi.Output<string>;
  /** The org's primary email (server-set). */
  declare readonly primaryEmail: pulumi.Output<string>;
  /** First failed payment, when any (server-set). */
  declare readonly firstFailedPayment: pulumi.Output<string | undefined>;
  /** Creation time (server-set). */
  declare readonly metaCreated: pulumi.Output<string | undefined>;
  /** Last modification time (server-set). */
  declare readonly metaModified: pulumi.Output<string | undefined>;
  /** Version counter (server-set). */
  declare readonly metaVersion: pulumi.Output<string | undefined>;
  /** The caller's role in the org (server-set). */
  declare readonly role: pulumi.Output<string | undefined>;

  /**
   * Renames an organization for as long as this resource exists. Replacements always delete first
   * (`deleteBeforeReplace` is true, and an explicit `false` is refused): created first, the replacement of the
   * same organization would record the old resource's name as `previousName`, and the old resource's delete
   * would then restore the original name under it, so the service would hold the original name, the state the
   * declared one, and the original would be lost to a later delete. Neither step can repair this: a forced
   * replacement sends the new resource's Create no old outputs (pulumi/pulumi pkg/resource/deploy/step.go,
   * CreateStep.Apply with a replacing old state passes only the new inputs), so its create cannot learn the
   * original name, and the old resource's Delete cannot write to the new resource's state.
   */
  constructor(name: string, args: OrganizationNameArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link OrganizationName.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: OrganizationNameArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    if (opts?.deleteBeforeReplace === false) {
      throw new pulumi.ResourceError(
        `OrganizationName ${JSON.stringify(name)}: \`deleteBeforeReplace: false\` is not supported. A ` +
          "replacement created before the old resource is deleted would lose the organization's original name " +
          "(the old resource's delete restores it under the new one). Remove the option: replacements delete first.",
        undefined,
      );
    }
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), withDeleteBeforeReplace(opts));
  }

  /** Looks up an organization's name by organization id without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): OrganizationName {
    return new OrganizationName(name, undefined, { ...opts, id });
  }
}
