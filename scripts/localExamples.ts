/**
 * The copies of examples/*.json that `npm start` imports (examples/ stay as they are, for real use):
 * the local credential, the FHIR bundles posted to the local EHR (no credential), the reminders to
 * the fake messaging gateway, a file reader on the sample recording, e-mail nodes sending through
 * the local inbox's SMTP credential, a short poll interval, and the example's sticky note extended
 * by what differs, re-sized to its text and grown upwards, so it covers no node.
 */
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	TRIGGER_NODE_TYPE,
	withCredential,
	type WorkflowJson,
	type WorkflowNode,
} from '../test/support/n8n/workflows';
import { isStickyNote, onGrid, stickyBox, stickyTextHeight } from '../test/support/n8n/canvas';
import { MESSAGES_PATH } from '../test/fake-api/routes/messageGateway';

/** The credential `npm start` imports, which the local copies use. */
export const LOCAL_CREDENTIAL = {
	id: 'clinicScribeLocal01',
	name: 'Clinic Scribe (local fake API)',
};
/**
 * The Clinic Scribe OAuth2 API credential `npm start` also imports, not connected: the user connects
 * it through the fake sign-in provider's login page (the fake's tokens do not outlive a restart).
 */
export const LOCAL_SIGN_IN_CREDENTIAL = {
	id: 'clinicScribeLocal02',
	name: 'Clinic Scribe OAuth2 (local fake sign-in)',
};
/** The SMTP credential `npm start` imports: the local inbox (maildev), which keeps every message it gets. */
export const LOCAL_SMTP_CREDENTIAL = {
	id: 'clinicScribeLocal03',
	name: 'Local inbox (SMTP, npm start)',
};
export const SMTP_CREDENTIAL_TYPE = 'smtp';

/**
 * n8n's SMTP credential for the local inbox: plain SMTP on 127.0.0.1, no user. STARTTLS is off too:
 * the inbox offers it with a certificate no one signed, which a strict client would refuse.
 */
export function smtpCredentialData(inbox: {
	smtpHost: string;
	smtpPort: number;
}): Record<string, unknown> {
	return {
		user: '',
		password: '',
		host: inbox.smtpHost,
		port: inbox.smtpPort,
		secure: false,
		disableStartTls: true,
		hostName: '',
	};
}

/** The FHIR base URL the EHR examples ship with (a placeholder); the local copies post to the local EHR. */
export const EXAMPLE_FHIR_BASE_URL = 'https://fhir.example.com/r4';
/** The messaging gateway (WhatsApp / SMS) the reminder example ships with; the local copy posts to the fake one. */
export const EXAMPLE_MESSAGING_URL = 'https://messaging.example.com/v1/messages';
/** Poll interval of the local copies' "wait for completion" (the fake API finishes at once). */
export const LOCAL_POLL_INTERVAL_SECONDS = 2;
/** Starts the part of a note that `npm start` writes (anything after it is replaced). */
export const LOCAL_NOTE_MARKER = '**With `npm start`:**';

/** What the local copies of the examples are adapted to. */
export interface LocalSetup {
	/** The fake clinic API's address; its messaging gateway takes the reminders. */
	fakeApiUrl: string;
	/** The local EHR's FHIR base URL (`http://127.0.0.1:<port>/fhir`). */
	fhirBaseUrl: string;
	/** The local inbox's page, where the e-mails arrive. */
	inboxUrl: string;
	/** The sample recording (inside the folder n8n may read). */
	recordingPath: string;
}

