/**
 * Index of the n8n harness, whose parts live in test/support/n8n/ by job: install.ts (installing
 * n8n, building and packing this package), workflows.ts (workflow and credential JSON),
 * results.ts (reading execution results), instance.ts (an n8n and its REST client), processes.ts
 * (process groups and ports). Import from those; this index stays only for scripts/start.ts.
 */
export * from './n8n/install';
export * from './n8n/instance';
export * from './n8n/processes';
export * from './n8n/results';
export * from './n8n/workflows';
