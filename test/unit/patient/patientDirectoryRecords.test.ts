import {
	buildProfileBody,
	checkBloodGroup,
	checkCalendarDate,
	checkDirectoryMobile,
	checkEpochSeconds,
	checkGender,
	readDirectoryProfile,
	readDirectoryProfiles,
	readProfilePage,
} from '../../../nodes/ClinicScribe/shared/answers/patientDirectoryRecords';
import {
	authHeadersFor,
	readCredentialSettings,
} from '../../../nodes/ClinicScribe/transport/authentication';

describe('checkDirectoryMobile', () => {
	it.each([
		['9876543210', '+919876543210'],
		['98765-43210', '+919876543210'],
		['(98765) 43210', '+919876543210'],
		['+91 98765 43210', '+919876543210'],
		['0091 9876543210', '+919876543210'],
		['919876543210', '+919876543210'],
		['09876543210', '+919876543210'],
		[9876543210, '+919876543210'],
		['+44 7911 123456', '+447911123456'],
	])('%p → %p', (input, expected) => {
		const check = checkDirectoryMobile(input);
		expect(check).toMatchObject({ ok: true, value: { withCountryCode: expected } });
	});

	it.each([
		['', 'is empty'],
		[
			'98765 4321x',
			'contains characters other than digits, a leading "+", spaces, dashes, dots and brackets',
		],
		[
			'9+876543210',
			'contains characters other than digits, a leading "+", spaces, dashes, dots and brackets',
		],
		[
			'987654321',
			'has 9 digits: give the 10-digit mobile number, or the number with its country code (+91 and 10 digits)',
		],
		['+91987654321', 'has 9 digits after +91: an Indian mobile number has 10'],
		['1234567890', 'is not an Indian mobile number (after +91 it must start with 6, 7, 8 or 9)'],
		[
			'+1234567',
			'has 7 digits after the country code sign: a number with its country code has 8 to 15',
		],
	])('refuses %p without repeating it', (input, problem) => {
		expect(checkDirectoryMobile(input)).toEqual({ ok: false, problem });
	});
});

describe('checkCalendarDate', () => {
	it('takes the date as written from strings, Date and Luxon-like values', () => {
		expect(checkCalendarDate('2000-01-02')).toEqual({ ok: true, value: '2000-01-02' });
		expect(checkCalendarDate('2000-01-02T23:30:00-05:00')).toEqual({
			ok: true,
			value: '2000-01-02',
		});
		expect(checkCalendarDate(new Date('2000-01-02T00:00:00Z'))).toEqual({
			ok: true,
			value: '2000-01-02',
		});
		expect(checkCalendarDate({ toISO: () => '1999-12-31T00:00:00.000+05:30' })).toEqual({
			ok: true,
			value: '1999-12-31',
		});
	});

	it.each([
		['', 'is empty'],
		[946771200, 'is a number, not a date'],
		['02/01/2000', 'is not a date in the form YYYY-MM-DD'],
		['2001-02-29', 'is not a real calendar date'],
		['1850-01-01', 'is before 1880'],
	])('refuses %p', (input, problem) => {
		expect(checkCalendarDate(input)).toEqual({ ok: false, problem });
	});
});

