/**
 * Import cycles among TypeScript files: the graph of relative imports (read with the TypeScript
 * parser, so comments and strings never count), its strongly connected components (Tarjan), and one
 * cycle through each. Imports that compile to nothing (`import type`, or only `type` names) are left
 * out unless asked for: they create no load-order dependency.
 *
 * Used by `npm run check:cycles` (scripts/check-import-cycles.ts) and its test.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import ts from 'typescript';

export interface CycleOptions {
	/** Count type-only imports too. */
	includeTypeOnly?: boolean;
}

/** Every .ts file below the folders (declaration files left out), as absolute paths. */
export function typeScriptFiles(folders: string[]): string[] {
	const found: string[] = [];
	const walk = (folder: string) => {
		for (const name of readdirSync(folder).sort()) {
			const path = join(folder, name);
			if (statSync(path).isDirectory()) walk(path);
			else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(path);
		}
	};
	for (const folder of folders) if (existsSync(folder)) walk(resolve(folder));
	return found;
}

/** The module specifiers a file imports or re-exports at run time (or at all, with includeTypeOnly). */
export function importedSpecifiers(
	source: string,
	fileName: string,
	options: CycleOptions = {},
): string[] {
	const file = ts.createSourceFile(
		fileName,
		source,
		ts.ScriptTarget.Latest,
		false,
		ts.ScriptKind.TS,
	);
	const specifiers: string[] = [];
	for (const statement of file.statements) {
		if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
			if (options.includeTypeOnly || !importsOnlyTypes(statement))
				specifiers.push(statement.moduleSpecifier.text);
		} else if (
			ts.isExportDeclaration(statement) &&
			statement.moduleSpecifier &&
			ts.isStringLiteral(statement.moduleSpecifier)
		) {
			if (options.includeTypeOnly || !exportsOnlyTypes(statement))
				specifiers.push(statement.moduleSpecifier.text);
		}
	}
	return specifiers;
}

function importsOnlyTypes(declaration: ts.ImportDeclaration): boolean {
	const clause = declaration.importClause;
	if (!clause) return false; // `import './x'` runs the module
	if (clause.isTypeOnly) return true;
	if (clause.name) return false;
	const bindings = clause.namedBindings;
	return (
		bindings !== undefined &&
		ts.isNamedImports(bindings) &&
		bindings.elements.length > 0 &&
		bindings.elements.every((element) => element.isTypeOnly)
	);
}

function exportsOnlyTypes(declaration: ts.ExportDeclaration): boolean {
	if (declaration.isTypeOnly) return true;
	const clause = declaration.exportClause;
	return (
		clause !== undefined &&
		ts.isNamedExports(clause) &&
		clause.elements.length > 0 &&
		clause.elements.every((element) => element.isTypeOnly)
	);
}

/** File → the files among `files` it imports (relative specifiers resolved as TypeScript does: x.ts, x/index.ts). */
export function importGraph(files: string[], options: CycleOptions = {}): Map<string, string[]> {
	const known = new Set(files);
	const graph = new Map<string, string[]>();
	for (const file of files) {
		const targets = importedSpecifiers(readFileSync(file, 'utf8'), file, options)
			.filter((specifier) => specifier.startsWith('.'))
			.map((specifier) => {
				const base = resolve(dirname(file), specifier);
				return [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) =>
					known.has(candidate),
				);
			})
			.filter((target): target is string => target !== undefined);
		graph.set(file, [...new Set(targets)]);
	}
	return graph;
}

/** The graph's strongly connected components that hold a cycle (two files or more, or a file importing itself). */
export function cyclicComponents(graph: Map<string, string[]>): string[][] {
	let counter = 0;
	const index = new Map<string, number>();
	const lowLink = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const components: string[][] = [];

	const visit = (node: string) => {
		index.set(node, counter);
		lowLink.set(node, counter);
		counter += 1;
		stack.push(node);
		onStack.add(node);
		for (const next of graph.get(node) ?? []) {
			if (!index.has(next)) {
				visit(next);
				lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
			} else if (onStack.has(next)) {
				lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
			}
		}
		if (lowLink.get(node) === index.get(node)) {
			const component: string[] = [];
			let member: string;
			do {
				member = stack.pop()!;
				onStack.delete(member);
				component.push(member);
			} while (member !== node);
			if (component.length > 1 || (graph.get(node) ?? []).includes(node))
				components.push(component.sort());
		}
	};
	for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
	return components;
}

/** One cycle inside a component, as a chain that ends where it starts. */
export function cycleThrough(component: string[], graph: Map<string, string[]>): string[] {
	const inside = new Set(component);
	const start = component[0];
	// Breadth-first from the start back to it, staying inside the component: the shortest cycle.
	const cameFrom = new Map<string, string>();
	const queue = [start];
	while (queue.length > 0) {
		const node = queue.shift()!;
		for (const next of graph.get(node) ?? []) {
			if (!inside.has(next)) continue;
			if (next === start) {
				const chain = [node];
				while (chain[0] !== start) chain.unshift(cameFrom.get(chain[0])!);
				return [...chain, start];
			}
			if (!cameFrom.has(next)) {
				cameFrom.set(next, node);
				queue.push(next);
			}
		}
	}
	return [start, start];
}

/** Each cycle among the folders' files, as chains of paths relative to `root`. */
export function findImportCycles(
	folders: string[],
	root: string,
	options: CycleOptions = {},
): string[][] {
	const graph = importGraph(
		typeScriptFiles(folders.map((folder) => resolve(root, folder))),
		options,
	);
	return cyclicComponents(graph).map((component) =>
		cycleThrough(component, graph).map((file) => relative(root, file)),
	);
}
