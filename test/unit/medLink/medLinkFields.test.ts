import {
	isMedLinkOntology,
	readTerms,
} from '../../../nodes/ClinicScribe/actions/medLink/medLinkFields';

describe('readTerms', () => {
	it('splits text at commas and new lines, trims and drops blanks', () => {
		expect(readTerms(' fever,  cough \n\n type 2   diabetes ,')).toEqual({
			ok: true,
			terms: ['fever', 'cough', 'type 2 diabetes'],
		});
	});

	it('takes a list as it is (a comma inside an entry stays)', () => {
		expect(readTerms(['pain, left knee', 'बुखार', 7])).toEqual({
			ok: true,
			terms: ['pain, left knee', 'बुखार', '7'],
		});
	});

	it.each([
		['empty text', '', 'is empty'],
		['only separators', ' , \n ', 'is empty'],
		['an empty list', [], 'is empty'],
		['nothing', null, 'is empty'],
		[
			'a term of 201 characters',
			['ok', 'x'.repeat(201)],
			'has a term (number 2) longer than 200 characters',
		],
		[
			'101 terms',
			Array.from({ length: 101 }, (_, i) => `t${i}`),
			'has 101 terms, more than the 100 one item may have',
		],
	] as Array<[string, unknown, string]>)('refuses %s', (_label, value, problem) => {
		expect(readTerms(value)).toEqual({ ok: false, problem });
	});

	it('counts characters, not bytes (200 Devanagari letters pass)', () => {
		expect(readTerms(['ब'.repeat(200)]).ok).toBe(true);
	});
});

describe('isMedLinkOntology', () => {
	it('takes only the code systems the node offers, not what every object has', () => {
		expect(isMedLinkOntology('toString')).toBe(false);
		expect(isMedLinkOntology('icd-10-cm')).toBe(true);
	});
});
