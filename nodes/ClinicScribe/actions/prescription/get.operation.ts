import {
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import {
	checkPdfUrl,
	prescriptionPdfUrlOf,
	readPrescription,
} from '../../shared/answers/prescriptionRecords';
import { trimmedString } from '../../shared/values';
import { downloadPrescriptionPdf, getPrescription } from '../../transport/prescriptionApi';
import { pathIdProblem } from '../../transport/request';
import { unexpectedBodyError } from '../../transport/errors';
import { patientDataForAgentProperties } from '../common.descriptions';
import { assertPatientDataMayGoToAgent } from '../common.execute';

const show = { resource: ['prescription'], operation: ['get'] };

export const description: INodeProperties[] = [
	...patientDataForAgentProperties(show),
	{
		displayName: 'Prescription ID',
		name: 'prescriptionId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. P-DW-1730717340935-0001',
		description:
			"The prescription's ID, as an appointment (prescription_id) or a prescription event gives it",
		displayOptions: { show },
	},
	{
		displayName: 'Download PDF',
		name: 'downloadPdf',
		type: 'boolean',
		default: false,
		description: 'Whether to also download the prescription PDF into a binary field of the item',
		displayOptions: { show },
	},
	{
		displayName: 'PDF URL',
		name: 'pdfUrl',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.data.prescription_url }}',
		hint: "The prescription's own answer has no PDF link today: map the appointment's prescription_url or the event's data.prescription_url (or prescription_url_print) here",
		description:
			'The link of the PDF. When empty, a link in the prescription answer is used if it has one. No token or key is sent to it.',
		displayOptions: { show: { ...show, downloadPdf: [true] } },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		description: 'The name of the binary field the PDF is put in',
		displayOptions: { show: { ...show, downloadPdf: [true] } },
	},
];

export async function executeData(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const prescriptionId = trimmedString(this.getNodeParameter('prescriptionId', itemIndex, ''));
	const idProblem = pathIdProblem(prescriptionId);
	if (idProblem) {
		throw new NodeOperationError(
			this.getNode(),
			`The Prescription ID of item ${itemIndex} ${idProblem}`,
			{
				description:
					"Enter the prescription's ID, for example from the appointment's prescription_id or the event's data.prescription_id; nothing was sent.",
				itemIndex,
			},
		);
	}
	const downloadPdf = this.getNodeParameter('downloadPdf', itemIndex, false) as boolean;
	const pdfUrlField = downloadPdf
		? trimmedString(this.getNodeParameter('pdfUrl', itemIndex, ''))
		: '';
	const binaryPropertyName = downloadPdf
		? trimmedString(this.getNodeParameter('binaryPropertyName', itemIndex, 'data'))
		: '';
	if (downloadPdf && binaryPropertyName === '') {
		throw new NodeOperationError(
			this.getNode(),
			`The Put Output File in Field of item ${itemIndex} is empty`,
			{
				description:
					'Enter the name of the binary field for the PDF, for example data; nothing was sent.',
				itemIndex,
			},
		);
	}
	if (pdfUrlField !== '') {
		const check = checkPdfUrl(pdfUrlField);
		if (!check.ok) {
			throw new NodeOperationError(
				this.getNode(),
				`The PDF URL of item ${itemIndex} ${check.problem}`,
				{
					description:
						'Map the prescription_url of the appointment or of the prescription event (an https:// link to the PDF), or leave it empty; nothing was sent.',
					itemIndex,
				},
			);
		}
	}
	assertPatientDataMayGoToAgent(this, itemIndex, 'Prescription Get');

	const response = await getPrescription(this, prescriptionId, itemIndex);
	const prescription = readPrescription(response.body);
	if (!prescription)
		throw unexpectedBodyError(
			this,
			{ purpose: 'the prescription', itemIndex },
			response.statusCode,
		);
	if (!downloadPdf) return [{ json: prescription }];

	const link = pdfUrlField !== '' ? pdfUrlField : prescriptionPdfUrlOf(prescription);
	if (link === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The prescription of item ${itemIndex} came without a PDF link, and PDF URL is empty`,
			{
				description:
					"The service's prescription answer has no PDF link. Map the appointment's prescription_url (Appointment → Get) or the prescription event's data.prescription_url into PDF URL.",
				itemIndex,
			},
		);
	}
	const check = checkPdfUrl(link);
	if (!check.ok) {
		throw new NodeOperationError(
			this.getNode(),
			`The PDF link in the prescription of item ${itemIndex} ${check.problem}`,
			{
				description:
					"Map the appointment's prescription_url or the event's data.prescription_url into PDF URL.",
				itemIndex,
			},
		);
	}
	const pdf = await downloadPrescriptionPdf(
		this,
		{ url: check.url, host: check.host, prescriptionId },
		itemIndex,
	);
	const binary = await this.helpers.prepareBinaryData(pdf.data, pdf.fileName, pdf.mimeType);
	return [{ json: prescription, binary: { [binaryPropertyName]: binary } }];
}
