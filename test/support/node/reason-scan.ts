import path from "node:path";
import ts from "typescript";

/**
 * A static scan of src/ that ties every place a catalogue error is made (src/platform/errors/catalogue.ts:
 * `refused`, `badRequest`, `notFound`, `upstreamError`, `new FacilitatorError`) to the routes whose handlers can reach
 * it. From each `route({...})` call it follows the handler's code through every function, method and constant it
 * names (imports included, with TypeScript's own symbol resolution), and reads each error's reason from the reason
 * argument's type (a union of string literals gives each member) or, without one, the code's default reason.
 *
 * Its limits: it cannot see that a throw is guarded (the test names such places), and a call through a value whose
 * code is chosen at run time outside src/'s object literals and classes has no body to follow; such code is named
 * through `dispatch` (route key -> `file#export` to walk as well). Calls through an interface implemented by object
 * literals or classes of src/ are followed to every implementation.
 *
 * To see why a route reaches a throw: REASON_SCAN_TRACE="<route key> <file>:<line>" prints the chain of names.
 */
export interface ThrowSite {
  file: string;
  line: number;
  reasons: string[];
  /**
   * The reason argument's type is not a short union of literals (e.g. the whole ErrorReason type): name it narrower.
   */
  unbounded: boolean;
}

export interface RouteReach {
  key: string;
  file: string;
  sites: ThrowSite[];
}

const ROOT = path.resolve(import.meta.dirname, "../../..");
const SRC = path.join(ROOT, "src");
const CATALOGUE = path.join(SRC, "platform/errors/catalogue.ts");
const ROUTE_DEF = path.join(SRC, "http/route-def.ts");
/** More members than this and a reason type is taken as "any reason" rather than a list. */
const MAX_LITERAL_REASONS = 24;
const TRACE = process.env.REASON_SCAN_TRACE;

