/**
 * The test-side FHIR checks (test/support/fhirR4.ts) bite: a bundle they pass is worth something
 * only if they refuse what R4 refuses. Also: the package's value-set tables are R4's own.
 */
import * as valueSets from '../../../nodes/ClinicScribe/shared/fhir/valueSets';
import { loadR4, referenceProblems, type R4 } from '../../support/fhirR4';

let r4: R4;
beforeAll(async () => {
	r4 = await loadR4();
});

const patient = { reference: 'Patient/p-1' };

describe('the checks refuse what R4 refuses', () => {
	test('structure: a missing required element, an unknown element', () => {
		expect(
			r4.validate({ resourceType: 'Observation', status: 'final', subject: patient }),
		).not.toEqual([]);
		expect(
			r4.validate({
				resourceType: 'Observation',
				status: 'final',
				code: { text: 'x' },
				colour: 'red',
			}),
		).not.toEqual([]);
		expect(
			r4.validate({ resourceType: 'Observation', status: 'final', code: { text: 'x' } }),
		).toEqual([]);
	});

	test("required codes: the service's verification status, a status outside its set, a timing code, a bundle's method", () => {
		const condition = (system: string, code: string) => ({
			resourceType: 'Condition',
			subject: patient,
			verificationStatus: { coding: [{ system, code }] },
		});
		expect(
			r4.requiredCodeProblems(
				condition('http://terminology.hl7.org/CodeSystem/condition-clinical', 'suspected'),
			),
		).toHaveLength(1);
		expect(
			r4.requiredCodeProblems(
				condition('http://terminology.hl7.org/CodeSystem/condition-clinical', 'confirmed'),
			),
		).toHaveLength(1);
		expect(
			r4.requiredCodeProblems(
				condition('http://terminology.hl7.org/CodeSystem/condition-ver-status', 'confirmed'),
			),
		).toEqual([]);
		expect(
			r4.requiredCodeProblems({ resourceType: 'Observation', status: 'done', code: { text: 'x' } }),
		).toHaveLength(1);
		const request = (when: string) => ({
			resourceType: 'MedicationRequest',
			status: 'active',
			intent: 'order',
			subject: patient,
			medicationCodeableConcept: { text: 'x' },
			dosageInstruction: [{ timing: { repeat: { when: [when], periodUnit: 'd' } } }],
		});
		expect(r4.requiredCodeProblems(request('PC'))).toEqual([]);
		expect(r4.requiredCodeProblems(request('AFTER-FOOD'))).toHaveLength(1);
		expect(
			r4.requiredCodeProblems({
				resourceType: 'Bundle',
				type: 'transaction',
				entry: [{ request: { method: 'SEND', url: 'x' } }],
			}),
		).toHaveLength(1);
	});

	test('references: one to nothing, an entry without fullUrl, a POST that would duplicate', () => {
		const bundle = {
			resourceType: 'Bundle',
			type: 'transaction',
			entry: [
				{
					fullUrl: 'urn:uuid:1',
					resource: {
						resourceType: 'Observation',
						id: 'a',
						subject: { reference: 'Patient/dummy_patient_oid' },
						performer: [{ reference: 'urn:uuid:2' }],
					},
					request: { method: 'PUT', url: 'Observation/b' },
				},
				{ resource: { resourceType: 'Patient' }, request: { method: 'POST', url: 'Patient' } },
			],
		};
		expect(referenceProblems(bundle)).toEqual([
			'entry 0 PUTs Observation/b but holds Observation/a',
			'Observation.subject → "Patient/dummy_patient_oid" resolves to nothing',
			'Observation.performer → "urn:uuid:2" resolves to nothing',
			'entry 1 (Patient) has no fullUrl',
			'entry 1 (Patient) is a POST without ifNoneExist: a second send would duplicate it',
		]);
	});
});

