/**
 * What the n8n editor shows from the nodes' and the credential's descriptions: subtitles, operation
 * names, the Workspace API Key's required marker, where Custom Template ID appears, documentation
 * links. The browser test (test/browser/) proves the same in a real n8n; these fail fast.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { ClinicScribeApi } from '../../../credentials/ClinicScribeApi.credentials';
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import {
	ClinicScribeTrigger,
	ENTRY_DESCRIPTION,
} from '../../../nodes/ClinicScribe/ClinicScribeTrigger.node';

const action = new ClinicScribe().description;
const trigger = new ClinicScribeTrigger().description;
const credential = new ClinicScribeApi();

/** Evaluates a `={{ … }}` subtitle the way n8n does for plain JavaScript, with $parameter only. */
function subtitleFor(subtitle: string | undefined, parameters: Record<string, unknown>): unknown {
	const match = /^=\{\{([\s\S]*)\}\}$/.exec(subtitle ?? '');
	if (!match) throw new Error(`not an expression: ${subtitle}`);
	return new Function('$parameter', `return (${match[1]});`)(parameters);
}

/** Whether n8n shows `property` for these values (displayOptions.show, values compared as n8n does). */
function shown(property: INodeProperties, values: Record<string, unknown>): boolean {
	const show = property.displayOptions?.show ?? {};
	return Object.entries(show).every(([name, allowed]) =>
		(allowed as unknown[]).includes(values[name]),
	);
}

/** What a node of the newest version offers (an operation list kept for version 1 only is left out). */
function operationOptions(): INodePropertyOptions[] {
	const versionOneOnly = (p: INodeProperties) =>
		JSON.stringify(p.displayOptions?.show?.['@version']) === '[1]';
	return action.properties
		.filter(
			(p) =>
				p.name === 'operation' &&
				!p.displayOptions?.show?.['@tool']?.includes(true) &&
				!versionOneOnly(p),
		)
		.flatMap((p) => (p.options ?? []) as INodePropertyOptions[]);
}

describe('subtitles show what the user picked, by its display name', () => {
	it.each([
		['uploadAudio', 'Upload Audio'],
		['getResults', 'Get Results'],
		['convertTranscript', 'Convert Transcript'],
		['cancelSession', 'Cancel Session'],
		['getSessionAudio', 'Get Session Audio'],
		['saveEditedNotes', 'Save Edited Notes'],
		['getEntities', 'Get Many Entities'],
		['getServices', 'Get Many Services'],
		['searchByMobile', 'Search by Mobile (Deprecated)'],
		['findByMobile', 'Search by Mobile'],
		['getAll', 'Get Many'],
		['delete', 'Delete'],
	])('operation %s → "%s"', (operation, expected) => {
		expect(subtitleFor(action.subtitle, { resource: 'x', operation })).toBe(expected);
	});

	it('shows a value it has no name for as it is (say an expression gave it)', () => {
		expect(subtitleFor(action.subtitle, { operation: 'somethingNew' })).toBe('somethingNew');
	});

	it('names the trigger events, several joined by commas', () => {
		expect(subtitleFor(trigger.subtitle, { events: ['v2rx.completed'] })).toBe(
			'Transcription Completed',
		);
		expect(subtitleFor(trigger.subtitle, { events: ['v2rx.completed', 'v2rx.failed'] })).toBe(
			'Transcription Completed, v2rx.failed',
		);
		expect(subtitleFor(trigger.subtitle, { events: [] })).toBe('');
	});
});

