import {
	describeIssues,
	sessionResultsToRecords,
} from '../../../nodes/ClinicScribe/shared/answers/resultsOutput';
import {
	humanise,
	readableHtml,
	readableText,
} from '../../../nodes/ClinicScribe/shared/answers/readableDocument';
import {
	decodeTemplateValue,
	readTransactionResults,
	transactionStatusFromHttp,
} from '../../../nodes/ClinicScribe/shared/answers/sessionResults';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('decodeTemplateValue', () => {
	test('Base64 of UTF-8 JSON becomes the document', () => {
		expect(decodeTemplateValue(b64('{"a": [1, "दो"]}'))).toEqual({
			format: 'json',
			value: { a: [1, 'दो'] },
		});
		expect(decodeTemplateValue(b64('[1,2]'))).toEqual({ format: 'json', value: [1, 2] });
	});

	test('Base64 of text stays text, non-ASCII intact', () => {
		const hindi = 'रोगी को तीन दिन से बुखार है।\nDoctor: ok';
		expect(decodeTemplateValue(b64(hindi))).toEqual({ format: 'text', value: hindi });
		expect(decodeTemplateValue(b64('# Heading\n- item'))).toEqual({
			format: 'text',
			value: '# Heading\n- item',
		});
	});

	test('text that only starts like JSON is text', () => {
		expect(decodeTemplateValue(b64('[Patient mumbles] fever'))).toEqual({
			format: 'text',
			value: '[Patient mumbles] fever',
		});
	});

	test('a leading BOM is dropped; line-wrapped Base64 decodes', () => {
		const wrapped = b64('\uFEFF{"x":1}').replace(/(.{4})/g, '$1\n');
		expect(decodeTemplateValue(wrapped)).toEqual({ format: 'json', value: { x: 1 } });
	});

	test('a value that is not Base64 of UTF-8 is kept as received, never garbled', () => {
		expect(decodeTemplateValue('Fever, 3 days!')).toEqual({
			format: 'text',
			value: 'Fever, 3 days!',
		});
		const notUtf8 = Buffer.from([0xff, 0xfe, 0xfd, 0x80]).toString('base64');
		expect(decodeTemplateValue(notUtf8)).toEqual({ format: 'text', value: notUtf8 });
	});

	test('empty, missing and already-decoded values', () => {
		expect(decodeTemplateValue('')).toEqual({ format: 'empty', value: null });
		expect(decodeTemplateValue(null)).toEqual({ format: 'empty', value: null });
		expect(decodeTemplateValue(undefined)).toEqual({ format: 'empty', value: null });
		expect(decodeTemplateValue(b64('   '))).toEqual({ format: 'empty', value: null });
		expect(decodeTemplateValue({ already: true })).toEqual({
			format: 'json',
			value: { already: true },
		});
	});
});

describe('transactionStatusFromHttp', () => {
	test.each([
		[200, 'completed'],
		[201, 'completed'],
		[202, 'processing'],
		[206, 'partial'],
		[400, 'not_found'],
		[404, 'not_found'],
		[500, 'failed'],
		[503, 'failed'],
	])('%i → %s', (status, expected) => {
		expect(transactionStatusFromHttp(status)).toBe(expected);
	});
});

describe('readTransactionResults', () => {
	test('reads the array form, keeps each template’s status, errors and warnings (strings or objects)', () => {
		const body = {
			data: {
				output: [
					{
						template_id: 'clinical_notes_template',
						name: 'Clinical Notes',
						value: b64('{"a":1}'),
						type: 'json',
						status: 'success',
						errors: [],
						warnings: ['low volume'],
					},
					{
						template_id: 'svc_emr_template',
						name: 'EMR',
						value: '',
						status: 'failure',
						errors: [{ code: 'x', message: 'no speech' }],
					},
					{ value: b64('plain'), status: 'success', errors: 'one string' },
				],
				additional_data: { visit: 'V1' },
				created_at: '2026-01-01T00:00:00Z',
			},
		};
		const results = readTransactionResults('s1', 206, body);
		expect(results).toMatchObject({
			sessionId: 's1',
			status: 'partial',
			httpStatus: 206,
			additionalData: { visit: 'V1' },
			createdAt: '2026-01-01T00:00:00Z',
		});
		expect(results.templates).toEqual([
			{
				templateId: 'clinical_notes_template',
				name: 'Clinical Notes',
				status: 'success',
				type: 'json',
				format: 'json',
				value: { a: 1 },
				errors: [],
				warnings: ['low volume'],
			},
			{
				templateId: 'svc_emr_template',
				name: 'EMR',
				status: 'failure',
				format: 'empty',
				value: null,
				errors: [{ code: 'x', message: 'no speech' }],
				warnings: [],
			},
			{
				templateId: 'template_3',
				name: 'template_3',
				status: 'success',
				format: 'text',
				value: 'plain',
				errors: ['one string'],
				warnings: [],
			},
		]);
		expect(describeIssues(results)).toEqual([
			'Clinical Notes: warning (low volume)',
			'EMR: failed (no speech)',
		]);
	});

	test('reads the FHIR form', () => {
		const results = readTransactionResults('s2', 200, {
			data: { output: { fhir: b64('{"resourceType":"Bundle"}') } },
		});
		expect(results.fhir).toEqual({ resourceType: 'Bundle' });
		expect(results.templates).toEqual([
			{
				templateId: 'fhir',
				name: 'FHIR bundle',
				status: 'success',
				format: 'json',
				value: { resourceType: 'Bundle' },
				errors: [],
				warnings: [],
			},
		]);
	});

	test('reads the error of failed and unknown sessions in every documented shape', () => {
		expect(readTransactionResults('s', 500, { error: { code: 'E', msg: 'broke' } }).error).toEqual({
			code: 'E',
			message: 'broke',
		});
		expect(readTransactionResults('s', 404, { message: 'not found' }).error).toEqual({
			message: 'not found',
		});
		expect(readTransactionResults('s', 404, 'gateway page').error).toBeUndefined();
		expect(readTransactionResults('s', 200, null).templates).toEqual([]);
	});
});

