import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { downloadSessionAudio } from '../../transport/transcription/sessionAudio';
import { readSessionIdField, sessionIdField } from './cancelSession.operation';

const show = { resource: ['transcription'], operation: ['getSessionAudio'] };

export const description: INodeProperties[] = [
	sessionIdField(
		'getSessionAudio',
		'The session whose whole audio to download: the session_id Upload Audio output with Upload Method "Session". The service keeps it for 24 hours, where the workspace has session audio enabled.',
	),
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the audio in',
		displayOptions: { show },
	},
];

/**
 * One download per item: the service's link to the session's audio, then the audio itself from that
 * link (another host: no token goes there), streamed into n8n's binary store. Its output item carries
 * the file, so it is an ItemDataOperation: the router pairs it and applies Continue On Fail.
 */
export async function executeData(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	return [await downloadOne(this, itemIndex)];
}

async function downloadOne(ctx: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData> {
	const sessionId = readSessionIdField(ctx, itemIndex);
	const property =
		String(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') ?? '').trim() || 'data';
	const audio = await downloadSessionAudio(ctx, sessionId, itemIndex);
	const extension =
		audio.contentType
			.split('/')[1]
			?.replace(/^x-/, '')
			.replace(/[^a-z0-9]/gi, '') || 'wav';
	const binary = await ctx.helpers.prepareBinaryData(
		audio.stream as Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0],
		`session-${sessionId}.${extension}`,
		audio.contentType,
	);
	const json: IDataObject = {
		session_id: sessionId,
		file_name: binary.fileName ?? null,
		content_type: audio.contentType,
		file_size: audio.contentLength ?? null,
		expires_in: audio.link.expiresIn ?? null,
		expires_at: (audio.link.expiresAt as IDataObject[string]) ?? null,
	};
	return { json, binary: { [property]: binary } };
}