describe('checkEpochSeconds', () => {
	const now = Date.parse('2026-11-23T00:00:00Z');
	it('reads ISO strings, dates, epoch seconds and milliseconds', () => {
		expect(checkEpochSeconds('2025-06-24T06:00:00Z', now)).toEqual({ ok: true, value: 1750744800 });
		expect(checkEpochSeconds('2025-06-24T11:30:00+05:30', now)).toEqual({
			ok: true,
			value: 1750744800,
		});
		expect(checkEpochSeconds('2025-06-24', now)).toEqual({ ok: true, value: 1750723200 });
		expect(checkEpochSeconds(1750744800, now)).toEqual({ ok: true, value: 1750744800 });
		expect(checkEpochSeconds('1750744800000', now)).toEqual({ ok: true, value: 1750744800 });
		expect(checkEpochSeconds({ toMillis: () => 1750744800000 }, now)).toEqual({
			ok: true,
			value: 1750744800,
		});
	});

	it("reads a date-time without a zone in the workflow's zone", () => {
		expect(checkEpochSeconds('2025-06-24T11:30:00', now, 'Asia/Kolkata')).toEqual({
			ok: true,
			value: 1750744800,
		});
		expect(checkEpochSeconds('2025-06-24', now, 'Asia/Kolkata')).toEqual({
			ok: true,
			value: 1750703400,
		});
		expect(checkEpochSeconds('2025-06-24T06:00:00', now)).toEqual({ ok: true, value: 1750744800 });
		// New York is on summer time (UTC-4) in June, on standard time (UTC-5) in January.
		expect(checkEpochSeconds('2025-06-24T02:00:00', now, 'America/New_York')).toEqual({
			ok: true,
			value: 1750744800,
		});
		expect(checkEpochSeconds('2025-01-24T01:00:00', now, 'America/New_York')).toEqual({
			ok: true,
			value: 1737698400,
		});
		expect(checkEpochSeconds('2025-06-24T06:00:00', now, 'Not/AZone')).toEqual({
			ok: false,
			problem: 'is not a valid date and time',
		});
	});

	it.each([
		['2025-02-30T00:00:00', 'is not a valid date and time'],
		['yesterday', 'is not a date and time (for example 2026-01-31T09:00:00+05:30)'],
		['2025-13-45T00:00:00Z', 'is not a valid date and time'],
		['2999-01-01', 'is in the future'],
		[null, 'is empty'],
	])('refuses %p', (input, problem) => {
		expect(checkEpochSeconds(input, now)).toEqual({ ok: false, problem });
	});
});

describe('gender and blood group', () => {
	it('accept codes and words', () => {
		expect(checkGender('female')).toEqual({ ok: true, value: 'F' });
		expect(checkGender('m')).toEqual({ ok: true, value: 'M' });
		expect(checkGender('X')).toEqual({ ok: false, problem: 'is not M, F or O' });
		expect(checkBloodGroup('ab+')).toEqual({ ok: true, value: 'AB+' });
		expect(checkBloodGroup('O negative')).toEqual({ ok: true, value: 'O-' });
		expect(checkBloodGroup('B +ve')).toEqual({ ok: true, value: 'B+' });
		expect(checkBloodGroup('C+')).toMatchObject({ ok: false });
	});
});

describe('buildProfileBody', () => {
	it('writes bg (not bloodgroup) and the mobile with +91, and lists the patient data it sends', () => {
		const built = buildProfileBody(
			{
				firstName: 'Meera',
				lastName: 'Nair',
				dateOfBirth: '1992-07-15',
				gender: 'F',
				mobile: '9845012345',
				bloodGroup: 'A+',
				email: 'M@x.io',
				dobFromAge: true,
			},
			'create',
		);
		expect(built).toEqual({
			ok: true,
			value: {
				body: {
					fn: 'Meera',
					ln: 'Nair',
					dob: '1992-07-15',
					is_age: true,
					gen: 'F',
					mobile: '+919845012345',
					email: 'M@x.io',
					bg: 'A+',
				},
				sensitive: expect.arrayContaining([
					'Meera',
					'meera',
					'Nair',
					'1992-07-15',
					'+919845012345',
					'9845012345',
					'M@x.io',
					'm@x.io',
				]),
			},
		});
	});

	it('create needs a name, a date of birth and a gender; a full name alone is a name', () => {
		expect(buildProfileBody({ dateOfBirth: '1992-07-15', gender: 'F' }, 'create')).toEqual({
			ok: false,
			problem: 'The First Name is empty',
		});
		expect(buildProfileBody({ firstName: 'A', gender: 'F' }, 'create')).toEqual({
			ok: false,
			problem: 'The Date of Birth is empty',
		});
		expect(buildProfileBody({ firstName: 'A', dateOfBirth: '1992-07-15' }, 'create')).toEqual({
			ok: false,
			problem: 'The Gender is empty',
		});
		expect(
			buildProfileBody({ fullName: 'A B', dateOfBirth: '1992-07-15', gender: 'O' }, 'create'),
		).toMatchObject({ ok: true, value: { body: { fln: 'A B' } } });
	});

	it('update sends only what is given and refuses nothing at all', () => {
		expect(buildProfileBody({ username: 'U-1', firstName: '  ' }, 'update')).toMatchObject({
			ok: true,
			value: { body: { username: 'U-1' } },
		});
		expect(buildProfileBody({}, 'update')).toEqual({
			ok: false,
			problem: 'No field to update was given',
		});
	});
});

