/**
 * Found where users look: n8n's node panel searches a node's display name and its codex aliases
 * (the `alias` of <Node>.node.json, which n8n's loader puts into `codex.alias`). In a real n8n 2.41.1
 * with the package installed as a community package, the node types the editor loads
 * (/types/nodes.json) carry the aliases, and searching them for the service's name or for what
 * the nodes do finds both nodes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { packedPackageForTests, REPO_ROOT } from '../support/n8n/install';
import { N8nInstance } from '../support/n8n/instance';
import { E2E_OWNER } from '../support/n8n/trigger';
import { ACTION_NODE_TYPE, TRIGGER_NODE_TYPE } from '../support/n8n/workflows';

jest.setTimeout(5 * 60_000);

interface LoadedNodeType {
	name: string;
	displayName: string;
	codex?: { alias?: string[]; categories?: string[] };
}

let n8n: N8nInstance;
let loaded: LoadedNodeType[];

beforeAll(async () => {
	n8n = await N8nInstance.create({ packageTarball: await packedPackageForTests() });
	await n8n.start();
	await n8n.ensureOwner(E2E_OWNER);
	loaded = await n8n.getJson<LoadedNodeType[]>('/types/nodes.json');
});

afterAll(async () => {
	await n8n?.dispose();
});

/** Node types whose display name or an alias contains the query, as the panel's search matches them. */
function search(query: string): string[] {
	const needle = query.toLowerCase();
	return loaded
		.filter((type) =>
			[type.displayName, ...(type.codex?.alias ?? [])].some((text) =>
				text.toLowerCase().includes(needle),
			),
		)
		.map((type) => type.name);
}

test('both nodes carry the aliases of their codex files', () => {
	for (const [type, file] of [
		[ACTION_NODE_TYPE, 'ClinicScribe.node.json'],
		[TRIGGER_NODE_TYPE, 'ClinicScribeTrigger.node.json'],
	]) {
		const codex = JSON.parse(readFileSync(join(REPO_ROOT, 'nodes/ClinicScribe', file), 'utf8')) as {
			alias: string[];
		};
		expect(loaded.find((entry) => entry.name === type)?.codex?.alias).toEqual(codex.alias);
	}
});

test.each(['Eka', 'EkaScribe', 'scribe', 'transcription', 'appointment', 'prescription'])(
	'searching "%s" finds both nodes',
	(query) => {
		expect(search(query)).toEqual(expect.arrayContaining([ACTION_NODE_TYPE, TRIGGER_NODE_TYPE]));
	},
);
