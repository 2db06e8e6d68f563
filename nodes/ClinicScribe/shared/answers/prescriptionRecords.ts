/**
 * Prescriptions ([EKA-DT] `/dr/v1/prescription`): reading the answer of
 * `GET /dr/v1/prescription/{id}` and the PDF links that come with appointments and events.
 */
import type { IDataObject } from 'n8n-workflow';

import { asRecord, firstText, isRecord } from '../values';

/**
 * The prescription record. [EKA-DT] answers at the top level (no `data` wrapper), which [EKA-MCP]
 * reads too; the obsolete `/v1/business/prescription` ([EKA-DT-OLD]) answered inside `data`. Both
 * are accepted; a record must carry `prescription_id` (or the older `rx_id`) to count.
 */
export function readPrescription(body: unknown): IDataObject | undefined {
	for (const candidate of [body, asRecord(body)?.data]) {
		if (isRecord(candidate) && firstText(candidate.prescription_id, candidate.rx_id) !== undefined)
			return candidate;
	}
	return undefined;
}

/**
 * The PDF link a record carries, if any. The prescription itself has none today ([EKA-DT]);
 * appointments and `prescription.*` events carry `prescription_url` ([EKA-DT], [EKA-PW],
 * [EKA-COMMS]), read first; the obsolete shape ([EKA-DT-OLD]) `rx_url`.
 */
export function prescriptionPdfUrlOf(record: unknown): string | undefined {
	const value = asRecord(record);
	if (!value) return undefined;
	const data = asRecord(value.data);
	return firstText(value.prescription_url, value.rx_url, data?.prescription_url, data?.rx_url);
}

type PdfUrlCheck = { ok: true; url: string; host: string } | { ok: false; problem: string };

/** A PDF link must be an absolute http(s) URL; the message names no part of it (it may carry a signature). */
export function checkPdfUrl(value: unknown): PdfUrlCheck {
	const text = typeof value === 'string' ? value.trim() : '';
	if (text === '') return { ok: false, problem: 'is empty' };
	let parsed: URL;
	try {
		parsed = new URL(text);
	} catch {
		return { ok: false, problem: 'is not a URL' };
	}
	if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
		return { ok: false, problem: 'is not an http(s) address' };
	if (parsed.username || parsed.password)
		return { ok: false, problem: 'carries a user name or password, which is not sent' };
	return { ok: true, url: parsed.toString(), host: parsed.host };
}

/** The file name of a downloaded PDF: the link's last path segment when it is a .pdf, else from the id. */
export function prescriptionPdfFileName(url: string, prescriptionId: string): string {
	let last = '';
	try {
		last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
	} catch {
		last = '';
	}
	if (/^[\w.-]{1,200}\.pdf$/i.test(last)) return last;
	const safeId = prescriptionId.replace(/[^\w.-]/g, '_').slice(0, 150) || 'prescription';
	return `${safeId}.pdf`;
}

/** True when the bytes start as a PDF does (`%PDF-`), so an HTML error page is not stored as one. */
export function looksLikePdf(bytes: Buffer): boolean {
	return bytes.length >= 5 && bytes.subarray(0, 5).toString('latin1') === '%PDF-';
}
