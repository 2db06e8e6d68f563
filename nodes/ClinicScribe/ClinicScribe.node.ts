import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import * as business from './actions/business';
import * as doctor from './actions/doctor';
import * as patient from './actions/patient';
import { route } from './actions/router';
import * as transcription from './actions/transcription';
import { searchDoctors } from './methods/listSearch';

export class ClinicScribe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Clinic Scribe',
		name: 'clinicScribe',
		icon: { light: 'file:clinicScribe.svg', dark: 'file:clinicScribe.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: "Doctors' services, patient search, clinics and doctors, and transcription of consultations",
		defaults: { name: 'Clinic Scribe' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'clinicScribeApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Business', value: 'business' },
					{ name: 'Doctor', value: 'doctor' },
					{ name: 'Patient', value: 'patient' },
					{ name: 'Transcription', value: 'transcription' },
				],
				default: 'doctor',
			},
			...business.description,
			...doctor.description,
			...patient.description,
			...transcription.description,
		],
	};

	methods = {
		listSearch: { searchDoctors },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await route.call(this);
	}
}
