/**
 * Upload Audio's Custom Template ID as a picker: a template chosen from the workspace's list (or by
 * ID) reaches the init; the plain string saved by workflows before the picker still does; a template
 * the service does not know is a clear error for that item.
 */
import { NodeApiError } from 'n8n-workflow';

import { fakeTemplates, resetTemplateStore } from '../../fake-api/routes/template';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { item, TranscriptionRig, uploadParameters } from '../../support/transcriptionRig';

const rig = new TranscriptionRig();

beforeAll(async () => {
	await rig.start();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => await rig.stop());
beforeEach(() => {
	rig.reset();
	resetTemplateStore(fakeTemplates(rig.api));
	// Only the template store's ids count as the workspace's, not the transcription fake's own list.
	rig.fake.setOptions({ customTemplateIds: [] });
});

const customRow = (customTemplateId: unknown) => ({
	outputTemplates: {
		templates: [{ template: 'custom', customTemplateId, codificationNeeded: false }],
	},
});

async function uploadWith(customTemplateId: unknown, txnId: string) {
	return await rig.run(uploadParameters({ transactionId: txnId, ...customRow(customTemplateId) }), {
		items: [item({ data: rig.storedBinary(rig.audioFile('a.wav', 2000)) })],
	});
}

describe('Upload Audio: Custom Template ID', () => {
	test('a template picked from the list (resource locator) reaches the init', async () => {
		fakeTemplates(rig.api).templates.set('tpl_referral', {
			id: 'tpl_referral',
			title: 'Referral Letter',
			desc: 'A referral letter',
			section_ids: [],
			default: false,
			is_favorite: false,
			archived: false,
		});
		const output = await uploadWith(
			{ __rl: true, mode: 'list', value: 'tpl_referral', cachedResultName: 'Referral Letter' },
			'visit-list',
		);
		expect(output[0].json.upload_status).toBe('uploaded');
		expect(rig.fake.transaction('visit-list')!.initBody!.output_format_template).toEqual([
			{ template_id: 'tpl_referral', codification_needed: false },
		]);
	});

	test('by ID, and the plain string of workflows saved before the picker, alike', async () => {
		await uploadWith({ __rl: true, mode: 'id', value: ' tpl-soap-note ' }, 'visit-id');
		await uploadWith('tpl-soap-note', 'visit-string');
		for (const txnId of ['visit-id', 'visit-string']) {
			expect(rig.fake.transaction(txnId)!.initBody!.output_format_template).toEqual([
				{ template_id: 'tpl-soap-note', codification_needed: false },
			]);
		}
	});

	test('an empty picker is refused before anything is sent, in either shape', async () => {
		for (const empty of [{ __rl: true, mode: 'list', value: '' }, '']) {
			await expect(uploadWith(empty, 'visit-empty')).rejects.toMatchObject({
				message: 'An output template of item 0 is Custom but its Custom Template ID is empty',
			});
		}
		expect(rig.api.requests).toHaveLength(0);
	});

	test('a template the service does not know (deleted, or a typo) fails that item with what the service said', async () => {
		const error = await uploadWith(
			{ __rl: true, mode: 'id', value: 'tpl_deleted' },
			'visit-unknown',
		).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toContain(
			'(HTTP 400 invalid_template_id): unknown template_id tpl_deleted',
		);
		expect((error as NodeApiError).description).toContain(
			'Pick it from the Custom Template ID list',
		);
		expect(rig.api.requestsTo('/voice/api/v2/transaction/init/', 'POST')).toHaveLength(1);
	});
});
