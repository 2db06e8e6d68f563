/** Pure parts of the session method: states, the session read's shape, file names, ids. */
import { sessionFileNames } from '../../../nodes/ClinicScribe/actions/transcription/uploadAudio/files';
import {
	generateSessionId,
	sessionIdProblem,
} from '../../../nodes/ClinicScribe/actions/transcription/uploadAudio/ids';
import { sessionResultsToRecords } from '../../../nodes/ClinicScribe/shared/answers/resultsOutput';
import {
	readSessionApiResults,
	sessionApiStatus,
	sessionAudioFiles,
	sessionLifecycle,
	storedAudioName,
} from '../../../nodes/ClinicScribe/shared/answers/sessionResults';
import { SESSION_FILE_NAME } from '../../../nodes/ClinicScribe/transport/transcription/session';

describe('session states onto the node status', () => {
	test.each([
		[202, 'processing', 'processing'],
		[200, 'created', 'processing'],
		[200, 'completed', 'completed'],
		[206, 'partial', 'partial'],
		[206, 'completed', 'partial'],
		[200, 'failed', 'failed'],
		[200, 'cancelled', 'cancelled'],
		[410, undefined, 'expired'],
		[200, 'expired', 'expired'],
		[404, undefined, 'not_found'],
		[200, undefined, 'completed'],
		[202, undefined, 'processing'],
	])('HTTP %i with status %s → %s', (http, stated, expected) => {
		expect(sessionApiStatus(http, stated === undefined ? {} : { status: stated })).toBe(expected);
	});
});

describe('a cancelled session has a state of its own', () => {
	test.each([
		['its status', { status: 'cancelled' }],
		[
			'the fields the cancel sets, beside another status',
			{ status: 'failed', user_status: 'cancelled', processing_status: 'cancelled' },
		],
		['processing_status alone', { status: 'completed', processing_status: 'Cancelled' }],
	])('from %s', (_case, body) => {
		const results = readSessionApiResults('s', 200, body);
		expect(results.status).toBe('cancelled');
		expect(sessionResultsToRecords(results, 'simple')[0].issues).toEqual([
			'The session was cancelled; it holds no results.',
		]);
		expect(sessionLifecycle(200, body)).toBe('cancelled');
	});
});

describe('where a session stands for an upload: the body status only, whatever the HTTP status', () => {
	test.each([
		[200, { status: 'created' }, 'open'],
		[202, { status: 'created' }, 'open'],
		[202, { status: 'processing' }, 'ended'],
		[200, { status: 'processing' }, 'ended'],
		[200, { status: 'completed' }, 'ended'],
		[206, { status: 'partial' }, 'ended'],
		[200, { status: 'failed' }, 'ended'],
		[200, { status: 'expired' }, 'expired'],
		[410, {}, 'expired'],
		[404, {}, 'not_found'],
		[200, {}, 'unknown'],
		[202, {}, 'unknown'],
		[200, { status: 'queued' }, 'unknown'],
	])('HTTP %i with %j → %s', (http, body, expected) => {
		expect(sessionLifecycle(http, body)).toBe(expected);
	});

	test('the files it holds, by the names the service stores them under', () => {
		expect(sessionAudioFiles({ audio_files: ['0.wav', '1.mp3'], audio_files_received: 2 })).toEqual(
			['0.wav', '1.mp3'],
		);
		expect(sessionAudioFiles({ audio_files_received: 0 })).toEqual([]);
		expect(sessionAudioFiles({ status: 'created' })).toBeUndefined();
		expect(
			['audio_0.wav', 'audio_12.MP3', 'rec-a_007.ogg', 'audio.wav'].map(storedAudioName),
		).toEqual(['0.wav', '12.mp3', '7.ogg', undefined]);
	});
});

