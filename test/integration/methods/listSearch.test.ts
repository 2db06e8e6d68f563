/**
 * The pickers of the node's fields (methods/listSearch.ts) over real HTTP against the project's fake
 * clinic API: the Clinic and Doctor pickers read the business's entities, the Template picker the
 * workspace's templates; each filters by the text typed, whatever its case.
 */
import { ClinicScribe } from '../../../nodes/ClinicScribe/ClinicScribe.node';
import { createExecuteContext } from '../../support/nodeContext';
import { useTemplateCalls } from '../../support/templateCalls';

const node = new ClinicScribe();
// The template store as the Template tests have it; the entities are the fake's own.
const t = useTemplateCalls();
const { credentials } = t;

type Picker = 'searchClinics' | 'searchDoctors' | 'searchTemplates';

/** The picker's list as the editor asks for it, with the search text typed (if any). */
async function pick(picker: Picker, search?: string) {
	const { context } = createExecuteContext({ credentials: credentials(), parameters: {} });
	return await node.methods.listSearch[picker].call(context as never, search);
}

/** The business's entities answer these clinics and doctors instead of the fake's own. */
function answerEntities(data: { clinics: object[]; doctors: object[] }): void {
	t.api.injectFault({
		method: 'GET',
		path: '/dr/v1/business/entities',
		times: Infinity,
		fault: { kind: 'status', status: 200, body: { status_code: 200, success: true, data } },
	});
}

describe('Clinic picker', () => {
	it("lists the business's clinics, filtered by name", async () => {
		const all = await pick('searchClinics');
		expect(all.results).toEqual([
			{ name: 'Sunrise Clinic Indiranagar', value: 'c-1001' },
			{ name: 'Sunrise Clinic Koramangala', value: 'c-1002' },
		]);
		expect((await pick('searchClinics', 'kora')).results).toEqual([
			{ name: 'Sunrise Clinic Koramangala', value: 'c-1002' },
		]);
	});

	it('finds a clinic by an ID with capitals, whatever the case of the search text', async () => {
		const entities = {
			doctors: [],
			clinics: [
				{ name: 'Sunrise Clinic Indiranagar', clinic_id: 'CL-Indira-7' },
				{ name: 'Sunrise Clinic Koramangala', clinic_id: 'CL-Kora-9' },
			],
		};
		answerEntities(entities);
		for (const search of ['cl-kora', 'CL-KORA-9', 'Kora-9']) {
			expect((await pick('searchClinics', search)).results).toEqual([
				{ name: 'Sunrise Clinic Koramangala', value: 'CL-Kora-9' },
			]);
		}
	});
});

describe('Doctor picker', () => {
	it('lists doctors for the Doctor picker, filtered by name', async () => {
		const all = await pick('searchDoctors');
		expect(all.results).toHaveLength(4);
		const filtered = await pick('searchDoctors', 'neha');
		expect(filtered.results).toEqual([{ name: 'Dr. Neha Iyer', value: 'do1003' }]);
	});

	it('finds a doctor by an ID with capitals, whatever the case of the search text', async () => {
		const entities = {
			clinics: [],
			doctors: [
				{ name: 'Dr. Asha Rao', doctor_id: 'DR-Asha-01' },
				{ name: 'Dr. Vikram Mehta', doctor_id: 'DR-Vikram-02' },
			],
		};
		answerEntities(entities);
		for (const search of ['dr-asha', 'DR-ASHA-01', 'Asha-01']) {
			expect((await pick('searchDoctors', search)).results).toEqual([
				{ name: 'Dr. Asha Rao', value: 'DR-Asha-01' },
			]);
		}
	});
});

describe('Template picker', () => {
	it("lists the workspace's templates by title, filtered by the search text", async () => {
		const all = await pick('searchTemplates');
		expect(all.results).toEqual([
			{ name: 'Clinical Notes (default)', value: 'clinical_notes_template' },
			{ name: 'SOAP Note', value: 'tpl-soap-note' },
			{ name: 'Transcript (default)', value: 'transcript_template' },
		]);
		const filtered = await pick('searchTemplates', 'soap');
		expect(filtered.results).toEqual([{ name: 'SOAP Note', value: 'tpl-soap-note' }]);
	});
});
