import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { cancelSession } from '../../transport/transcription/session';
import type { OperationResult } from '../common.execute';

/** The Session ID field of Cancel Session and Get Session Audio. */
export function sessionIdField(operation: string, description: string): INodeProperties {
	return {
		displayName: 'Session ID',
		name: 'sessionId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. {{ $json.session_id }}',
		description,
		displayOptions: { show: { resource: ['transcription'], operation: [operation] } },
	};
}

export const description: INodeProperties[] = [
	sessionIdField(
		'cancelSession',
		'The session to cancel: the session_id Upload Audio output with Upload Method "Session". A cancelled session is not processed (or its processing is stopped).',
	),
];

/** Cancels one session per item (a PATCH, as [EKA-MSA] does it). Sends no patient data. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<OperationResult> {
	const sessionId = readSessionIdField(this, itemIndex);
	const answer = await cancelSession(this, sessionId, itemIndex);
	return [
		{
			session_id: sessionId,
			cancelled: true,
			http_status: answer.statusCode,
			message: typeof answer.body.message === 'string' ? answer.body.message : null,
		},
	];
}

export function readSessionIdField(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = ctx.getNodeParameter('sessionId', itemIndex, '') as unknown;
	const sessionId =
		typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	if (sessionId === '') {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Session ID field of item ${itemIndex} is empty`,
			{
				description:
					'Enter the session ID, for example {{ $json.session_id }} after Upload Audio with Upload Method "Session". Nothing was sent.',
				itemIndex,
			},
		);
	}
	return sessionId;
}
