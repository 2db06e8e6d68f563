/**
 * Records an installed community package in n8n's SQLite database, with the rows n8n 2.41 writes
 * after an install from Settings → Community nodes (InstalledPackagesRepository.persistPackageWithNodes):
 * one `installed_packages` row (name, version, author) and one `installed_nodes` row per node
 * (display name, `<package>.<node name>`, latest version). n8n lists Settings → Community nodes from
 * these rows; without them a package in .n8n/nodes loads and runs but is not listed.
 *
 * Run by test/support/n8n.ts with n8n's Node 24 (for node:sqlite) and NODE_PATH set to n8n's
 * node_modules (the package's nodes import n8n-workflow, which n8n provides):
 *   node n8nRecordCommunityPackage.cjs <database.sqlite> <table prefix> <installed package folder>
 * Prints the recorded package as JSON. Replaces an earlier record of the same package.
 */
'use strict';
const { readFileSync } = require('node:fs');
const { join, parse } = require('node:path');
const { DatabaseSync } = require('node:sqlite');

const [databasePath, tablePrefix, packageDirectory] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8'));

/** What n8n-core's directory loader takes from each node file: class by file name, name, version. */
function loadedNode(file) {
	const path = join(packageDirectory, file);
	const [className] = parse(path).name.split('.');
	const node = new (require(path)[className])();
	const version =
		'nodeVersions' in node
			? node.currentVersion
			: Array.isArray(node.description.version)
				? node.description.version.slice(-1)[0]
				: node.description.version;
	return {
		name: node.description.displayName,
		type: `${manifest.name}.${node.description.name}`,
		latestVersion: version,
	};
}

const nodes = ((manifest.n8n && manifest.n8n.nodes) || []).map(loadedNode);
// As TypeORM writes datetime(3) columns in SQLite.
const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
const record = {
	packageName: manifest.name,
	installedVersion: manifest.version,
	// n8n reads author.name / author.email (an author string gives none).
	authorName: (manifest.author && manifest.author.name) || null,
	authorEmail: (manifest.author && manifest.author.email) || null,
	installedNodes: nodes,
};

const table = (name) => `"${tablePrefix}${name}"`;
const db = new DatabaseSync(databasePath);
try {
	// n8n may be running (it keeps the database in WAL mode): wait for its writes instead of failing.
	db.exec('PRAGMA busy_timeout = 15000');
	db.exec('BEGIN IMMEDIATE');
	try {
		db.prepare(`DELETE FROM ${table('installed_nodes')} WHERE "package" = ?`).run(
			record.packageName,
		);
		db.prepare(`DELETE FROM ${table('installed_packages')} WHERE "packageName" = ?`).run(
			record.packageName,
		);
		db.prepare(
			`INSERT INTO ${table('installed_packages')} ("packageName", "installedVersion", "authorName", "authorEmail", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?)`,
		).run(
			record.packageName,
			record.installedVersion,
			record.authorName,
			record.authorEmail,
			now,
			now,
		);
		const insertNode = db.prepare(
			`INSERT INTO ${table('installed_nodes')} ("name", "type", "latestVersion", "package") VALUES (?, ?, ?, ?)`,
		);
		for (const node of nodes)
			insertNode.run(node.name, node.type, node.latestVersion, record.packageName);
		db.exec('COMMIT');
	} catch (error) {
		db.exec('ROLLBACK');
		throw error;
	}
} finally {
	db.close();
}
process.stdout.write(`${JSON.stringify(record)}\n`);
