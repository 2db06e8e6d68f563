/** Presign (`POST /v1/file-upload`) and the presigned storage POST (`POST /storage/voice-uploads/`). */
import { createHmac, randomBytes } from 'node:crypto';

import { boundaryFromContentType, parseMultipart, type MultipartPart } from '../../multipart';
import type { RouteContext } from '../../types';
import {
	bearerBusiness,
	isPlainObject,
	pendingScripts,
	storeOf,
	STORAGE_PATH,
	variantOf,
	voiceError,
	type PresignAnswer,
	type Store,
	type StoredUpload,
} from './store';

export function presign(ctx: RouteContext): void {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const txnIds = ctx.query.getAll('txn_id');
	if (txnIds.length !== 1 || txnIds[0].trim() === '')
		return voiceError(ctx, 400, 'invalid_txn_id', 'query parameter txn_id is required');
	const action = ctx.query.get('action');
	const expected = variantOf(ctx).uploadAction;
	if (action !== expected)
		return voiceError(ctx, 400, 'invalid_action', `action must be ${expected}`);
	const body = ctx.body;
	if (body && body.length > 0) {
		if (!body.isJsonMediaType || !isPlainObject(body.value))
			return voiceError(ctx, 400, 'invalid_body', 'body must be a JSON object');
		const extra = body.value;
		if (extra.mode !== undefined && extra.mode !== 'dictation' && extra.mode !== 'consultation')
			return voiceError(ctx, 400, 'invalid_mode', 'mode must be dictation or consultation');
		if (extra.model_type !== undefined && extra.model_type !== 'pro' && extra.model_type !== 'lite')
			return voiceError(ctx, 400, 'invalid_model_type', 'model_type must be pro or lite');
	}
	const origin = `http://${ctx.req.headers.host ?? '127.0.0.1'}`;
	ctx.sendJson(200, presignFor(storeOf(ctx.state), txnIds[0], businessId, origin));
}