describe('the session read', () => {
	const body = {
		session_id: 'ses_abc123def456',
		status: 'completed',
		created_at: '2026-06-06T14:21:07Z',
		additional_data: { visit: 'V-1' },
		transcript: 'Patient presents with cough and fever...',
		templates: [
			{
				eka_emr_template: {
					status: 'success',
					document_id: 'doc_abc123',
					document_type: 'eka_emr_template',
					data: { chief_complaint: 'cough and fever' },
					publish: {},
				},
			},
			{
				clinical_notes_template: {
					status: 'success',
					document_id: 'doc_def456',
					data: '{"assessment":"Acute bronchitis"}',
				},
			},
			{ my_letter: { status: 'success', data: 'Dear colleague' } },
		],
	};

	test('templates keyed by id, data as the service decoded it (objects; JSON text parsed; text kept), transcript as a template', () => {
		const results = readSessionApiResults('ses_abc123def456', 200, body);
		expect(results.status).toBe('completed');
		expect(results.templates.map((t) => [t.templateId, t.status, t.format, t.value])).toEqual([
			['eka_emr_template', 'success', 'json', { chief_complaint: 'cough and fever' }],
			['clinical_notes_template', 'success', 'json', { assessment: 'Acute bronchitis' }],
			['my_letter', 'success', 'text', 'Dear colleague'],
			['transcript_template', 'success', 'text', 'Patient presents with cough and fever...'],
		]);
		const [record] = sessionResultsToRecords(results, 'simple');
		expect(record).toMatchObject({
			status: 'completed',
			clinical_notes: 'Assessment: Acute bronchitis',
			transcript: 'Patient presents with cough and fever...',
		});
		expect(sessionResultsToRecords(results, 'session')[0]).toMatchObject({
			additional_data: { visit: 'V-1' },
			created_at: '2026-06-06T14:21:07Z',
		});
	});

	test('a failed session answered with HTTP 200 is failed, with its error; a partial one lists its processing errors', () => {
		const failed = readSessionApiResults('s', 200, {
			status: 'failed',
			error: { code: 'processing_failed', message: 'All templates failed' },
		});
		expect(failed.status).toBe('failed');
		expect(failed.error).toEqual({ code: 'processing_failed', message: 'All templates failed' });
		const partial = readSessionApiResults('s', 206, {
			status: 'partial',
			processing_errors: [{ code: 'audio_unclear', message: 'Some audio could not be processed' }],
		});
		expect(partial.status).toBe('partial');
		expect(partial.error).toEqual({ message: 'Some audio could not be processed' });
	});

	test('an expired session says so in words', () => {
		const [record] = sessionResultsToRecords(
			readSessionApiResults('s', 410, {
				error: { code: 'session_expired', message: 'session expired' },
			}),
			'simple',
		);
		expect(record.status).toBe('expired');
		expect(record.issues).toEqual([
			'The session expired before it was ended; it holds no results.',
			'The API said: session expired',
		]);
	});

	test('a template key "__proto__" is a document like any other', () => {
		const results = readSessionApiResults(
			's',
			200,
			JSON.parse(
				'{"status":"completed","templates":[{"__proto__":{"status":"success","data":{"a":1}}}]}',
			),
		);
		expect(results.templates[0].templateId).toBe('__proto__');
		expect(Object.keys(sessionResultsToRecords(results, 'session')[0].documents as object)).toEqual(
			['__proto__'],
		);
	});
});

describe('session file names and ids', () => {
	test("audio_<n>.<ext>: the own extension when the service reads it, else the content type's", () => {
		const names = sessionFileNames([
			{ fileName: 'Anita Rao.WAV', contentType: 'audio/wav' },
			{ fileName: 'visit.mp4', contentType: 'audio/mp4' },
			{ fileName: 'voice.aac', contentType: 'audio/mp4' },
			{ fileName: undefined, contentType: 'audio/mpeg' },
		]);
		expect(names).toEqual(['audio_0.wav', 'audio_1.mp4', 'audio_2.m4a', 'audio_3.mp3']);
		expect(names.every((name) => SESSION_FILE_NAME.test(name))).toBe(true);
	});

	test('a generated session id has 32 characters and is stable for the same seed and item', () => {
		expect(generateSessionId('seed', 1)).toMatch(/^n8n[0-9a-f]{29}$/);
		expect(generateSessionId('seed', 1)).toBe(generateSessionId('seed', 1));
		expect(generateSessionId('seed', 2)).not.toBe(generateSessionId('seed', 1));
		expect(sessionIdProblem(generateSessionId('seed', 1))).toBeUndefined();
	});

	test('a session id must have 16 to 32 letters, digits, _ or -', () => {
		expect(sessionIdProblem('a'.repeat(15))).toBe(
			'has 15 characters, but a session ID must have 16 to 32',
		);
		expect(sessionIdProblem('a'.repeat(33))).toBe(
			'has 33 characters, but a session ID must have 16 to 32',
		);
		expect(sessionIdProblem('visit.2024.0042.anita')).toMatch(/only letters, digits, _ and -/);
		expect(sessionIdProblem('visit-2024-0042-anita')).toBeUndefined();
	});
});
