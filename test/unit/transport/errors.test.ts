/**
 * What a failure says (transport/errors.ts): the one walk of an error's causes, the advice for a
 * template the workspace does not have (keyed to the service's own words), and the daily quota's
 * error, which the upload's runner recognises by its class.
 */
import { NodeApiError } from 'n8n-workflow';

import {
	clinicApiError,
	DailyQuotaError,
	errorChain,
	networkErrorCode,
} from '../../../nodes/ClinicScribe/transport/errors';
import { clinicScribeNode } from '../../support/nodeContext';

const node = clinicScribeNode();
const ctx = { getNode: () => node };
/** The advice an error answer gets: the description of the error a call ends with (tried once). */
const adviceFor = (statusCode: number, code: string | undefined, message?: string) =>
	clinicApiError(ctx, { purpose: 'the call' }, statusCode, { error: { code, message } })
		.description;

describe('errorChain', () => {
	test('the error and the causes it wraps, outermost first, at most five, a cause that loops back once', () => {
		const inner = Object.assign(new Error('inner'), { code: 'ECONNRESET' });
		const middle = new Error('middle', { cause: inner });
		const outer = new Error('outer', { cause: middle });
		expect(errorChain(outer).map((record) => record.message)).toEqual(['outer', 'middle', 'inner']);
		const looped = new Error('looped') as Error & { cause?: unknown };
		looped.cause = looped;
		expect(errorChain(looped)).toHaveLength(1);
		let deep: unknown = new Error('0');
		for (let depth = 1; depth < 10; depth++) deep = new Error(String(depth), { cause: deep });
		expect(errorChain(deep)).toHaveLength(5);
		expect(errorChain('not an object')).toEqual([]);
	});

	test("networkErrorCode reads the first code along the chain, or n8n 1.x's httpCode", () => {
		expect(
			networkErrorCode(
				new Error('outer', {
					cause: new Error('middle', { cause: Object.assign(new Error('x'), { code: 'EPIPE' }) }),
				}),
			),
		).toBe('EPIPE');
		expect(networkErrorCode(Object.assign(new Error('n8n 1.x'), { httpCode: 'ETIMEDOUT' }))).toBe(
			'ETIMEDOUT',
		);
		expect(
			networkErrorCode(Object.assign(new Error('an answer'), { httpCode: '502' })),
		).toBeUndefined();
	});
});

describe('advice for a template the workspace does not have', () => {
	const TEMPLATE_ADVICE = /Pick it from the Custom Template ID list/;

	test.each([
		["Template 'tpl_1' is not available", 'invalid_request'],
		['Template not found or already archived', 'BAD_REQUEST'],
		['unknown template_id tpl_deleted', undefined],
	])('%s (%s): the template advice', (message, code) => {
		expect(adviceFor(400, code, message)).toMatch(TEMPLATE_ADVICE);
		expect(
			clinicApiError(ctx, { purpose: 'the upload' }, 400, { error: { code, message } }).description,
		).toMatch(TEMPLATE_ADVICE);
	});

	test.each([
		'Output Language is not available',
		'each template needs template_id (string) and codification_needed (boolean)',
		'Template not editable',
	])('%s: not about a missing template', (message) => {
		expect(adviceFor(400, 'invalid_request', message)).toBe(
			'The API rejected the request as invalid. Check the node parameters.',
		);
	});
});

describe('the daily quota', () => {
	test('a NodeApiError of its own class, shown and stored as a NodeApiError, saying what was not started', () => {
		const error = new DailyQuotaError(node, { transaction: 'visit-1' }, 'afterUpload', 2);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error).toBeInstanceOf(DailyQuotaError);
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe(
			'The workspace has used up its daily transcription quota, so transaction "visit-1" was not started (txn_limit_exceeded)',
		);
		expect(error.description).toMatch(
			/^Its recordings were uploaded but will not be transcribed\./,
		);
		expect(error.httpCode).toBe('400');
		expect(new NodeApiError(node, error as never)).toBe(error);
	});
});
