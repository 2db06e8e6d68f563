import type { IDisplayOptions, INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

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

/**
 * A node subtitle expression that shows the display names of the chosen option(s) of `parameter`
 * (say "Upload Audio", not "uploadAudio"; several joined by commas). A value without a name (an
 * expression's result) is shown as it is.
 */
export function optionNameSubtitle(parameter: string, options: Array<INodePropertyOptions | INodeProperties | INodePropertyCollection>): string {
	const names: Record<string, string> = {};
	for (const option of options) {
		if ('value' in option && typeof option.value === 'string') names[option.value] = option.name;
	}
	const chosen = `[].concat($parameter[${JSON.stringify(parameter)}] || [])`;
	return `={{ ${chosen}.map((value) => (${JSON.stringify(names)})[value] || value).join(", ") }}`;
}

/** The options of every property named `name` (an operation is one property per resource). */
export function optionsOf(properties: INodeProperties[], name: string): Array<INodePropertyOptions | INodeProperties | INodePropertyCollection> {
	return properties.filter((property) => property.name === name).flatMap((property) => property.options ?? []);
}