describe("the package's value-set tables are R4's", () => {
	const tables: Array<[string, valueSets.ValueSet, string]> = [
		[
			'condition-clinical',
			valueSets.CONDITION_CLINICAL,
			'http://hl7.org/fhir/ValueSet/condition-clinical',
		],
		[
			'condition-ver-status',
			valueSets.CONDITION_VERIFICATION,
			'http://hl7.org/fhir/ValueSet/condition-ver-status',
		],
		[
			'allergyintolerance-clinical',
			valueSets.ALLERGY_CLINICAL,
			'http://hl7.org/fhir/ValueSet/allergyintolerance-clinical',
		],
		[
			'allergyintolerance-verification',
			valueSets.ALLERGY_VERIFICATION,
			'http://hl7.org/fhir/ValueSet/allergyintolerance-verification',
		],
		[
			'allergy-intolerance-category',
			valueSets.ALLERGY_CATEGORY,
			'http://hl7.org/fhir/ValueSet/allergy-intolerance-category',
		],
		[
			'allergy-intolerance-criticality',
			valueSets.ALLERGY_CRITICALITY,
			'http://hl7.org/fhir/ValueSet/allergy-intolerance-criticality',
		],
		[
			'allergy-intolerance-type',
			valueSets.ALLERGY_TYPE,
			'http://hl7.org/fhir/ValueSet/allergy-intolerance-type',
		],
		[
			'observation-status',
			valueSets.OBSERVATION_STATUS,
			'http://hl7.org/fhir/ValueSet/observation-status',
		],
		[
			'medicationrequest-status',
			valueSets.MEDICATION_REQUEST_STATUS,
			'http://hl7.org/fhir/ValueSet/medicationrequest-status',
		],
		[
			'medicationrequest-intent',
			valueSets.MEDICATION_REQUEST_INTENT,
			'http://hl7.org/fhir/ValueSet/medicationrequest-intent',
		],
		[
			'medication-statement-status',
			valueSets.MEDICATION_STATEMENT_STATUS,
			'http://hl7.org/fhir/ValueSet/medication-statement-status',
		],
		['request-status', valueSets.REQUEST_STATUS, 'http://hl7.org/fhir/ValueSet/request-status'],
		['request-intent', valueSets.REQUEST_INTENT, 'http://hl7.org/fhir/ValueSet/request-intent'],
		[
			'care-plan-intent',
			valueSets.CARE_PLAN_INTENT,
			'http://hl7.org/fhir/ValueSet/care-plan-intent',
		],
		[
			'appointmentstatus',
			valueSets.APPOINTMENT_STATUS,
			'http://hl7.org/fhir/ValueSet/appointmentstatus',
		],
		[
			'participationstatus',
			valueSets.PARTICIPATION_STATUS,
			'http://hl7.org/fhir/ValueSet/participationstatus',
		],
		['history-status', valueSets.HISTORY_STATUS, 'http://hl7.org/fhir/ValueSet/history-status'],
		['event-status', valueSets.EVENT_STATUS, 'http://hl7.org/fhir/ValueSet/event-status'],
		['units-of-time', valueSets.UNITS_OF_TIME, 'http://hl7.org/fhir/ValueSet/units-of-time'],
		['event-timing', valueSets.EVENT_TIMING, 'http://hl7.org/fhir/ValueSet/event-timing'],
		[
			'administrative-gender',
			valueSets.ADMINISTRATIVE_GENDER,
			'http://hl7.org/fhir/ValueSet/administrative-gender',
		],
	];

	test.each(tables)('%s: the same codes, in the same system', (_name, table, url) => {
		const r4Codes = r4.valueSetCodes(url);
		expect(r4Codes).toBeDefined();
		const all = new Set([...r4Codes!.values()].flatMap((codes) => [...codes]));
		expect(Object.keys(table.codes).sort()).toEqual([...all].sort());
		if (table.system) expect([...r4Codes!.keys()]).toEqual([table.system]);
		// Aliases only ever lead to codes of the set.
		for (const code of Object.values(table.aliases ?? {})) expect(all.has(code)).toBe(true);
	});
});
