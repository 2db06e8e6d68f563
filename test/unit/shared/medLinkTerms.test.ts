import {
	MEDLINK_BATCH_SIZE,
	planBatches,
	readBatchBlocks,
	readTermCode,
	registryVersion,
} from '../../../nodes/ClinicScribe/shared/answers/medLinkTerms';

describe('planBatches', () => {
	it('asks each distinct term once per ontology, at most 5 a batch, in first-asked order', () => {
		const batches = planBatches([
			{ ontology: 'snomed', terms: ['a', 'b', 'c', 'A', 'd'] },
			{ ontology: 'snomed', terms: ['b ', 'e', 'f', 'g'] },
			{ ontology: 'loinc', terms: ['a'] },
		]);
		expect(batches.map((b) => [b.ontology, b.queries])).toEqual([
			['snomed', ['a', 'b', 'c', 'd', 'e']],
			['snomed', ['f', 'g']],
			['loinc', ['a']],
		]);
		expect(batches.every((b) => b.queries.length <= MEDLINK_BATCH_SIZE)).toBe(true);
	});
});

describe('answers', () => {
	const facts = { term: 'hb', ontology: 'loinc' as const, version: 'v1.0' };

	it('takes the linked candidate, with the LOINC unit', () => {
		const block = {
			results: [
				{ term_id: '59260-0', term_name: 'Hb moles', score: 0.9, is_linked: false },
				{
					term_id: '718-7',
					term_name: 'Hb mass',
					score: 0.8,
					is_linked: true,
					metadata: { unit_normalised: 'g/dl' },
				},
			],
		};
		expect(readTermCode(block, facts)).toEqual({
			term: 'hb',
			ontology: 'loinc',
			system: 'http://loinc.org',
			version: 'v1.0',
			code: '718-7',
			display: 'Hb mass',
			score: 0.8,
			linked: true,
			unit: 'g/dl',
		});
	});

	it('gives no code when there is no candidate', () => {
		expect(readTermCode({ results: [] }, facts)).toMatchObject({ code: null, linked: false });
	});

	it('reads the registry version and refuses a batch answer of the wrong length', () => {
		const registry = { ontologies: [{ name: 'loinc', versions: ['v1.0', 'v0.9'] }] };
		expect(registryVersion(registry, 'loinc')).toBe('v1.0');
		expect(registryVersion(registry, 'snomed')).toBeUndefined();
		expect(readBatchBlocks({ results: [{}] }, 2)).toBeUndefined();
	});
});
