/**
 * Keys that come from the API (template ids and names, error codes) are looked up or stored without
 * touching Object.prototype: "__proto__", "constructor" and "toString" are keys like any other.
 */
import type { INode } from 'n8n-workflow';

import { clinicApiError } from '../../../nodes/ClinicScribe/transport/errors';
import { sessionResultsToRecords } from '../../../nodes/ClinicScribe/shared/answers/resultsOutput';
import { readTransactionResults } from '../../../nodes/ClinicScribe/shared/answers/sessionResults';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
const ctx = { getNode: () => ({ name: 'Clinic Scribe' }) as INode };
/** The advice an error answer gets: the description of the error a call ends with (tried once). */
const adviceFor = (statusCode: number, code: string) =>
	clinicApiError(ctx, { purpose: 'the call' }, statusCode, { error: { code } }).description;

describe('error advice for an API error code', () => {
	it.each(KEYS)('%s gets the advice of its HTTP status, not JavaScript', (code) => {
		expect(adviceFor(400, code)).toBe(
			'The API rejected the request as invalid. Check the node parameters.',
		);
		expect(adviceFor(418, code)).toBe(
			'Check the node parameters and the credential, then run again.',
		);
		expect(adviceFor(503, code)).toBe(
			'The clinic API had an unexpected server error. Try again later; if it persists, contact the API provider.',
		);
	});

	it('a known code still gets its own advice', () => {
		expect(adviceFor(403, 'UNAUTHORIZED_ACCESS')).toContain('lacks permission');
	});
});

describe('documents keyed by template id', () => {
	const results = readTransactionResults('visit-proto', 200, {
		data: {
			output: KEYS.map((id, index) => ({
				template_id: id,
				name: id,
				value: b64(`{"n":${index}}`),
				status: 'success',
			})),
		},
	});

	it.each(KEYS.map((key, index) => [key, index] as const))(
		'a template with id %s keeps its document',
		(key, index) => {
			const [record] = sessionResultsToRecords(results, 'session');
			const documents = record.documents as Record<string, unknown>;
			expect(Object.prototype.hasOwnProperty.call(documents, key)).toBe(true);
			expect(Object.getOwnPropertyDescriptor(documents, key)?.value).toEqual({ n: index });
			expect(Object.getPrototypeOf(documents)).toBe(Object.prototype);
			expect(JSON.parse(JSON.stringify(documents))).toEqual(
				JSON.parse(`{${KEYS.map((k, i) => `"${k}":{"n":${i}}`).join(',')}}`),
			);
		},
	);

	it('the simple output keeps every named document too', () => {
		const [record] = sessionResultsToRecords(results, 'simple');
		const others = record.other_documents as Record<string, unknown>;
		expect(Object.keys(others).sort()).toEqual([...KEYS].sort());
		expect(Object.getPrototypeOf(others)).toBe(Object.prototype);
	});
});
