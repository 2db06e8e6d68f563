import {
	checkPdfUrl,
	looksLikePdf,
	prescriptionPdfFileName,
	prescriptionPdfUrlOf,
	readPrescription,
} from '../../../nodes/ClinicScribe/shared/answers/prescriptionRecords';

describe('readPrescription', () => {
	it('reads the top-level record (DT) and the older data-wrapped one', () => {
		expect(readPrescription({ prescription_id: 'P-1', doctor_id: 'd' })).toEqual({
			prescription_id: 'P-1',
			doctor_id: 'd',
		});
		expect(readPrescription({ data: { rx_id: 'R-1', rx_url: 'https://x/y.pdf' } })).toEqual({
			rx_id: 'R-1',
			rx_url: 'https://x/y.pdf',
		});
	});

	it('refuses what is not a prescription', () => {
		expect(readPrescription('<html>')).toBeUndefined();
		expect(readPrescription({ data: {} })).toBeUndefined();
		expect(readPrescription([{ prescription_id: 'P-1' }])).toBeUndefined();
		expect(readPrescription({ prescription_id: '  ' })).toBeUndefined();
	});
});

describe('prescriptionPdfUrlOf', () => {
	it('prefers prescription_url (most sources), then rx_url, then the same inside data', () => {
		expect(
			prescriptionPdfUrlOf({ prescription_url: 'https://a/1.pdf', rx_url: 'https://b/2.pdf' }),
		).toBe('https://a/1.pdf');
		expect(prescriptionPdfUrlOf({ rx_url: 'https://b/2.pdf' })).toBe('https://b/2.pdf');
		expect(prescriptionPdfUrlOf({ data: { prescription_url: 'https://c/3.pdf' } })).toBe(
			'https://c/3.pdf',
		);
		expect(prescriptionPdfUrlOf({ prescription_id: 'P' })).toBeUndefined();
		expect(prescriptionPdfUrlOf(null)).toBeUndefined();
	});
});

describe('checkPdfUrl', () => {
	it('accepts http(s) links and gives their host', () => {
		expect(checkPdfUrl(' https://prescription-store-s3.eka.care/P-DW-1234.pdf ')).toEqual({
			ok: true,
			url: 'https://prescription-store-s3.eka.care/P-DW-1234.pdf',
			host: 'prescription-store-s3.eka.care',
		});
	});

	it.each([
		['', 'is empty'],
		[42, 'is empty'],
		['P-DW-1234.pdf', 'is not a URL'],
		['ftp://host/x.pdf', 'is not an http(s) address'],
		['https://user:pw@host/x.pdf', 'carries a user name or password, which is not sent'],
	])('refuses %p', (value, problem) => {
		expect(checkPdfUrl(value)).toEqual({ ok: false, problem });
	});
});

describe('prescriptionPdfFileName', () => {
	it("uses the link's file name when it is a .pdf, else the id", () => {
		expect(prescriptionPdfFileName('https://s/P-DW-1234.pdf?X-Amz-Signature=abc', 'P-1')).toBe(
			'P-DW-1234.pdf',
		);
		expect(prescriptionPdfFileName('https://s/download?id=7', 'P-DW/7')).toBe('P-DW_7.pdf');
		expect(prescriptionPdfFileName('https://s/', '')).toBe('prescription.pdf');
	});
});

describe('looksLikePdf', () => {
	it('checks the %PDF- signature', () => {
		expect(looksLikePdf(Buffer.from('%PDF-1.4\n…'))).toBe(true);
		expect(looksLikePdf(Buffer.from('<?xml version="1.0"?><Error>'))).toBe(false);
		expect(looksLikePdf(Buffer.alloc(0))).toBe(false);
	});
});
