/**
 * After `tsc`: keeps zod out of the typings that `import "pulumi-observability"` reaches. zod's own typings do
 * not compile under the tsconfig `pulumi new typescript` writes (no esModuleInterop, no skipLibCheck), so a
 * user's program would fail to type-check the moment the root typings touch zod.
 *
 * 1. Writes dist/provider/client/objects.d.ts: every type provider/client/objects.ts re-exports from the schemas,
 *    expanded into a plain object type (the schemas stay the one place each shape is declared).
 * 2. Walks the typings from dist/provider/index.d.ts. An import of the schemas becomes an import of objects.d.ts;
 *    any other path to zod or the schemas fails the build, naming the file, so a new leak cannot ship.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(import.meta.dirname, "..");
const DIST = path.join(ROOT, "dist", "provider");
const OBJECTS_SOURCE = path.join(ROOT, "provider", "client", "objects.ts");
const OBJECTS_DTS = path.join(DIST, "client", "objects.d.ts");
const SCHEMAS_DIR = path.join(DIST, "schemas") + path.sep;

/** Prints a type structurally, so the result names nothing but built-in types. */
function printer(checker: ts.TypeChecker) {
  // `optional`: the type of an optional property, whose `undefined` the `?` already says.
  const print = (type: ts.Type, depth: number, optional = false): string => {
    if (depth > 12) throw new Error(`type too deep to expand: ${checker.typeToString(type)}`);
    const f = type.flags;
    if (f & (ts.TypeFlags.String | ts.TypeFlags.Number | ts.TypeFlags.Boolean | ts.TypeFlags.BigInt))
      return checker.typeToString(type);
    if (f & (ts.TypeFlags.Unknown | ts.TypeFlags.Any | ts.TypeFlags.Null | ts.TypeFlags.Undefined))
      return checker.typeToString(type);
    if (f & (ts.TypeFlags.Never | ts.TypeFlags.Void)) return checker.typeToString(type);
    if (f & ts.TypeFlags.Literal || f & ts.TypeFlags.BooleanLiteral) return checker.typeToString(type);
    if (type.isUnion()) {
      const members = optional ? type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined)) : type.types;
      const parts = members.map((t) => print(t, depth + 1));
      // `boolean` is the union `true | false`: print it as written.
      const merged =
        parts.includes("true") && parts.includes("false")
          ? ["boolean", ...parts.filter((p) => p !== "true" && p !== "false")]
          : parts;
      return [...new Set(merged)].map((p) => (p.includes("=>") ? `(${p})` : p)).join(" | ");
    }
    if (checker.isArrayType(type)) {
      const [element] = checker.getTypeArguments(type as ts.TypeReference);
      const inner = print(element, depth + 1);
      return /[|&\s]/.test(inner) && !inner.startsWith("{") ? `(${inner})[]` : `${inner}[]`;
    }
    if (checker.isTupleType(type)) {
      return `[${checker
        .getTypeArguments(type as ts.TypeReference)
        .map((t) => print(t, depth + 1))
        .join(", ")}]`;
    }
    if (f & ts.TypeFlags.Object || type.isIntersection()) {
      if (type.getCallSignatures().length > 0)
        throw new Error(`cannot expand a function type: ${checker.typeToString(type)}`);
      const members: string[] = [];
      for (const info of checker.getIndexInfosOfType(type)) {
        members.push(`[key: ${checker.typeToString(info.keyType)}]: ${print(info.type, depth + 1)};`);
      }
      for (const prop of checker.getPropertiesOfType(type)) {
        const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
        const propType = checker.getTypeOfSymbol(prop);
        const doc = ts.displayPartsToString(prop.getDocumentationComment(checker)).trim();
        const name = /^[A-Za-z_$][\w$]*$/.test(prop.name) ? prop.name : JSON.stringify(prop.name);
        members.push(
          `${doc ? `/** ${doc.replace(/\*\//g, "* /")} */ ` : ""}${name}${optional ? "?" : ""}: ${print(propType, depth + 1, optional)};`,
        );
      }
      return members.length === 0 ? "{}" : `{\n${members.join("\n")}\n}`;
    }
    throw new Error(`cannot expand type ${checker.typeToString(type)}`);
  };
  return (type: ts.Type) => print(type, 0);
}