export function createSourceProgram(): ts.Program {
  const configPath = path.join(ROOT, "tsconfig.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!parsed) throw new Error("tsconfig.json could not be read");
  const roots = parsed.fileNames.filter((file) => path.resolve(file).startsWith(SRC + path.sep));
  return ts.createProgram({ rootNames: roots, options: parsed.options });
}

/** The routes declared with `route({...})` in src/, each with the error sites its handler can reach. */
export function scanRouteReasons(program: ts.Program, dispatch: Record<string, readonly string[]> = {}): RouteReach[] {
  const checker = program.getTypeChecker();
  const defaults = readDefaultReasons(program);
  const reaches: RouteReach[] = [];

  const implementationsOf = implementationIndex(program, checker);
  const catalogueKind = (node: ts.Node): string | null => {
    const symbol = resolve(checker, node);
    const declaration = symbol?.declarations?.[0];
    if (!declaration || path.resolve(declaration.getSourceFile().fileName) !== CATALOGUE) return null;
    return symbol!.name;
  };

  const sitesOf = (entry: ts.Node, extra: readonly string[], routeKey: string): ThrowSite[] => {
    const sites: ThrowSite[] = [];
    const seen = new Set<ts.Node>();
    const parents = new Map<ts.Node, ts.Node>();
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const site = siteOf(node);
        if (site) sites.push(site);
        if (site && TRACE && `${routeKey} ${site.file}:${site.line}`.includes(TRACE)) {
          const chain: string[] = [];
          let at: ts.Node | undefined = node;
          while (at && chain.length < 25) {
            const via = parents.get(at);
            if (via) {
              const viaFile = via.getSourceFile();
              const line = viaFile.getLineAndCharacterOfPosition(via.getStart()).line + 1;
              chain.push(`${via.getText().slice(0, 30)}@${path.relative(SRC, viaFile.fileName)}:${line}`);
              at = via;
            }
            at = at.parent;
          }
          console.log("TRACE", site.file, site.line, chain.join(" <- "));
        }
      }
      if (ts.isIdentifier(node)) follow(node);
      ts.forEachChild(node, visit);
    };
    const follow = (node: ts.Identifier): void => {
      const symbol = resolve(checker, node);
      for (const declaration of symbol?.declarations ?? []) {
        if (TRACE && !seen.has(declaration)) parents.set(declaration, node);
        walkDeclaration(declaration);
      }
    };
    const walkDeclaration = (declaration: ts.Declaration): void => {
      const file = path.resolve(declaration.getSourceFile().fileName);
      if (!file.startsWith(SRC + path.sep) || file === CATALOGUE || seen.has(declaration)) return;
      seen.add(declaration);
      if (ts.isPropertySignature(declaration) || ts.isMethodSignature(declaration)) {
        // A member of an interface: whichever object literal typed by that interface is called at run time.
        for (const implementation of implementationsOf(declaration)) {
          if (TRACE && !seen.has(implementation)) parents.set(implementation, parents.get(declaration) ?? declaration);
          walkDeclaration(implementation);
        }
        return;
      }
      if (ts.isVariableDeclaration(declaration)) {
        // A local's initializer is part of the function already walked; a module constant is followed unless it is an
        // object literal, whose members are followed one by one as they are used.
        const initializer = declaration.initializer && skipOuter(declaration.initializer);
        if (initializer && isModuleLevel(declaration) && !ts.isObjectLiteralExpression(initializer)) visit(initializer);
        return;
      }
      if (ts.isPropertyAssignment(declaration) || ts.isPropertyDeclaration(declaration)) {
        // A member holding code (a function, a reference to one, a factory's result), not a data value.
        const initializer = declaration.initializer && skipOuter(declaration.initializer);
        if (
          initializer &&
          (ts.isArrowFunction(initializer) ||
            ts.isFunctionExpression(initializer) ||
            ts.isIdentifier(initializer) ||
            ts.isCallExpression(initializer))
        )
          visit(initializer);
        return;
      }
      if (
        ts.isFunctionDeclaration(declaration) ||
        ts.isMethodDeclaration(declaration) ||
        ts.isClassDeclaration(declaration) ||
        ts.isShorthandPropertyAssignment(declaration) ||
        ts.isGetAccessorDeclaration(declaration)
      ) {
        visit(declaration);
      }
    };
    const siteOf = (node: ts.CallExpression | ts.NewExpression): ThrowSite | null => {
      const kind = catalogueKind(node.expression);
      if (kind === null) return null;
      const where = node.getSourceFile();
      const line = where.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const file = path.relative(ROOT, where.fileName);
      const args = node.arguments ?? [];
      const literalSet = (expression: ts.Expression | undefined): { values: string[]; unbounded: boolean } =>
        expression === undefined ? { values: [], unbounded: true } : literalsOf(checker, expression);
      switch (kind) {
        case "badRequest":
          return { file, line, reasons: ["invalid_request"], unbounded: false };
        case "notFound":
          return { file, line, reasons: ["not_found"], unbounded: false };
        case "upstreamError":
          return { file, line, reasons: ["facilitator_upstream_error"], unbounded: false };
        case "refused": {
          const { values, unbounded } = literalSet(args[0]);
          return { file, line, reasons: values, unbounded };
        }
        case "FacilitatorError": {
          const reasonProperty = optionProperty(args[2], "reason");
          if (reasonProperty !== undefined) {
            const { values, unbounded } = literalSet(reasonProperty);
            return { file, line, reasons: values, unbounded };
          }
          const codes = literalSet(args[0]);
          return {
            file,
            line,
            reasons: codes.values.map((code) => defaults[code] ?? `?${code}`),
            unbounded: codes.unbounded,
          };
        }
        default:
          return null;
      }
    };
    visit(entry);
    for (const name of extra) {
      const [file, exported] = name.split("#") as [string, string];
      const source = program.getSourceFile(path.join(SRC, file));
      if (!source) throw new Error(`dispatch target ${name}: no such file`);
      const moduleSymbol = checker.getSymbolAtLocation(source);
      const symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === exported);
      if (!symbol) throw new Error(`dispatch target ${name}: no such export`);
      for (const declaration of resolveAlias(checker, symbol).declarations ?? []) walkDeclaration(declaration);
    }
    return sites;
  };

  for (const source of program.getSourceFiles()) {
    const file = path.resolve(source.fileName);
    if (!file.startsWith(SRC + path.sep)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && isRouteCall(checker, node)) {
        const spec = node.arguments[0];
        if (spec && ts.isObjectLiteralExpression(spec)) {
          const entries = ["handler", "invalidInput"]
            .map((name) => propertyNode(spec, name))
            .filter((n): n is ts.Node => n !== undefined);
          for (const key of routeKeys(spec)) {
            const sites = entries.flatMap((entry) => sitesOf(entry, dispatch[key] ?? [], key));
            reaches.push({ key, file: path.relative(ROOT, file), sites });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return reaches;
}

function isRouteCall(checker: ts.TypeChecker, call: ts.CallExpression): boolean {
  const symbol = resolve(checker, call.expression);
  const declaration = symbol?.declarations?.[0];
  return (
    symbol?.name === "route" &&
    declaration !== undefined &&
    path.resolve(declaration.getSourceFile().fileName) === ROUTE_DEF
  );
}

function resolve(checker: ts.TypeChecker, node: ts.Node): ts.Symbol | undefined {
  const symbol = checker.getSymbolAtLocation(node);
  return symbol ? resolveAlias(checker, symbol) : undefined;
}

function resolveAlias(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

function propertyNode(object: ts.ObjectLiteralExpression, name: string): ts.Node | undefined {
  return object.properties.find((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === name);
}

function optionProperty(expression: ts.Expression | undefined, name: string): ts.Expression | undefined {
  if (!expression || !ts.isObjectLiteralExpression(expression)) return undefined;
  const property = propertyNode(expression, name);
  if (property === undefined) return undefined;
  if (ts.isPropertyAssignment(property)) return property.initializer;
  if (ts.isShorthandPropertyAssignment(property)) return property.name;
  return undefined;
}

/** The string literals an expression's type allows; `unbounded` when it allows any string or too many to be a list. */
function literalsOf(checker: ts.TypeChecker, expression: ts.Expression): { values: string[]; unbounded: boolean } {
  const type = checker.getTypeAtLocation(expression);
  const members = type.isUnion() ? type.types : [type];
  const values = members.filter((t) => t.isStringLiteral()).map((t) => (t as ts.StringLiteralType).value);
  const unbounded = values.length !== members.length || values.length > MAX_LITERAL_REASONS;
  return { values: unbounded ? [] : values, unbounded };
}

/** `DEFAULT_REASON` of the catalogue, read from its source (code -> reason). */
function readDefaultReasons(program: ts.Program): Record<string, string> {
  const source = program.getSourceFile(CATALOGUE);
  if (!source) throw new Error("catalogue not in the program");
  const defaults: Record<string, string> = {};
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === "DEFAULT_REASON" &&
      node.initializer &&
      ts.isObjectLiteralExpression(node.initializer)
    ) {
      for (const property of node.initializer.properties) {
        if (
          ts.isPropertyAssignment(property) &&
          ts.isIdentifier(property.name) &&
          ts.isStringLiteral(property.initializer)
        ) {
          defaults[property.name.text] = property.initializer.text;
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return defaults;
}

function skipOuter(expression: ts.Expression): ts.Expression {
  let current = expression;
  while (ts.isAsExpression(current) || ts.isSatisfiesExpression(current) || ts.isParenthesizedExpression(current))
    current = current.expression;
  return current;
}

/**
 * Members of src/'s object literals and classes, by the interface member they implement (an object literal's
 * contextual type, a class's `implements`), so a call through an interface reaches every implementation.
 */
function implementationIndex(
  program: ts.Program,
  checker: ts.TypeChecker,
): (member: ts.Declaration) => ts.Declaration[] {
  let index: Map<ts.Declaration, ts.Declaration[]> | null = null;
  const build = (): Map<ts.Declaration, ts.Declaration[]> => {
    const map = new Map<ts.Declaration, ts.Declaration[]>();
    const add = (typeSymbolType: ts.Type | undefined, name: string, implementation: ts.Declaration): void => {
      if (!typeSymbolType) return;
      for (const part of typeSymbolType.isUnion() ? typeSymbolType.types : [typeSymbolType]) {
        const member = part.getProperty(name);
        for (const declaration of member?.declarations ?? []) {
          if (declaration === implementation) continue;
          if (!ts.isPropertySignature(declaration) && !ts.isMethodSignature(declaration)) continue;
          (map.get(declaration) ?? map.set(declaration, []).get(declaration)!).push(implementation);
        }
      }
    };
    for (const source of program.getSourceFiles()) {
      if (!path.resolve(source.fileName).startsWith(SRC + path.sep)) continue;
      const visit = (node: ts.Node): void => {
        // A route's own spec is entered from its route alone (each route is checked on its own).
        const isRouteSpec =
          ts.isCallExpression(node.parent ?? node) &&
          ts.isIdentifier((node.parent as ts.CallExpression).expression) &&
          ((node.parent as ts.CallExpression).expression as ts.Identifier).text === "route";
        if (ts.isObjectLiteralExpression(node) && !isRouteSpec) {
          const contextual = checker.getContextualType(node);
          for (const property of node.properties) {
            if (property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)))
              add(contextual, property.name.text, property);
          }
        }
        if (ts.isClassDeclaration(node)) {
          for (const clause of node.heritageClauses ?? []) {
            for (const type of clause.types) {
              const implemented = checker.getTypeAtLocation(type);
              for (const member of node.members) {
                if (member.name && ts.isIdentifier(member.name)) add(implemented, member.name.text, member);
              }
            }
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    return map;
  };
  return (member) => {
    index ??= build();
    return index.get(member) ?? [];
  };
}

function isModuleLevel(declaration: ts.VariableDeclaration): boolean {
  return ts.isVariableStatement(declaration.parent.parent) && ts.isSourceFile(declaration.parent.parent.parent);
}

/**
 * The keys a `route({...})` call is made with: its literal `key`, or, inside a local factory
 * (`const post = (key: string, …) => route({ key, … })`), the literal each call of that factory passes.
 */
function routeKeys(spec: ts.ObjectLiteralExpression): string[] {
  const key = optionProperty(spec, "key");
  if (key === undefined) throw new Error(`route without key at ${where(spec)}`);
  if (ts.isStringLiteral(key)) return [key.text];
  let factory: ts.Node | undefined = spec.parent;
  while (factory && !ts.isArrowFunction(factory) && !ts.isFunctionExpression(factory)) factory = factory.parent;
  const name = ts.isIdentifier(key) ? key.text : undefined;
  const index = factory
    ? (factory as ts.ArrowFunction).parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === name)
    : -1;
  const holder = factory?.parent;
  if (index < 0 || !holder || !ts.isVariableDeclaration(holder) || !ts.isIdentifier(holder.name))
    throw new Error(`route key not a literal nor a factory parameter at ${where(spec)}`);
  const factoryName = holder.name.text;
  const keys: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === factoryName) {
      const argument = node.arguments[index];
      if (!argument || !ts.isStringLiteral(argument))
        throw new Error(`${factoryName}(...) without a literal key at ${where(node)}`);
      keys.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(holder.parent.parent.parent);
  return keys;
}

function where(node: ts.Node): string {
  const source = node.getSourceFile();
  return `${path.relative(ROOT, source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
}
