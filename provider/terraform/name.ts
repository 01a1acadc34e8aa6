/**
 * The names a mapping request is answered for, apart from the table (index.ts), so the plugin can answer
 * GetMappings without loading it.
 */

/** The conversion key of Terraform (pulumi/pulumi pkg/codegen/convert: the mapper's `terraform` key). */
export const TERRAFORM_KEY = "terraform";
/** The Terraform provider's local name: `axiom_*` types, `provider["registry.terraform.io/axiomhq/axiom"]`. */
export const TERRAFORM_PROVIDER = "axiom";