export function localCopy(example: WorkflowJson, setup: LocalSetup): WorkflowJson {
	const workflow = withCredential(example, CREDENTIAL_TYPE, LOCAL_CREDENTIAL);
	const changes = new Set<string>();
	const nodes = workflow.nodes.map((node): WorkflowNode => {
		const parameters = node.parameters ?? {};
		if (node.type === 'n8n-nodes-base.httpRequest' && parameters.url === EXAMPLE_FHIR_BASE_URL) {
			changes.add(
				`*${node.name}* posts to the local EHR, ${setup.fhirBaseUrl} (no credential); see what it holds: ${ehrPageUrl(setup)}`,
			);
			// The local EHR asks for no credential: the example's placeholder one is dropped.
			const { genericAuthType: _type, ...rest } = parameters;
			const { httpBearerAuth: _credential, ...credentials } = node.credentials ?? {};
			const local: WorkflowNode = {
				...node,
				parameters: { ...rest, url: setup.fhirBaseUrl, authentication: 'none' },
			};
			if (Object.keys(credentials).length > 0) local.credentials = credentials;
			else delete local.credentials;
			return local;
		}
		if (node.type === 'n8n-nodes-base.httpRequest' && parameters.url === EXAMPLE_MESSAGING_URL) {
			const messagesUrl = new URL(MESSAGES_PATH, setup.fakeApiUrl).href;
			changes.add(
				`messages go to the fake messaging gateway; see what arrived: \`curl ${new URL('/__admin/messages', messagesUrl).href}\``,
			);
			return { ...node, parameters: { ...parameters, url: messagesUrl } };
		}
		if (
			node.type === 'n8n-nodes-base.readWriteFile' &&
			(parameters.operation ?? 'read') === 'read'
		) {
			changes.add(
				`*${node.name}* reads a sample recording (put your own in its place to try it): \`${setup.recordingPath}\``,
			);
			return { ...node, parameters: { ...parameters, fileSelector: setup.recordingPath } };
		}
		if (node.type === 'n8n-nodes-base.emailSend') {
			changes.add(
				`*${node.name}* sends through "${LOCAL_SMTP_CREDENTIAL.name}": read it at ${setup.inboxUrl}/`,
			);
			return {
				...node,
				credentials: { ...node.credentials, [SMTP_CREDENTIAL_TYPE]: { ...LOCAL_SMTP_CREDENTIAL } },
			};
		}
		if (node.type === ACTION_NODE_TYPE && parameters.waitForCompletion === true) {
			changes.add(
				`*${node.name}* checks every ${LOCAL_POLL_INTERVAL_SECONDS} s (the fake API finishes at once)`,
			);
			return {
				...node,
				parameters: { ...parameters, pollIntervalSeconds: LOCAL_POLL_INTERVAL_SECONDS },
			};
		}
		return node;
	});
	const triggers = nodes.filter((n) => n.type === TRIGGER_NODE_TYPE);
	const hasTrigger = triggers.length > 0;
	const transcriptionTrigger = triggers.some((n) => triggerEvents(n).includes('v2rx.completed'));
	const lines = [
		`- credential "${LOCAL_CREDENTIAL.name}" (the fake clinic API)`,
		...[...changes].map((change) => `- ${change}`),
		!hasTrigger
			? '\nClick *Execute workflow*.'
			: transcriptionTrigger
				? '\nnpm start publishes (activates) it. Run `npm run demo:complete` in another terminal: the fake API delivers a signed `v2rx.completed`; then open *Executions*.'
				: '\nnpm start publishes (activates) it. Run `npm run demo:clinic` in another terminal: the fake API delivers signed appointment events; then open *Executions*.',
	];
	const local = `${LOCAL_NOTE_MARKER} this is the local copy:\n${lines.join('\n')}`;
	let noted = false;
	const withNote = nodes.map((node): WorkflowNode => {
		if (noted || !isStickyNote(node) || typeof node.parameters.content !== 'string') return node;
		noted = true;
		const content = node.parameters.content;
		const at = content.indexOf(LOCAL_NOTE_MARKER);
		const kept = at === -1 ? content.trimEnd() : content.slice(0, at).trimEnd();
		const extended = `${kept}\n\n${local}`;
		const box = stickyBox(node);
		// As tall as its text, with the same bottom edge: it grows upwards, away from the nodes below.
		const height = onGrid(stickyTextHeight(extended, box.right - box.left));
		return {
			...node,
			position: [box.left, box.bottom - height],
			parameters: { ...node.parameters, content: extended, width: box.right - box.left, height },
		};
	});
	return { ...workflow, nodes: withNote };
}

/** The local EHR's page of what it holds (the FHIR base URL without `/fhir`). */
export function ehrPageUrl(setup: Pick<LocalSetup, 'fhirBaseUrl'>): string {
	return `${setup.fhirBaseUrl.replace(/\/fhir\/?$/, '')}/`;
}

/** The event names a Clinic Scribe Trigger node subscribes to (its `events` parameter; default v2rx.completed). */
export function triggerEvents(node: WorkflowNode): string[] {
	const events = node.parameters?.events;
	if (events === undefined) return ['v2rx.completed'];
	return (Array.isArray(events) ? events : [events]).filter(
		(e): e is string => typeof e === 'string',
	);
}
