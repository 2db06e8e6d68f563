/**
 * Makes the fake clinic API hold a finished transcription session, over its public wire flow
 * (token → presign → storage POST → init), independently of the nodes' own upload code, so the
 * trigger's Include Results can be tested on a session whose results are ready.
 */
import { randomBytes } from 'node:crypto';

export const SESSION_TEMPLATES = [
	{ template_id: 'clinical_notes_template', codification_needed: false },
	{ template_id: 'svc_emr_template', codification_needed: true },
	{ template_id: 'transcript_template', codification_needed: false },
];

async function json(response: Response, what: string): Promise<Record<string, unknown>> {
	const text = await response.text();
	if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text}`);
	return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/**
 * Creates the session `txnId` on the fake API; its status call then answers 200 with results.
 * `additionalData` goes with the init, as a clinic's upload would send it (the patient, the doctor).
 */
export async function startFinishedSession(
	baseUrl: string,
	credentials: { clientId: string; clientSecret: string; apiKey: string },
	txnId: string,
	templates = SESSION_TEMPLATES,
	additionalData?: Record<string, unknown>,
): Promise<void> {
	// Ready at the first status call, as after a v2rx.completed event.
	await json(
		await fetch(`${baseUrl}/__admin/transcription/script`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				txn_id: txnId,
				processingPolls: 0,
				processingMs: 0,
				outcome: 'success',
			}),
		}),
		'script the session',
	);
	const token = await json(
		await fetch(`${baseUrl}/api/v1/auth/token`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-api-key': credentials.apiKey },
			body: JSON.stringify({
				client_id: credentials.clientId,
				client_secret: credentials.clientSecret,
				grant_type: 'client_credentials',
			}),
		}),
		'token',
	);
	const bearer = { authorization: `Bearer ${String(token.access_token)}` };
	const presign = await json(
		await fetch(`${baseUrl}/v1/file-upload?txn_id=${encodeURIComponent(txnId)}&action=scribe-v2`, {
			method: 'POST',
			headers: { ...bearer, 'content-type': 'application/json' },
			body: '{}',
		}),
		'presign',
	);
	const uploadData = presign.uploadData as { url: string; fields: Record<string, string> };
	const folderPath = String(presign.folderPath);
	const fileName = 'visit.mp3';

	const boundary = `----trigger-e2e-${randomBytes(8).toString('hex')}`;
	const parts: Buffer[] = [];
	for (const [name, value] of Object.entries(uploadData.fields)) {
		const fieldValue = name === 'key' ? `${folderPath}${fileName}` : value;
		parts.push(
			Buffer.from(
				`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${fieldValue}\r\n`,
			),
		);
	}
	parts.push(
		Buffer.from(
			`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: audio/mpeg\r\n\r\n`,
		),
	);
	parts.push(randomBytes(2048), Buffer.from(`\r\n--${boundary}--\r\n`));
	const body = Buffer.concat(parts);
	const stored = await fetch(uploadData.url, {
		method: 'POST',
		headers: {
			'content-type': `multipart/form-data; boundary=${boundary}`,
			'content-length': String(body.length),
		},
		body,
	});
	if (stored.status !== 204)
		throw new Error(`storage POST: HTTP ${stored.status} ${await stored.text()}`);

	await json(
		await fetch(`${baseUrl}/voice/api/v2/transaction/init/${encodeURIComponent(txnId)}`, {
			method: 'POST',
			headers: { ...bearer, 'content-type': 'application/json' },
			body: JSON.stringify({
				mode: 'dictation',
				transfer: 'non-vaded',
				batch_s3_url: `${uploadData.url}${folderPath}`,
				client_generated_files: [fileName],
				model_type: 'pro',
				input_language: ['en-IN', 'hi'],
				output_format_template: templates,
				...(additionalData ? { additional_data: additionalData } : {}),
			}),
		}),
		'init',
	);
}
