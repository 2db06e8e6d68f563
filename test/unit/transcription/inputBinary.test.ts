/**
 * Where Upload Audio finds an item's file in either Binary Mode of a workflow. The helper below does
 * what n8n-core 2.41.1's assertBinaryData does (utils/binary-helper-functions.js): a binary object is
 * taken as it is; a name is a key of item.binary, or in a combined workflow a path into item.json.
 * test/e2e/binary-modes.e2e.test.ts proves the same inside a real n8n.
 */
import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { readInputBinary } from '../../../nodes/ClinicScribe/actions/transcription/uploadAudio/inputBinary';

const file = (name: string): IBinaryData => ({
	data: 'filesystem-v2',
	id: `filesystem-v2:${name}`,
	mimeType: 'audio/wav',
	fileName: `${name}.wav`,
});
const isBinary = (value: unknown): value is IBinaryData =>
	typeof value === 'object' && value !== null && 'mimeType' in value && 'data' in value;

function context(
	items: INodeExecutionData[],
	binaryMode: 'separate' | 'combined',
): IExecuteFunctions {
	const assertBinaryData = (itemIndex: number, parameter: string | IBinaryData): IBinaryData => {
		if (isBinary(parameter)) return parameter;
		const found =
			binaryMode === 'combined'
				? parameter
						.split('.')
						.reduce<unknown>(
							(at, key) => (at as Record<string, unknown> | undefined)?.[key],
							items[itemIndex].json,
						)
				: items[itemIndex].binary?.[parameter];
		if (!isBinary(found))
			throw new Error(`The path '${parameter}' does not resolve to a binary data object`);
		return found;
	};
	return {
		getNode: () => ({ name: 'Clinic Scribe' }),
		helpers: { assertBinaryData },
	} as unknown as IExecuteFunctions;
}

describe('readInputBinary', () => {
	it("separate workflow: the field is a key of the item's binary data", () => {
		const item = { json: {}, binary: { data: file('a') } };
		expect(readInputBinary(context([item], 'separate'), item, 0, 'data')).toEqual({
			binary: file('a'),
			reference: 'data',
		});
	});

	it('combined workflow: the plain name finds the file under _files, as the path does', () => {
		const item = { json: { visit: 'V-1', _files: { data: file('a') } } };
		const ctx = context([item], 'combined');
		expect(readInputBinary(ctx, item, 0, 'data')).toEqual({
			binary: file('a'),
			reference: '_files.data',
		});
		expect(readInputBinary(ctx, item, 0, '_files.data')).toEqual({
			binary: file('a'),
			reference: '_files.data',
		});
	});

	it("combined workflow in n8n's in-memory mode (files left beside the JSON): the file under the name, through the helper", () => {
		const inMemory = { data: 'UklGRg==', mimeType: 'audio/wav', fileName: 'a.wav' };
		const item = { json: { data: 'not a file' }, binary: { data: inMemory } };
		expect(readInputBinary(context([item], 'combined'), item, 0, 'data')).toEqual({
			binary: inMemory,
			reference: inMemory,
		});
	});

	it('no such file: the error lists the fields the item has, wherever the mode keeps them', () => {
		const item = { json: { _files: { recording: file('r') } }, binary: { other: file('o') } };
		expect(() => readInputBinary(context([item], 'combined'), item, 0, 'data')).toThrow(
			'Item 0 has no binary field "data"',
		);
		try {
			readInputBinary(context([item], 'combined'), item, 0, 'data');
		} catch (error) {
			expect((error as { description: string }).description).toBe(
				'Its binary fields are: other, recording. Set Input Binary Field to the one holding the recording.',
			);
		}
	});
});