describe('sessionResultsToRecords', () => {
	const completed = readTransactionResults('visit-1', 200, {
		data: {
			output: [
				{
					template_id: 'clinical_notes_template',
					name: 'Clinical Notes',
					value: b64('{"chief_complaints":["Fever"],"vitals":{"pulse":"90/min"}}'),
					status: 'success',
				},
				{
					template_id: 'transcript_template',
					name: 'Transcript',
					value: b64('Doctor: hello\nPatient: नमस्ते'),
					status: 'success',
				},
				{
					template_id: 'svc_emr_template',
					name: 'EMR Format',
					value: b64('{"dx":"J06.9"}'),
					status: 'success',
				},
			],
		},
	});

	test('session: one item with every template and documents by id', () => {
		const [record] = sessionResultsToRecords(completed, 'session');
		expect(record).toMatchObject({
			session_id: 'visit-1',
			status: 'completed',
			http_status: 200,
			documents: {
				clinical_notes_template: { chief_complaints: ['Fever'], vitals: { pulse: '90/min' } },
				transcript_template: 'Doctor: hello\nPatient: नमस्ते',
				svc_emr_template: { dx: 'J06.9' },
			},
		});
		expect((record.templates as unknown[]).length).toBe(3);
	});

	test('templates: one item per template; a session without templates is still one item', () => {
		expect(
			sessionResultsToRecords(completed, 'templates').map((r) => [r.template_id, r.session_status]),
		).toEqual([
			['clinical_notes_template', 'completed'],
			['transcript_template', 'completed'],
			['svc_emr_template', 'completed'],
		]);
		const processing = readTransactionResults('visit-2', 202, { data: { output: [] } });
		expect(sessionResultsToRecords(processing, 'templates')).toEqual([
			{
				session_id: 'visit-2',
				session_status: 'processing',
				http_status: 202,
				template_id: null,
				name: null,
				status: null,
				format: 'empty',
				value: null,
				errors: [],
				warnings: [],
			},
		]);
	});

	test('simple: readable text, and the same as HTML for an e-mail', () => {
		expect(sessionResultsToRecords(completed, 'simple')).toEqual([
			{
				session_id: 'visit-1',
				status: 'completed',
				clinical_notes: 'Chief complaints:\n  - Fever\nVitals:\n  Pulse: 90/min',
				transcript: 'Doctor: hello\nPatient: नमस्ते',
				clinical_notes_html: readableHtml({
					chief_complaints: ['Fever'],
					vitals: { pulse: '90/min' },
				}),
				transcript_html: readableHtml('Doctor: hello\nPatient: नमस्ते'),
				other_documents: { 'EMR Format': 'Dx: J06.9' },
			},
		]);
		const [simple] = sessionResultsToRecords(completed, 'simple');
		expect(simple.clinical_notes_html).toContain('>Chief complaints</h3>');
		expect(simple.transcript_html).toContain('Patient: नमस्ते');
		const processing = readTransactionResults('visit-2', 202, {});
		expect(sessionResultsToRecords(processing, 'simple')).toEqual([
			{
				session_id: 'visit-2',
				status: 'processing',
				clinical_notes: null,
				transcript: null,
				clinical_notes_html: null,
				transcript_html: null,
				issues: ['The transcription is still being processed.'],
			},
		]);
	});
});

describe('readableText', () => {
	test('nested objects, lists of objects, multi-line strings, empty fields left out', () => {
		const text = readableText({
			medications: [
				{ name: 'A', dose: '1' },
				{ name: 'B', notes: '' },
			],
			plan: 'line one\nline two',
			empty: { nothing: null, list: [] },
			count: 2,
			ok: false,
		});
		expect(text).toBe(
			[
				'Medications:',
				'  - Name: A',
				'    Dose: 1',
				'  - Name: B',
				'Plan: line one',
				'  line two',
				'Count: 2',
				'Ok: false',
			].join('\n'),
		);
		expect(readableText('as is')).toBe('as is');
		expect(readableText(null)).toBe('');
	});

	test('humanise', () => {
		expect(humanise('chief_complaints')).toBe('Chief complaints');
		expect(humanise('followUpDate')).toBe('Follow up date');
		expect(humanise('spo2')).toBe('SpO2');
		expect(humanise('blood_pressure_bp')).toBe('Blood pressure BP');
		expect(humanise('constructor')).toBe('Constructor');
	});
});
