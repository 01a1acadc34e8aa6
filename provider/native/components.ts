/**
 * The components the native provider serves beside the kinds: resources made of other resources, registered by
 * every SDK as remote components and made by the plugin's Construct (construct.ts). Each is declared once, by the
 * zod schema of its inputs, which the schema's walk reads as it reads a kind's.
 */
import type { z } from "zod";
import { SloArgsSchema } from "../slo/spec";

/** A component: its inputs' schema, and which of its declared outputs may be absent. */
export interface ComponentDeclaration {
  inputs: z.ZodType;
  optionalOutputs: readonly string[];
}

/** The components, by name (`observability:index:<name>`). */
export const COMPONENTS: Readonly<Record<string, ComponentDeclaration>> = {
  // Its dashboard is made unless `dashboard: false`, so `dashboardId` may be absent.
  Slo: { inputs: SloArgsSchema, optionalOutputs: ["dashboardId"] },
};
