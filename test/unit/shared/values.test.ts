import {
	asRecord,
	firstNonNull,
	firstPresent,
	firstText,
	isRecord,
	textOf,
	trimmedString,
} from '../../../nodes/ClinicScribe/shared/values';

describe('value helpers (one behaviour each, shared by every room)', () => {
	test('isRecord: plain objects only', () => {
		expect(isRecord({})).toBe(true);
		expect(isRecord({ a: 1 })).toBe(true);
		expect(isRecord([])).toBe(false);
		expect(isRecord(null)).toBe(false);
		expect(isRecord(undefined)).toBe(false);
		expect(isRecord('{}')).toBe(false);
		expect(isRecord(3)).toBe(false);
	});

	test('asRecord: the same object, or undefined', () => {
		const body = { data: { id: 'x' } };
		expect(asRecord(body)).toBe(body);
		expect(asRecord([1, 2])).toBeUndefined();
		expect(asRecord(null)).toBeUndefined();
		expect(asRecord('text')).toBeUndefined();
	});

	test('textOf: trimmed non-blank strings and finite numbers; nothing else', () => {
		expect(textOf('  abc ')).toBe('abc');
		expect(textOf('abc')).toBe('abc');
		expect(textOf('')).toBeUndefined();
		expect(textOf('   ')).toBeUndefined();
		expect(textOf(42)).toBe('42');
		expect(textOf(0)).toBe('0');
		expect(textOf(1.5)).toBe('1.5');
		expect(textOf(Number.NaN)).toBeUndefined();
		expect(textOf(Number.POSITIVE_INFINITY)).toBeUndefined();
		expect(textOf(true)).toBeUndefined();
		expect(textOf(null)).toBeUndefined();
		expect(textOf(undefined)).toBeUndefined();
		expect(textOf({ toString: () => 'x' })).toBeUndefined();
	});

	test('trimmedString: a string trimmed, "" for anything else (numbers included)', () => {
		expect(trimmedString('  pro ')).toBe('pro');
		expect(trimmedString('')).toBe('');
		expect(trimmedString('   ')).toBe('');
		expect(trimmedString(7)).toBe('');
		expect(trimmedString(null)).toBe('');
		expect(trimmedString(undefined)).toBe('');
		expect(trimmedString(['a'])).toBe('');
	});

	test('firstText: the first value with text, read as textOf reads it', () => {
		expect(firstText(undefined, '', '  ', ' b ', 'c')).toBe('b');
		expect(firstText(null, 12, 'c')).toBe('12');
		expect(firstText(Number.NaN, false, {}, 'last')).toBe('last');
		expect(firstText(undefined, '', null)).toBeUndefined();
		expect(firstText()).toBeUndefined();
	});

	test('firstPresent: skips undefined, null and "", keeps 0, false and blanks of other kinds', () => {
		expect(firstPresent(undefined, null, '', 'x')).toBe('x');
		expect(firstPresent(undefined, 0, 'x')).toBe(0);
		expect(firstPresent(null, false, 'x')).toBe(false);
		expect(firstPresent('', '  ')).toBe('  ');
		const record = { a: 1 };
		expect(firstPresent(undefined, record)).toBe(record);
		expect(firstPresent(undefined, null, '')).toBeUndefined();
	});

	test('firstNonNull: skips undefined and null only, so an empty string the API sent is kept', () => {
		expect(firstNonNull(undefined, null, '', 'x')).toBe('');
		expect(firstNonNull(undefined, 0, 'x')).toBe(0);
		expect(firstNonNull(null, false)).toBe(false);
		expect(firstNonNull(undefined, null)).toBeUndefined();
	});
});
