import {
	escapeHtml,
	readableHtml,
} from '../../../nodes/ClinicScribe/shared/answers/readableDocument';
import {
	CLINICAL_NOTES_DOCUMENT,
	TRANSCRIPT_TEXT,
} from '../../fake-api/routes/transcription/documents';

/** The fragment's visible text, as a mail program shows it (tags dropped, entities read). */
function visibleText(html: string): string {
	return html
		.replace(/<br>\n?/g, '\n')
		.replace(/<\/(p|h3|li|tr)>/g, '\n')
		.replace(/<\/t[hd]>/g, '\t')
		.replace(/<[^>]+>/g, '')
		.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

/** Its non-empty lines, each trimmed (a table row: its cells separated by tabs). */
function visibleLines(html: string): string[] {
	return visibleText(html)
		.split('\n')
		.map((line) => line.trim())
		.filter((line) => line !== '');
}

describe('readableHtml: a document as an HTML fragment for an e-mail', () => {
	const html = readableHtml(CLINICAL_NOTES_DOCUMENT);

	test('each field of the notes is a section with a heading, in the order of the document', () => {
		const headings = [...html.matchAll(/<h3[^>]*>([^<]*)<\/h3>/g)].map((match) => match[1]);
		expect(headings).toEqual([
			'Chief complaints',
			'History of present illness',
			'Vitals',
			'Examination',
			'Diagnosis',
			'Medications',
			'Advice',
			'Follow up',
		]);
	});

	test('lists become bulleted lists; a record of simple fields (vitals) a two-column table', () => {
		expect(html).toMatch(/<ul[^>]*><li>Fever for 3 days<\/li><li>Dry cough<\/li><\/ul>/);
		const vitals = /<h3[^>]*>Vitals<\/h3>\n(<table.*?<\/table>)/.exec(html)?.[1] ?? '';
		expect(visibleLines(vitals)).toEqual([
			'Temperature\t100.8 °F',
			'Pulse\t92/min',
			'Blood pressure\t124/80 mmHg',
			'SpO2\t97%',
		]);
	});

	test('records with the same fields (medications) are one table: a column per field, a row per record', () => {
		const medications = /<h3[^>]*>Medications<\/h3>\n(<table.*?<\/table>)/.exec(html)?.[1] ?? '';
		expect(visibleLines(medications)).toEqual([
			'Name\tDose\tFrequency\tDuration',
			'Paracetamol 650 mg\t1 tablet\tthree times a day after food\t3 days',
			'Cetirizine 10 mg\t1 tablet\tat night\t5 days',
		]);
	});

	test('Hindi text is kept as it is; quotes are escaped, not dropped', () => {
		expect(visibleText(html)).toContain('In the patient\'s words: "मुझे तीन दिन से बुखार है".');
		expect(html).not.toContain('"मुझे');
	});

	test('text: paragraphs at blank lines, line breaks kept (a transcript)', () => {
		const transcript = readableHtml(TRANSCRIPT_TEXT);
		expect(transcript.startsWith('<p')).toBe(true);
		expect(visibleText(transcript).trim()).toBe(TRANSCRIPT_TEXT);
		expect(readableHtml('one\n\ntwo').match(/<p /g)).toHaveLength(2);
	});

	test('markup in the notes is shown as text, never interpreted', () => {
		const hostile = readableHtml({
			'<b>key</b>': '<script>alert(1)</script> BP < 120 & "x"',
			list: ['<img src=x onerror=alert(1)>'],
			rows: [{ a: '</td><td>' }],
		});
		expect(hostile).not.toMatch(/<(script|img|b)[ >]/);
		expect(hostile.match(/<td /g)).toHaveLength(1);
		expect(visibleText(hostile)).toContain('<script>alert(1)</script> BP < 120 & "x"');
		expect(escapeHtml('<>&"\'')).toBe('&#60;&#62;&#38;&#34;&#39;');
	});

	test('empty fields are left out; nested records nest as labelled lists; nothing at all is ""', () => {
		const nested = readableHtml({
			empty: '',
			none: null,
			plan: { steps: ['Rest'], review: { when: 'in 5 days' } },
		});
		expect(nested).not.toContain('Empty');
		expect(visibleLines(nested)).toEqual(['Plan', 'Steps: Rest', 'Review: When: in 5 days']);
		expect(readableHtml(null)).toBe('');
		expect(readableHtml({ a: [], b: { c: '' } })).toBe('');
	});
});
