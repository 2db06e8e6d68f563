/**
 * The examples are what a new user imports first: each Clinic Scribe node in them is saved with the
 * node's newest version, the one the nodes panel adds, so an example never shows an option the
 * panel's node does not (the trigger's version 1 still shows the deprecated Signing Key option).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import type { INodeTypeDescription } from 'n8n-workflow';

import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { ClinicScribeTrigger } from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';
import { ACTION_NODE_TYPE, TRIGGER_NODE_TYPE } from '../../support/n8n/workflows';

const EXAMPLES = resolve(__dirname, '../../../examples');

/** The version n8n gives a node added from the panel: defaultVersion, else the highest. */
function newestVersion(description: INodeTypeDescription): number {
	const versions = Array.isArray(description.version) ? description.version : [description.version];
	return description.defaultVersion ?? Math.max(...versions);
}

const NEWEST: Record<string, number> = {
	[ACTION_NODE_TYPE]: newestVersion(new ClinicScribe().description),
	[TRIGGER_NODE_TYPE]: newestVersion(new ClinicScribeTrigger().description),
};

const files = readdirSync(EXAMPLES).filter((name) => name.endsWith('.json'));

interface SavedNode {
	name: string;
	type: string;
	typeVersion: number;
}

describe('examples are saved with the newest node versions', () => {
	it('the version the nodes panel adds is each node\'s highest (so "newest" means one thing)', () => {
		for (const description of [
			new ClinicScribe().description,
			new ClinicScribeTrigger().description,
		]) {
			const versions = Array.isArray(description.version)
				? description.version
				: [description.version];
			expect(newestVersion(description)).toBe(Math.max(...versions));
		}
		expect(files.length).toBeGreaterThan(0);
	});

	it.each(files)('%s: every Clinic Scribe node has its newest version', (file) => {
		const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as {
			nodes: SavedNode[];
		};
		const ours = workflow.nodes.filter((node) => node.type in NEWEST);
		expect(ours.length).toBeGreaterThan(0);
		const older = ours
			.filter((node) => node.typeVersion !== NEWEST[node.type])
			.map((node) => `${node.name}: ${node.typeVersion} (newest ${NEWEST[node.type]})`);
		expect(older).toEqual([]);
	});
});
