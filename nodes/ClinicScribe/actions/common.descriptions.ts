import type {
	IDisplayOptions,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
} from 'n8n-workflow';

/** "Return All" + "Limit", as every n8n list operation offers them. */
export function returnAllAndLimit(show: IDisplayOptions['show']): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions: { show },
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { ...show, returnAll: [false] } },
		},
	];
}

/** The options of every property named `name` (an operation is one property per resource). */
export function optionsOf(
	properties: INodeProperties[],
	name: string,
): Array<INodePropertyOptions | INodeProperties | INodePropertyCollection> {
	return properties
		.filter((property) => property.name === name)
		.flatMap((property) => property.options ?? []);
}

export const SHARE_WITH_AGENT_PARAMETER = 'shareWithAiAgent';

/**
 * Shown only when the node is an AI agent's tool: what the operation returns is patient data, and
 * the agent passes it to its model provider. The user can switch that off per operation.
 */
export function patientDataForAgentProperties(show: IDisplayOptions['show']): INodeProperties[] {
	const asTool = { ...show, '@tool': [true] };
	return [
		{
			displayName:
				"As an AI agent's tool this operation returns patient data, which the agent sends to its AI model provider. Use it only with a provider your clinic may share patient data with.",
			name: 'patientDataToolNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: asTool },
		},
		{
			displayName: 'Share Patient Data With the AI Agent',
			name: SHARE_WITH_AGENT_PARAMETER,
			type: 'boolean',
			default: true,
			description:
				"Whether the agent may run this operation. On by default: what it returns (patient data included) goes to the agent's model provider. Turn off to keep patient data away from it: the tool then refuses and returns nothing.",
			displayOptions: { show: asTool },
		},
	];
}