describe("operation names follow n8n's conventions; stored values stay", () => {
	it('names, actions and values', () => {
		expect(operationOptions().map((o) => [o.value, o.name, o.action])).toEqual([
			['book', 'Book', 'Book an appointment'],
			['cancel', 'Cancel', 'Cancel an appointment'],
			['complete', 'Complete', 'Complete an appointment'],
			['get', 'Get', 'Get an appointment'],
			['getAll', 'Get Many', 'Get many appointments'],
			['getSlots', 'Get Slots', 'Get slots of a doctor'],
			['noShow', 'Mark No-Show', 'Mark an appointment as no show'],
			['park', 'Park', 'Park an appointment'],
			['reschedule', 'Reschedule', 'Reschedule an appointment'],
			['update', 'Update', 'Update an appointment'],
			['getEntities', 'Get Many Entities', 'Get many entities'],
			['getServices', 'Get Many Services', 'Get many services of a doctor'],
			['linkTerms', 'Link Terms', 'Link medical terms to codes'],
			['archive', 'Archive', 'Archive a patient'],
			['create', 'Create', 'Create a patient'],
			['get', 'Get', 'Get a patient'],
			['getAll', 'Get Many', 'Get many patients'],
			['search', 'Search', 'Search patients'],
			['findByMobile', 'Search by Mobile', 'Search patients by mobile in the directory'],
			['searchByMobile', 'Search by Mobile (Deprecated)', 'Search patients by mobile number'],
			['update', 'Update', 'Update a patient'],
			['get', 'Get', 'Get a prescription'],
			['create', 'Create', 'Create a template'],
			['delete', 'Delete', 'Delete a template'],
			['get', 'Get', 'Get a template'],
			['getAll', 'Get Many', 'Get many templates'],
			['update', 'Update', 'Update a template'],
			['cancelSession', 'Cancel Session', 'Cancel a session'],
			['convertTranscript', 'Convert Transcript', 'Convert a transcript to a clinical document'],
			['getResults', 'Get Results', 'Get the results of a transcription'],
			['getSessionAudio', 'Get Session Audio', 'Get the audio of a session'],
			['saveEditedNotes', 'Save Edited Notes', "Save a doctor's edited notes"],
			['uploadAudio', 'Upload Audio', 'Upload audio for transcription'],
		]);
	});

	it('every action is sentence case (only its first letter upper case)', () => {
		for (const option of operationOptions()) {
			const action = option.action ?? '';
			expect(action.slice(1)).toBe(action.slice(1).toLowerCase());
		}
	});
});

describe('the node panel entry', () => {
	it("n8n gives the merged entry the trigger's description: it speaks for the actions and the trigger", () => {
		expect(trigger.description).toBe(ENTRY_DESCRIPTION);
		expect(ENTRY_DESCRIPTION).toMatch(
			/^Transcribe consultations .* appointments and patients, and start workflows on clinic events or when a transcription completes$/,
		);
	});
});

describe('credential: Workspace API Key', () => {
	const apiKeyFields = credential.properties.filter((p) => p.name === 'apiKey');

	it("is required (n8n shows its marker) with the interface document's variant", () => {
		const visible = apiKeyFields.filter((p) =>
			shown(p, { apiVariant: 'document', authMethod: 'clientCredentials' }),
		);
		expect(visible.map((p) => [p.displayName, p.required === true])).toEqual([
			['Workspace API Key', true],
		]);
	});

	it('is optional with the public variant, stored under the same name (saved credentials keep their key)', () => {
		const visible = apiKeyFields.filter((p) =>
			shown(p, { apiVariant: 'public', authMethod: 'clientCredentials' }),
		);
		expect(visible.map((p) => [p.displayName, p.required === true])).toEqual([
			['Workspace API Key', false],
		]);
	});

	it('is not shown with an access token', () => {
		expect(
			apiKeyFields.filter((p) => shown(p, { apiVariant: 'document', authMethod: 'accessToken' })),
		).toEqual([]);
	});
});

describe('Upload Audio: Custom Template ID', () => {
	const templates = action.properties.find((p) => p.name === 'outputTemplates');
	const row = (templates?.options as INodePropertyCollection[])[0].values;
	const customId = row.find((p) => p.name === 'customTemplateId') as INodeProperties;

	it.each([
		['clinical_notes_template', false],
		['emr', false],
		['transcript_template', false],
		['custom', true],
	])('template %s → shown: %s', (template, expected) => {
		expect(shown(customId, { template })).toBe(expected);
	});

	it('is not `required` (n8n would then refuse to run workflows whose rows are not custom)', () => {
		expect(customId.required).toBeUndefined();
	});
});

describe('documentation links survive the query string n8n appends', () => {
	const codexUrls = ['ClinicScribe.node.json', 'ClinicScribeTrigger.node.json'].flatMap((file) => {
		const codex = JSON.parse(
			readFileSync(join(__dirname, '../../../nodes/ClinicScribe', file), 'utf8'),
		) as {
			resources: Record<string, Array<{ url: string }>>;
		};
		return Object.values(codex.resources).flatMap((links) => links.map((l) => l.url));
	});

	it.each(codexUrls.map((url) => ['codex', url]))('%s %s has no #fragment', (_where, url) => {
		expect(url).toBe(
			'https://github.com/clinic-scribe/n8n-nodes-clinic-scribe/blob/main/README.md',
		);
	});

	// n8n 1.123 and 2.41 open a credential's documentationUrl on another host than docs.n8n.io as it
	// is (no query appended), so it may point at a heading (readme.test.ts checks the heading exists).
	it('the credential links to the section of docs/credentials.md on its fields', () => {
		expect(credential.documentationUrl).toBe(
			'https://github.com/clinic-scribe/n8n-nodes-clinic-scribe/blob/main/docs/credentials.md#clinic-scribe-api',
		);
	});
});