describe('reading the directory answers', () => {
	it('by-mobile: an array (TS SDK), one object (PD) or a wrapper', () => {
		expect(readDirectoryProfiles([{ oid: '1' }, { oid: '2' }, 'x'])).toEqual([
			{ oid: '1' },
			{ oid: '2' },
		]);
		expect(readDirectoryProfiles({ oid: '1', fln: 'a' })).toEqual([{ oid: '1', fln: 'a' }]);
		expect(readDirectoryProfiles({ profiles: [{ oid: '3' }] })).toEqual([{ oid: '3' }]);
		expect(readDirectoryProfiles({ data: { oid: '4' } })).toEqual([{ oid: '4' }]);
		expect(readDirectoryProfiles({ message: 'ok' })).toBeUndefined();
		expect(readDirectoryProfiles('<html>')).toBeUndefined();
	});

	it('one profile', () => {
		expect(readDirectoryProfile({ oid: '1' })).toEqual({ oid: '1' });
		expect(readDirectoryProfile({ data: { oid: '2' } })).toEqual({ oid: '2' });
		expect(readDirectoryProfile({})).toBeUndefined();
	});

	it('a page: nextPage -1 is the end; the TS SDK data[] form ends on a short page', () => {
		expect(
			readProfilePage(
				{ profiles: [{ oid: '1' }], currPageMeta: { currPageNo: 1, pageSize: 1, nextPage: 2 } },
				1,
			),
		).toEqual({ profiles: [{ oid: '1' }], nextPage: 2 });
		expect(readProfilePage({ profiles: [], currPageMeta: { nextPage: -1 } }, 1)).toEqual({
			profiles: [],
			nextPage: undefined,
		});
		expect(readProfilePage({ data: [{ oid: '1' }, { oid: '2' }], page: 1 }, 2)).toEqual({
			profiles: [{ oid: '1' }, { oid: '2' }],
			nextPage: 2,
		});
		expect(readProfilePage({ data: [{ oid: '1' }], page: 2 }, 2)).toEqual({
			profiles: [{ oid: '1' }],
			nextPage: undefined,
		});
		expect(readProfilePage({ items: [] }, 2)).toBeUndefined();
	});
});

describe('authHeadersFor: the patient directory', () => {
	it('sends client-id to /profiles with either variant, Bearer not auth', () => {
		const document = readCredentialSettings({
			apiVariant: 'document',
			environment: 'custom',
			baseUrl: 'https://gw.example.com',
			clientId: 'client-1',
		});
		expect(authHeadersFor('https://gw.example.com/profiles/v1/patient/', 't', document)).toEqual({
			Authorization: 'Bearer t',
			'client-id': 'client-1',
		});
		expect(authHeadersFor('/profiles/v1/patient/search?prefix=a', 't', document)).toEqual({
			Authorization: 'Bearer t',
			'client-id': 'client-1',
		});
		expect(authHeadersFor('/dr/v1/prescription/x', 't', document)).toEqual({ auth: 't' });
		expect(authHeadersFor('/profilesX/v1', 't', document)).toEqual({ Authorization: 'Bearer t' });
		expect(authHeadersFor('/profiles/v1/patient/', 't', { ...document, clientId: '' })).toEqual({
			Authorization: 'Bearer t',
		});
	});
});