export function presignFor(
	store: Store,
	txnId: string,
	businessId: string,
	origin: string,
): PresignAnswer {
	let txn = store.transactions.get(txnId);
	if (!txn) {
		const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
		txn = {
			txnId,
			businessId,
			folderPath: `EC_${businessId}/${day}/${txnId}/`,
			presigns: 0,
			initAttempts: 0,
			initsStarted: 0,
			statusCalls: 0,
			statusCallsAbandoned: 0,
		};
		const scripted = pendingScripts(store).get(txnId);
		if (scripted) {
			txn.script = scripted;
			pendingScripts(store).delete(txnId);
		}
		store.transactions.set(txnId, txn);
	}
	txn.presigns++;
	const expiresAt = Date.now() + store.options.presignTtlMs;
	const date = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
	const credential = `FAKEAKID/${date.slice(0, 8)}/ap-south-1/s3/aws4_request`;
	const policy = Buffer.from(
		JSON.stringify({
			expiration: new Date(expiresAt).toISOString(),
			conditions: [
				{ bucket: 'voice-uploads' },
				['starts-with', '$key', txn.folderPath],
				['content-length-range', 1, store.options.maxUploadBytes],
				{ 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
				{ 'x-amz-credential': credential },
				{ 'x-amz-date': date },
				{ nonce: randomBytes(6).toString('hex') },
			],
		}),
	).toString('base64');
	const fields: Record<string, string> = {
		key: `${txn.folderPath}\${filename}`,
		'x-amz-algorithm': 'AWS4-HMAC-SHA256',
		'x-amz-credential': credential,
		'x-amz-date': date,
		'x-amz-security-token': `FwoGZXIvYXdzE${randomBytes(12).toString('base64url')}`,
		policy,
		'x-amz-signature': createHmac('sha256', store.signingKey).update(policy).digest('hex'),
	};
	store.presigns.set(policy, { txnId, folderPath: txn.folderPath, expiresAt, fields });
	return {
		uploadData: { url: `${origin}${STORAGE_PATH}`, fields },
		folderPath: txn.folderPath,
		txn_id: txnId,
	};
}

function s3Error(ctx: RouteContext, status: number, code: string, message: string): void {
	if (ctx.res.headersSent) return;
	const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
	ctx.res.writeHead(status, {
		'content-type': 'application/xml',
		'content-length': String(Buffer.byteLength(xml)),
	});
	ctx.res.end(xml);
}

export async function storagePost(ctx: RouteContext): Promise<void> {
	const store = storeOf(ctx.state);
	const headerNames = Object.keys(ctx.req.headers);
	const body = ctx.rawBody();
	const reject = async (status: number, code: string, reason: string, partOrder: string[] = []) => {
		store.rejected.push({ status, code, reason, headerNames, partOrder });
		s3Error(ctx, status, code, reason);
		body.resume();
	};
	if (ctx.req.headers.authorization !== undefined || ctx.req.headers.auth !== undefined) {
		return reject(
			400,
			'InvalidArgument',
			'An authorization header must not be sent with a presigned POST',
		);
	}
	const declared = ctx.req.headers['content-length'];
	if (declared === undefined || !/^\d+$/.test(declared))
		return reject(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
	const boundary = boundaryFromContentType(ctx.req.headers['content-type']);
	if (!boundary)
		return reject(
			400,
			'InvalidArgument',
			'Content-Type must be multipart/form-data with a boundary',
		);

	let fileStartedAt = 0;
	const parsed = await parseMultipart(body, boundary, {
		onPartStart: (part) => {
			if (part.filename !== undefined) fileStartedAt = store.fileBytesReceived;
		},
		onFileBytes: (bytes) => {
			store.fileBytesReceived = fileStartedAt + bytes;
			notifyByteWaiters(store);
		},
	});
	const partOrder = parsed.parts.map((part) => part.name);
	if (parsed.error)
		return reject(
			400,
			'MalformedPOSTRequest',
			`The body of your POST request is not well-formed multipart/form-data: ${parsed.error}`,
			partOrder,
		);
	if (parsed.preambleBytes > 0)
		return reject(
			400,
			'MalformedPOSTRequest',
			'Unexpected bytes before the first boundary',
			partOrder,
		);
	if (parsed.totalBytes !== Number(declared))
		return reject(
			400,
			'IncompleteBody',
			`Content-Length was ${declared} but ${parsed.totalBytes} bytes arrived`,
			partOrder,
		);

	const files = parsed.parts.filter(
		(part): part is Extract<MultipartPart, { kind: 'file' }> => part.kind === 'file',
	);
	if (files.length !== 1 || files[0].name !== 'file')
		return reject(
			400,
			'InvalidArgument',
			'POST requires exactly one file upload per request, in a part named "file"',
			partOrder,
		);
	if (parsed.parts[parsed.parts.length - 1].kind !== 'file')
		return reject(
			400,
			'InvalidArgument',
			'The file part must be the last part of the form (fields after it are ignored by S3)',
			partOrder,
		);
	const file = files[0];
	const fields: Record<string, string> = {};
	for (const part of parsed.parts) {
		if (part.kind !== 'field') continue;
		if (fields[part.name] !== undefined)
			return reject(400, 'InvalidArgument', `Field ${part.name} sent twice`, partOrder);
		fields[part.name] = part.value;
	}
	const presigned = fields.policy === undefined ? undefined : store.presigns.get(fields.policy);
	if (!presigned)
		return reject(
			403,
			'AccessDenied',
			'Invalid according to Policy: Policy Condition failed (unknown policy)',
			partOrder,
		);
	if (
		fields['x-amz-signature'] !==
		createHmac('sha256', store.signingKey).update(fields.policy).digest('hex')
	)
		return reject(
			403,
			'SignatureDoesNotMatch',
			'The request signature we calculated does not match the signature you provided.',
			partOrder,
		);
	if (Date.now() > presigned.expiresAt)
		return reject(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.', partOrder);
	for (const [name, value] of Object.entries(presigned.fields)) {
		if (name === 'key') continue;
		if (fields[name] === undefined)
			return reject(
				403,
				'AccessDenied',
				`Invalid according to Policy: missing field ${name}`,
				partOrder,
			);
		if (fields[name] !== value)
			return reject(
				403,
				'AccessDenied',
				`Invalid according to Policy: field ${name} was changed`,
				partOrder,
			);
	}
	const extra = Object.keys(fields).filter((name) => !(name in presigned.fields));
	if (extra.length > 0)
		return reject(
			403,
			'AccessDenied',
			`Invalid according to Policy: Extra input fields: ${extra.join(', ')}`,
			partOrder,
		);
	const expectedKey = `${presigned.folderPath}${file.filename}`;
	if (fields.key !== expectedKey)
		return reject(
			400,
			'InvalidArgument',
			`key must be the folder path plus the file name (${expectedKey}), got ${fields.key}`,
			partOrder,
		);
	if (file.filename === '' || file.size === 0)
		return reject(
			400,
			'EntityTooSmall',
			'Your proposed upload is smaller than the minimum allowed size',
			partOrder,
		);
	if (file.size > store.options.maxUploadBytes)
		return reject(
			400,
			'EntityTooLarge',
			'Your proposed upload exceeds the maximum allowed size',
			partOrder,
		);

	const upload: StoredUpload = {
		txnId: presigned.txnId,
		key: fields.key,
		fileName: file.filename,
		size: file.size,
		sha256: file.sha256,
		contentType: file.contentType,
		contentLength: Number(declared),
		bodyBytes: parsed.totalBytes,
		partOrder,
		fields,
		headerNames,
	};
	store.objects.set(upload.key, upload);
	store.uploads.push(upload);
	ctx.res.writeHead(204, {
		etag: `"${file.sha256.slice(0, 32)}"`,
		location: `${STORAGE_PATH}${encodeURI(upload.key)}`,
	});
	ctx.res.end();
}

export function notifyByteWaiters(store: Store): void {
	if (store.byteWaiters.length === 0) return;
	store.byteWaiters = store.byteWaiters.filter((waiter) => {
		if (store.fileBytesReceived < waiter.bytes) return true;
		waiter.resolve();
		return false;
	});
}
