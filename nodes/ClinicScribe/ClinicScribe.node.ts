import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import * as appointment from './actions/appointment';
import * as business from './actions/business';
import { optionsOf } from './actions/common.descriptions';
import * as doctor from './actions/doctor';
import * as medLink from './actions/medLink';
import * as patient from './actions/patient';
import * as prescription from './actions/prescription';
import { route } from './actions/router';
import * as template from './actions/template';
import * as transcription from './actions/transcription';
import { searchClinics, searchDoctors, searchTemplates } from './methods/listSearch';
import { authenticationProperty } from './shared/fields/credentialChoice';
import { optionNameSubtitle } from './shared/fields/optionSubtitle';

const properties: INodeProperties[] = [
	authenticationProperty,
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Appointment', value: 'appointment' },
			{ name: 'Business', value: 'business' },
			{ name: 'Doctor', value: 'doctor' },
			{ name: 'MedLink', value: 'medLink' },
			{ name: 'Patient', value: 'patient' },
			{ name: 'Prescription', value: 'prescription' },
			{ name: 'Template', value: 'template' },
			{ name: 'Transcription', value: 'transcription' },
		],
		default: 'doctor',
	},
	...appointment.description,
	...business.description,
	...doctor.description,
	...medLink.description,
	...patient.description,
	...prescription.description,
	...template.description,
	...transcription.description,
];

export class ClinicScribe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Clinic Scribe',
		name: 'clinicScribe',
		icon: { light: 'file:clinicScribe.svg', dark: 'file:clinicScribe.dark.svg' },
		group: ['transform'],
		// 2 changed a default (Patient's operation: the directory's Search by Mobile); version 1 nodes
		// of saved workflows keep theirs. README "Versions" lists what each version changed.
		version: [1, 2],
		defaultVersion: 2,
		// What the user picked, as the editor names it ("Upload Audio"), not the stored value.
		subtitle: optionNameSubtitle('operation', optionsOf(properties, 'operation')),
		description:
			'Transcribe consultations into clinical documents, manage appointments, patients and prescriptions, and look up clinics, doctors and services',
		defaults: { name: 'Clinic Scribe' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Each credential for its Authentication choice (see authenticationProperty).
		credentials: [
			{
				name: 'clinicScribeApi',
				required: true,
				displayOptions: { show: { authentication: ['clinicScribeApi'] } },
			},
			{
				name: 'clinicScribeOAuth2Api',
				required: true,
				displayOptions: { show: { authentication: ['clinicScribeOAuth2Api'] } },
			},
		],
		properties,
	};

	methods = {
		listSearch: { searchClinics, searchDoctors, searchTemplates },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await route.call(this);
	}
}