function writeObjects(): Set<string> {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("cannot read tsconfig.json");
  const program = ts.createProgram([OBJECTS_SOURCE], { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(OBJECTS_SOURCE)!;
  const moduleSymbol = checker.getSymbolAtLocation(source)!;
  const print = printer(checker);
  const names = new Set<string>();
  const out = [
    "/** The service's objects as plain types; generated from provider/schemas by scripts/build-typings.mts. */",
  ];
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const doc = ts.displayPartsToString(target.getDocumentationComment(checker)).trim();
    const text = print(checker.getDeclaredTypeOfSymbol(target));
    names.add(exported.name);
    out.push(`${doc ? `/** ${doc} */\n` : ""}export type ${exported.name} = ${text};`);
  }
  // Re-printed through the compiler so each object spans lines, as hand-written typings would.
  const parsed = ts.createSourceFile(OBJECTS_DTS, out.join("\n") + "\n", ts.ScriptTarget.Latest, true);
  fs.writeFileSync(OBJECTS_DTS, ts.createPrinter().printFile(parsed));
  return names;
}

/** The .d.ts a relative specifier in `from` names. */
function resolveDts(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.d.ts`, path.join(base, "index.d.ts")])
    if (fs.existsSync(candidate)) return candidate;
  throw new Error(`${path.relative(ROOT, from)}: cannot resolve ${specifier}`);
}

function rewriteGraph(objectNames: Set<string>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const queue = [path.join(DIST, "index.d.ts")];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = fs.readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const edits: { start: number; end: number; text: string }[] = [];
    const where = (node: ts.Node) =>
      `${path.relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node) => {
      let literal: ts.StringLiteral | undefined;
      let names: string[] | undefined;
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        literal = node.moduleSpecifier as ts.StringLiteral;
        const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
        names =
          bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))
            ? bindings.elements.map((e) => (e.propertyName ?? e.name).text)
            : undefined; // a namespace or star import of the schemas cannot be narrowed to objects
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
        literal = node.argument.literal as ts.StringLiteral;
      }
      if (literal) {
        const spec = literal.text;
        if (spec === "zod" || spec.startsWith("zod/")) problems.push(`${where(node)} imports ${spec}`);
        else if (spec.startsWith(".")) {
          const target = resolveDts(file, spec);
          if (target.startsWith(SCHEMAS_DIR)) {
            const missing =
              names === undefined ? ["(a whole-module import)"] : names.filter((n) => !objectNames.has(n));
            if (missing.length > 0 || ts.isImportTypeNode(node)) {
              problems.push(
                `${where(node)} needs ${missing.join(", ") || spec} from the schemas: add it to provider/client/objects.ts, or mark the declaration @internal`,
              );
            } else {
              let rel = path
                .relative(path.dirname(file), OBJECTS_DTS)
                .replace(/\.d\.ts$/, "")
                .split(path.sep)
                .join("/");
              if (!rel.startsWith(".")) rel = `./${rel}`;
              edits.push({ start: literal.getStart() + 1, end: literal.getEnd() - 1, text: rel });
              queue.push(OBJECTS_DTS);
            }
          } else queue.push(target);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    if (edits.length > 0) {
      let next = text;
      for (const e of edits.sort((a, b) => b.start - a.start))
        next = next.slice(0, e.start) + e.text + next.slice(e.end);
      fs.writeFileSync(file, next);
    }
  }
  return problems;
}

const problems = rewriteGraph(writeObjects());
if (problems.length > 0) {
  console.error("The root typings reach zod (see scripts/build-typings.mts):\n  " + problems.join("\n  "));
  process.exit(1);
}
