/**
 * Voice notes from WhatsApp and Telegram (Opus in an Ogg file, named `.opus` or `.oga`, often with a
 * generic MIME type or none) through Upload Audio, over real HTTP against the fake API, whose
 * accepted formats are the documented ones: by extension wav, mp3, m4a, ogg, webm, mp4 (transaction
 * init and session upload alike), and the session upload's listed Content-Types.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';

import { NodeOperationError } from 'n8n-workflow';

import { SESSION_CONTENT_TYPES } from '../../fake-api/routes/transcription/sessionRoutes';
import { fakeSessions, type FakeSessions } from '../../fake-api/routes/transcription/sessionStore';
import { useTestTransportPolicy } from '../../support/transportPolicy';
import { accessToken } from '../fake-api/helpers';
import {
	item,
	TranscriptionRig,
	uploadParameters,
	type AudioFile,
} from '../../support/transcriptionRig';

const rig = new TranscriptionRig();
let sessions: FakeSessions;

beforeAll(async () => {
	await rig.start();
	sessions = fakeSessions(rig.api);
	useTestTransportPolicy({
		retry: { baseDelayMs: 10, maxDelayMs: 50 },
		storageRetry: { baseDelayMs: 10, maxDelayMs: 50 },
	});
});
afterAll(async () => await rig.stop());
beforeEach(() => {
	rig.reset();
	sessions.reset();
});

/** An Ogg Opus file as a phone records it: the "OggS" page header, then the rest. */
function voiceNote(name: string, size = 8_000): AudioFile {
	const file = rig.audioFile(name, size);
	file.bytes.write('OggS', 0, 'latin1');
	file.bytes.writeUInt8(0, 4);
	writeFileSync(file.path, file.bytes);
	file.sha256 = createHash('sha256').update(file.bytes).digest('hex');
	return file;
}

const nothingSent = () => rig.api.requests.filter((r) => !r.path.startsWith('/__admin'));

describe('voice notes, Upload Method "Transaction": stored as .ogg, audio/ogg, and transcribed', () => {
	test(".opus and .oga with a generic MIME type, with Ogg's own and with none; in both binary modes", async () => {
		const whatsapp = voiceNote('PTT-20250101-WA0001.opus');
		const telegram = voiceNote('file_12.oga');
		const typed = voiceNote('PTT-20250101-WA0002.opus');
		const untyped = voiceNote('file_13.oga');
		const items = [
			item({ data: rig.storedBinary(whatsapp, 'application/octet-stream') }),
			item({ data: rig.inMemoryBinary(telegram, 'application/octet-stream') }),
			item({ data: rig.storedBinary(typed, 'audio/ogg; codecs=opus') }),
			item({ data: { ...rig.inMemoryBinary(untyped), mimeType: '' } }),
		];
		const output = await rig.run(uploadParameters({ transactionId: 'visit-voice-notes' }), {
			items,
		});

		expect(output.map((o) => [o.json.file_name, o.json.content_type])).toEqual([
			['PTT-20250101-WA0001.ogg', 'audio/ogg'],
			['file_12.ogg', 'audio/ogg'],
			['PTT-20250101-WA0002.ogg', 'audio/ogg'],
			['file_13.ogg', 'audio/ogg'],
		]);
		const uploads = rig.fake.transaction('visit-voice-notes')!.uploads;
		expect(uploads.map((u) => [u.fileName, u.contentType, u.sha256]).sort()).toEqual(
			[
				['PTT-20250101-WA0001.ogg', 'audio/ogg', whatsapp.sha256],
				['file_12.ogg', 'audio/ogg', telegram.sha256],
				['PTT-20250101-WA0002.ogg', 'audio/ogg', typed.sha256],
				['file_13.ogg', 'audio/ogg', untyped.sha256],
			].sort(),
		);
		// The paid step took them: the service reads .ogg.
		expect(
			rig.api.requestsTo('/voice/api/v2/transaction/init/', 'POST').map((r) => r.status),
		).toEqual([201]);
		expect(rig.fake.transaction('visit-voice-notes')!.initBody!.client_generated_files).toEqual([
			'PTT-20250101-WA0001.ogg',
			'file_12.ogg',
			'PTT-20250101-WA0002.ogg',
			'file_13.ogg',
		]);
	});

	test('a voice note without a name or type (a download saved as "file", application/octet-stream): its first bytes say Ogg', async () => {
		const stored = voiceNote('download');
		const inMemory = voiceNote('download');
		const items = [
			item({ data: { ...rig.storedBinary(stored, 'application/octet-stream'), fileName: 'file' } }),
			item({
				data: { ...rig.inMemoryBinary(inMemory, 'application/octet-stream'), fileName: undefined },
			}),
		];
		const output = await rig.run(uploadParameters({ transactionId: 'visit-unnamed' }), { items });
		expect(output.map((o) => [o.json.file_name, o.json.content_type])).toEqual([
			['file.ogg', 'audio/ogg'],
			['recording-2.ogg', 'audio/ogg'],
		]);
		const uploads = rig.fake.transaction('visit-unnamed')!.uploads;
		// Read whole: looking at the first bytes did not use up the stream that is sent.
		expect(uploads.map((u) => [u.sha256, u.size]).sort()).toEqual(
			[
				[stored.sha256, stored.size],
				[inMemory.sha256, inMemory.size],
			].sort(),
		);
		expect(
			rig.api.requestsTo('/voice/api/v2/transaction/init/', 'POST').map((r) => r.status),
		).toEqual([201]);
	});

	test('bytes that are not audio, with no name and a generic type: refused before anything is sent, saying what to do', async () => {
		const text = rig.audioFile('download', 64);
		text.bytes.write('{"not": "a recording"}', 0, 'latin1');
		writeFileSync(text.path, text.bytes);
		const binary = { ...rig.storedBinary(text, 'application/octet-stream'), fileName: 'file' };
		const error = await rig
			.run(uploadParameters({ transactionId: 'visit-not-audio' }), {
				items: [item({ data: binary })],
			})
			.catch((thrown: unknown) => thrown);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toBe(
			'The file in binary field "data" of item 0 is not an audio file the service accepts (no extension, type application/octet-stream)',
		);
		expect((error as NodeOperationError).description).toContain(
			'voice notes from WhatsApp or Telegram, .opus or .oga, are Ogg and accepted',
		);
		expect((error as NodeOperationError).description).toContain(
			'give its file name one of these extensions',
		);
		expect(nothingSent()).toEqual([]);
	});
});

