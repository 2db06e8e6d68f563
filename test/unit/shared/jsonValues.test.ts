import { readJsonObjectParameter, sameJsonValue } from '../../../nodes/ClinicScribe/shared/values';

describe('sameJsonValue: two values compared as JSON', () => {
	test('objects are the same whatever the order of their keys, at every depth', () => {
		expect(
			sameJsonValue(
				{ a: 1, b: { c: [1, { d: 2, e: 3 }] } },
				{ b: { c: [1, { e: 3, d: 2 }] }, a: 1 },
			),
		).toBe(true);
		expect(sameJsonValue({}, {})).toBe(true);
		expect(sameJsonValue(undefined, undefined)).toBe(true);
	});

	test('a key whose value is undefined counts as absent, as in JSON text', () => {
		expect(sameJsonValue({ a: 1, b: undefined }, { a: 1 })).toBe(true);
		expect(sameJsonValue({ a: 1 }, { a: 1, b: undefined })).toBe(true);
	});

	test('anything else that differs is different: a value, a key, array order or length, a type', () => {
		expect(sameJsonValue({ a: 1 }, { a: 2 })).toBe(false);
		expect(sameJsonValue({ a: 1 }, { b: 1 })).toBe(false);
		expect(sameJsonValue({ a: 1 }, { a: 1, b: null })).toBe(false);
		expect(sameJsonValue(['a', 'b'], ['b', 'a'])).toBe(false);
		expect(sameJsonValue(['a'], ['a', 'a'])).toBe(false);
		expect(sameJsonValue({ 0: 'a' }, ['a'])).toBe(false);
		expect(sameJsonValue('1', 1)).toBe(false);
		expect(sameJsonValue(null, {})).toBe(false);
		expect(sameJsonValue(undefined, {})).toBe(false);
	});

	test('an own "__proto__" key is a key like any other', () => {
		expect(
			sameJsonValue(JSON.parse('{"__proto__": {"x": 1}}'), JSON.parse('{"__proto__": {"x": 1}}')),
		).toBe(true);
		expect(sameJsonValue(JSON.parse('{"__proto__": {"x": 1}}'), {})).toBe(false);
	});
});

describe('readJsonObjectParameter: a JSON object given as text or as an object', () => {
	test('empty is no object and no problem', () => {
		for (const empty of [undefined, null, '']) expect(readJsonObjectParameter(empty)).toEqual({});
	});

	test('JSON text of an object, or the object itself', () => {
		expect(readJsonObjectParameter('{"visit": {"id": "V-42"}}')).toEqual({
			object: { visit: { id: 'V-42' } },
		});
		const given = { visit: 'V-42' };
		expect(readJsonObjectParameter(given).object).toBe(given);
	});

	test('text that is not JSON, and JSON or values that are not an object, say which', () => {
		expect(readJsonObjectParameter('{visit: 1}')).toEqual({ problem: 'is not valid JSON' });
		for (const value of ['[1]', '"text"', '3', 'null', [1], 3, true])
			expect(readJsonObjectParameter(value)).toEqual({ problem: 'is not a JSON object' });
	});
});
