import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

/**
 * A node subtitle expression that shows the display names of the chosen option(s) of `parameter`
 * (say "Upload Audio", not "uploadAudio"; several joined by commas). A value without a name (an
 * expression's result) is shown as it is.
 */
export function optionNameSubtitle(
	parameter: string,
	options: Array<INodePropertyOptions | INodeProperties | INodePropertyCollection>,
): string {
	const names: Record<string, string> = {};
	for (const option of options) {
		if ('value' in option && typeof option.value === 'string') names[option.value] = option.name;
	}
	const chosen = `[].concat($parameter[${JSON.stringify(parameter)}] || [])`;
	return `={{ ${chosen}.map((value) => (${JSON.stringify(names)})[value] || value).join(", ") }}`;
}
