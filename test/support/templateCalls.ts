/**
 * Shared set-up of the Template tests (test/integration/template/): one fake API per file, real
 * HTTP, the workspace's templates reset before each test (test/fake-api/routes/template.ts), and
 * the parameters of each operation.
 */
import { fakeTemplates, resetTemplateStore } from '../fake-api/routes/template';
import { byId, useNodeRuns, type NodeRuns } from './nodeRuns';

export { byId };

export const TEMPLATES = '/voice/api/v1/template';

/** Registers beforeAll/afterAll/beforeEach in the calling file and gives its helpers. */
export function useTemplateCalls(): NodeRuns {
	return useNodeRuns({ reset: (api) => resetTemplateStore(fakeTemplates(api)) });
}

export const getMany = (extra: Record<string, unknown> = {}) => ({
	resource: 'template',
	operation: 'getAll',
	returnAll: true,
	...extra,
});
export const getOne = (id: unknown) => ({
	resource: 'template',
	operation: 'get',
	templateId: byId(id),
});
export const create = (extra: Record<string, unknown> = {}) => ({
	resource: 'template',
	operation: 'create',
	title: 'Cardiology OPD Note',
	instructions: '## Complaints\n## Findings\n## Plan',
	sectionIds: '',
	...extra,
});
export const update = (id: unknown, updateFields: Record<string, unknown>) => ({
	resource: 'template',
	operation: 'update',
	templateId: byId(id),
	updateFields,
});
export const remove = (id: unknown) => ({
	resource: 'template',
	operation: 'delete',
	templateId: byId(id),
});

export const SOAP_NOTE = {
	id: 'tpl-soap-note',
	title: 'SOAP Note',
	description: 'Write a SOAP note: ## Subjective, ## Objective, ## Assessment, ## Plan',
	sections: ['sec_history', 'sec_plan'],
	default: false,
	is_favorite: true,
};
