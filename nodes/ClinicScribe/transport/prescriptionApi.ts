/**
 * Prescriptions ([EKA-DT]), as calls:
 *
 * - `getPrescription`: `GET /dr/v1/prescription/{prescription_id}` through `clinicApiRequest`
 *   ([EKA-DT] declares the raw `auth` header, as for every `/dr` call; [EKA-MCP] sends Bearer +
 *   client-id: the credential adds what authentication.ts says).
 * - `downloadPrescriptionPdf`: the PDF behind a `prescription_url` (appointment, `prescription.*`
 *   events). It lives on another host (`prescription-store-s3.eka.care`), so it is fetched as a
 *   link (storage.ts): no token, no `auth`, no client-id ever goes with it, whatever host the
 *   link names.
 */
import { NodeApiError, NodeOperationError, type JsonObject } from 'n8n-workflow';

import {
	checkPdfUrl,
	looksLikePdf,
	prescriptionPdfFileName,
} from '../shared/answers/prescriptionRecords';
import type { ClinicApiContext, ClinicApiResponse } from './apiCall';
import { clinicApiRequest, pathSegment } from './request';
import { getFromLink } from './storage';

const PRESCRIPTION_PATH = '/dr/v1/prescription';

export async function getPrescription(
	ctx: ClinicApiContext,
	prescriptionId: string,
	itemIndex?: number,
	/** Ends the call and its retries (the trigger's deadline); default: the execution's cancel signal. */
	bounds: { abortSignal?: AbortSignal; timeoutMs?: number } = {},
): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: `${PRESCRIPTION_PATH}/${pathSegment(ctx, prescriptionId, 'Prescription ID', itemIndex)}`,
		idempotent: true,
		abortSignal: bounds.abortSignal,
		timeoutMs: bounds.timeoutMs,
		purpose: 'the prescription',
		itemIndex,
	});
}

interface PrescriptionPdf {
	data: Buffer;
	mimeType: string;
	fileName: string;
}

interface PdfTarget {
	/** Checked by `checkPdfUrl` (shared/answers/prescriptionRecords.ts). */
	url: string;
	/** Names the link in messages (never the whole link, which may be signed). */
	host: string;
	/** For the file name when the link has no `.pdf` name. */
	prescriptionId?: string;
}

/**
 * The PDF's bytes, from a link (a `prescription_url`) or a target already checked. A link that is
 * not an absolute http(s) URL is refused before anything is sent; the download is storage.ts's.
 */
export async function downloadPrescriptionPdf(
	ctx: ClinicApiContext,
	link: string | PdfTarget,
	itemIndex?: number,
): Promise<PrescriptionPdf> {
	const target = typeof link === 'string' ? checkedTarget(ctx, link, itemIndex) : link;
	const purpose = 'the prescription PDF';
	const answer = await getFromLink(
		ctx,
		{
			url: target.url,
			host: target.host,
			purpose,
			itemIndex,
			accept: 'application/pdf',
			encoding: 'arraybuffer',
		},
		(statusCode, attempts) =>
			new NodeApiError(ctx.getNode(), { status_code: statusCode } as JsonObject, {
				message: `${target.host} refused ${purpose} (HTTP ${statusCode})`,
				description: pdfAdvice(statusCode, attempts),
				httpCode: String(statusCode),
				itemIndex,
			}),
	);
	const data = toBuffer(answer.body);
	if (!looksLikePdf(data)) {
		throw new NodeApiError(ctx.getNode(), { status_code: answer.statusCode } as JsonObject, {
			message: `${target.host} answered ${purpose} with something that is not a PDF (HTTP ${answer.statusCode})`,
			description:
				'Check that the link is the prescription_url (or prescription_url_print) of the appointment or prescription event, and not a web page.',
			httpCode: String(answer.statusCode),
			itemIndex,
		});
	}
	return {
		data,
		mimeType: 'application/pdf',
		fileName: prescriptionPdfFileName(target.url, target.prescriptionId ?? ''),
	};
}

function checkedTarget(ctx: ClinicApiContext, link: string, itemIndex?: number): PdfTarget {
	const check = checkPdfUrl(link);
	if (check.ok) return { url: check.url, host: check.host };
	const item = itemIndex === undefined ? '' : ` of item ${itemIndex}`;
	throw new NodeOperationError(ctx.getNode(), `The prescription PDF link${item} ${check.problem}`, {
		description:
			'Use the prescription_url of the appointment or of the prescription event (an https:// link to the PDF); nothing was sent.',
		itemIndex,
	});
}

function pdfAdvice(statusCode: number, attempts: number): string {
	const retried = attempts > 1 ? ` (tried ${attempts} times)` : '';
	if (statusCode >= 300 && statusCode < 400)
		return `The link redirects elsewhere, which is not followed. Use the prescription_url exactly as the appointment or event gave it${retried}.`;
	if (statusCode === 403 || statusCode === 404 || statusCode === 410)
		return `The link may have expired or the PDF been replaced (an edited prescription gets a new link). Get the appointment again, or use the link of the latest prescription event${retried}.`;
	return `Run again later${retried}.`;
}

function toBuffer(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
	if (typeof body === 'string') return Buffer.from(body, 'latin1');
	return Buffer.alloc(0);
}