describe('voice notes, Upload Method "Session": audio_<n>.ogg with a listed Content-Type', () => {
	test('.opus and .oga (generic MIME types) go as audio_0.ogg, audio_1.ogg, Content-Type audio/ogg', async () => {
		const whatsapp = voiceNote('PTT-20250101-WA0001.opus');
		const telegram = voiceNote('file_12.oga');
		const items = [
			item({ data: rig.storedBinary(whatsapp, 'application/octet-stream') }),
			item({ data: rig.inMemoryBinary(telegram, 'application/octet-stream') }),
		];
		const id = 'visit-2025-0101-voice-notes';
		const output = await rig.run(uploadParameters({ uploadMethod: 'session', transactionId: id }), {
			items,
		});
		expect(output.map((o) => o.json.file_name)).toEqual(['audio_0.ogg', 'audio_1.ogg']);
		const uploads = [...sessions.session(id)!.uploads].sort((x, y) =>
			x.fileName.localeCompare(y.fileName),
		);
		expect(uploads.map((u) => [u.fileName, u.contentType, u.sha256])).toEqual([
			['audio_0.ogg', 'audio/ogg', whatsapp.sha256],
			['audio_1.ogg', 'audio/ogg', telegram.sha256],
		]);
		expect(sessions.rejected()).toEqual([]);
	});

	test("every format goes with the Content-Type the service lists for it (mp3 as audio/mp3, not storage's audio/mpeg)", async () => {
		const names = ['a.wav', 'b.mp3', 'c.m4a', 'd.ogg', 'e.webm', 'f.mp4'];
		const ids = names.map((_name, index) => `visit-2025-0101-format-${index}`);
		const items = names.map((name) => item({ data: rig.storedBinary(rig.audioFile(name, 2_000)) }));
		await rig.run(
			uploadParameters({ uploadMethod: 'session', transactionId: (i: number) => ids[i] }),
			{ items },
		);
		const sent = ids.map(
			(id) => sessions.session(id)!.uploads.map((u) => [u.fileName, u.contentType])[0],
		);
		expect(sent).toEqual([
			['audio_0.wav', 'audio/wav'],
			['audio_0.mp3', 'audio/mp3'],
			['audio_0.m4a', 'audio/mp4'],
			['audio_0.ogg', 'audio/ogg'],
			['audio_0.webm', 'audio/webm;codecs=opus'],
			['audio_0.mp4', 'audio/mp4'],
		]);
		expect(
			sent.every(([, type]) => (SESSION_CONTENT_TYPES as readonly string[]).includes(String(type))),
		).toBe(true);
		expect(sessions.rejected()).toEqual([]);
	});
});

describe('the fake takes only the documented formats (so the tests above prove something)', () => {
	/** Token, presign, one file stored under `fileName`, then the init that names it: what the service answers. */
	async function initNaming(fileName: string): Promise<{ status: number; body: unknown }> {
		const txnId = `fake-formats-${fileName.replace(/\W/g, '-')}`;
		const { access } = await accessToken(rig.api);
		const bearer = { authorization: `Bearer ${access}`, 'content-type': 'application/json' };
		const presign = (await (
			await fetch(`${rig.api.url}/v1/file-upload?txn_id=${txnId}&action=scribe-v2`, {
				method: 'POST',
				headers: bearer,
				body: '{}',
			})
		).json()) as {
			uploadData: { url: string; fields: Record<string, string> };
			folderPath: string;
		};
		const form = new FormData();
		for (const [name, value] of Object.entries(presign.uploadData.fields))
			form.append(name, name === 'key' ? `${presign.folderPath}${fileName}` : value);
		form.append('file', new Blob([new Uint8Array(64).fill(3)], { type: 'audio/ogg' }), fileName);
		expect((await fetch(presign.uploadData.url, { method: 'POST', body: form })).status).toBe(204);
		const init = await fetch(`${rig.api.url}/voice/api/v2/transaction/init/${txnId}`, {
			method: 'POST',
			headers: bearer,
			body: JSON.stringify({
				mode: 'dictation',
				transfer: 'non-vaded',
				batch_s3_url: `${presign.uploadData.url}${presign.folderPath}`,
				client_generated_files: [fileName],
				model_type: 'pro',
				input_language: ['en-IN'],
				output_format_template: [
					{ template_id: 'clinical_notes_template', codification_needed: false },
				],
			}),
		});
		return { status: init.status, body: await init.json() };
	}

	test.each(['voice.opus', 'voice.oga', 'voice'])(
		'an init naming %s is refused: invalid_audio_format',
		async (fileName) => {
			const answer = await initNaming(fileName);
			expect(answer.status).toBe(400);
			expect(JSON.stringify(answer.body)).toContain('invalid_audio_format');
		},
	);

	test('an init naming voice.ogg is taken', async () => {
		expect((await initNaming('voice.ogg')).status).toBe(201);
	});
});
